"""One colour decision for every output (cli/common.py `use_color`): `--color` > `NO_COLOR` >
`FORCE_COLOR` / `CLICOLOR_FORCE` > `TERM=dumb` > whether the stream is a terminal. Checked on
the real command, for a finding (stdout), a usage error (stderr) and `--help` (stdout)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

ESC = "\x1b["
COLOR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR", "TERM", "COLUMNS")


def _env(**given: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in COLOR_VARIABLES}
    return env | {"TERM": "xterm"} | given


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A model with an error finding (TC203)."""
    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.onnx").write_bytes(b"")
    (model / "config.pbtxt").write_text(
        'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 4\n'
        "dynamic_batching { preferred_batch_size: [ 8 ] }\n"
        'input { name: "x" data_type: TYPE_FP32 dims: [ 2 ] }\n'
        'output { name: "y" data_type: TYPE_FP32 dims: [ 2 ] }\n'
    )
    return model


def _outputs(model: Path, env: dict[str, str], *lint: str) -> dict[str, str]:
    """What a finding, a usage error and --help write, each where it goes, through a pipe."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "tritoncfg", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, check=False)

    finding = run("lint", *lint, str(model))
    assert finding.returncode == 1 and "TC203" in finding.stdout, finding
    usage = run("lint", "--no-such-option", str(model))
    assert usage.returncode == 2 and "No such option" in usage.stderr, usage
    shown = run("lint", "--help")
    assert shown.returncode == 0 and "--select" in shown.stdout, shown
    return {"finding": finding.stdout, "usage error": usage.stderr, "help": shown.stdout}


@pytest.mark.parametrize(
    ("variables", "colored"),
    [
        ({}, False),  # a pipe
        ({"NO_COLOR": "1"}, False),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),  # NO_COLOR wins
        ({"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, False),
        ({"FORCE_COLOR": "1"}, True),  # colour into a pipe
        ({"CLICOLOR_FORCE": "1"}, True),
        ({"CLICOLOR_FORCE": "0"}, False),
        ({"FORCE_COLOR": "1", "TERM": "dumb"}, True),  # forced beats a dumb terminal
    ],
    ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else str(v),
)
def test_environment_decides_every_output(
    broken: Path, variables: dict[str, str], colored: bool
) -> None:
    # the fast path (`lint PATH`, no Typer) and the Typer command decide alike
    for lint in ((), ("--quiet",)):
        for what, text in _outputs(broken, _env(**variables), *lint).items():
            assert (ESC in text) is colored, (what, lint, text)


def test_the_color_option_beats_the_environment(broken: Path) -> None:
    def finding(env: dict[str, str], option: str) -> str:
        command = [sys.executable, "-m", "tritoncfg", "lint", "--color", option, str(broken)]
        return subprocess.run(command, capture_output=True, text=True, env=env).stdout

    assert ESC in finding(_env(NO_COLOR="1"), "always")
    assert ESC not in finding(_env(FORCE_COLOR="1"), "never")


def _on_a_terminal(env: dict[str, str], *args: str) -> str:
    """What the command writes to a terminal (a pseudo-terminal)."""
    main, secondary = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "tritoncfg", *args],
            stdin=subprocess.DEVNULL,
            stdout=secondary,
            stderr=secondary,
            env=env,
        )
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed: the command is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    finally:
        os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize(
    ("variables", "colored"),
    [({}, True), ({"TERM": "dumb"}, False), ({"NO_COLOR": "1"}, False), ({"CLICOLOR": "0"}, False)],
)
def test_a_terminal_gets_colour_unless_told_otherwise(
    broken: Path, variables: dict[str, str], colored: bool
) -> None:
    env = _env(**variables)
    for args in (("lint", str(broken)), ("lint", "--no-such-option", "x"), ("lint", "--help")):
        text = _on_a_terminal(env, *args)
        assert text.strip(), args
        assert (ESC in text) is colored, (args, text)
