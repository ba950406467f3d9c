"""`tritoncfg lint PATH...` (the pre-commit hook's call) runs without Typer, Click or Rich
(cli/main.py), and prints and exits exactly as the Typer command does on the same paths."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lintkit import make_model

from tritoncfg.cli.main import plain_lint

FAST = "from tritoncfg.cli.main import main; main()"
TYPER = "from tritoncfg.cli.app import app; app()"
# at exit, which path ran: the Typer app imports typer, the fast path must not
PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('[typer]' if 'typer' in sys.modules else '[fast]'))\n"
)


def _run(code: str, args: list[str], cwd: Path, probe: str = PROBE) -> tuple[str, str, int]:
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    env["NO_COLOR"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", probe + code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=120,
    )
    return done.stdout, done.stderr, done.returncode


@pytest.fixture
def repositories(tmp_path: Path) -> Path:
    make_model(tmp_path / "clean", "m", 'name: "m"\nbackend: "python"\n', files={"1/model.py": ""})
    make_model(
        tmp_path / "broken", "a", 'backend: "python"\nmax_batch_size: 8\nmax_batch_size: 4\n'
    )
    make_model(tmp_path / "broken", "b", 'backend: "onnxruntime"\ninput [{ name: "x" }]\n')
    make_model(tmp_path / "project" / "models", "p", 'backend: "python"\nmax_batch_size: 8\n')
    (tmp_path / "project" / "tritoncfg.toml").write_text(
        'repository = "models"\nseverity-overrides = { TC903 = "error" }\ncache = false\n'
    )
    make_model(tmp_path / "unreadable", "u", None)
    (tmp_path / "unreadable" / "u" / "config.pbtxt").write_bytes(b'name: "\xff\xfe"\n')
    make_model(tmp_path / "badsettings" / "models", "q", 'backend: "python"\n')
    (tmp_path / "badsettings" / "tritoncfg.toml").write_text('selct = ["TC1"]\n')
    return tmp_path


CASES = {
    "clean": ["lint", "clean"],
    "errors": ["lint", "broken"],
    "one config of each": ["lint", "broken/a/config.pbtxt", "clean/m/config.pbtxt"],
    "settings": ["lint", "project"],
    "unreadable config": ["lint", "unreadable"],
    "bad settings": ["lint", "badsettings/models"],
    "missing path": ["lint", "clean", "nope"],
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_the_fast_path_prints_and_exits_as_the_typer_command(
    repositories: Path, args: list[str]
) -> None:
    assert plain_lint(args)
    out, err, status = _run(FAST, args, repositories)
    assert err.endswith("[fast]"), err
    typer_out, typer_err, typer_status = _run(TYPER, args, repositories)
    assert typer_err.endswith("[typer]"), typer_err
    assert (out, err.removesuffix("[fast]"), status) == (
        typer_out,
        typer_err.removesuffix("[typer]"),
        typer_status,
    )
    assert status in (0, 1, 2) and (out or err.removesuffix("[fast]"))


def test_the_cases_cover_every_exit_status(repositories: Path) -> None:
    statuses = {_run(FAST, args, repositories)[2] for args in CASES.values()}
    assert statuses == {0, 1, 2}


@pytest.mark.parametrize(
    "args",
    [
        ["lint"],  # no path: Typer's usage error
        ["lint", "clean", "--format", "json"],
        ["lint", "-q", "clean"],
        ["lint", "--bogus", "clean"],
        ["lint", "--help"],
        ["fmt", "--check", "clean"],
        [],
    ],
)
def test_any_other_command_line_goes_to_typer_unchanged(
    repositories: Path, args: list[str]
) -> None:
    assert not plain_lint(args)
    out, err, status = _run(FAST, args, repositories)
    assert err.endswith("[typer]"), err
    assert (out, err, status) == _run(TYPER, args, repositories)


def test_a_shell_completion_request_goes_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    assert plain_lint(["lint", "x"])
    monkeypatch.setenv("_TRITONCFG_COMPLETE", "complete_bash")
    assert not plain_lint(["lint", "x"])


def test_the_typer_command_builds_the_fast_paths_request_for_lint_paths() -> None:
    """Every default of the Typer command, as parsed by Click, equals the request the fast path
    makes with no option: a changed default in cli/lint.py would otherwise split the two."""
    import typer.main

    from tritoncfg.cli.app import app
    from tritoncfg.cli.lint import lint_request
    from tritoncfg.cli.lint_request import LintRequest

    root = typer.main.get_command(app)
    command = root.get_command(root.make_context("tritoncfg", ["lint", "a"]), "lint")
    parsed = command.make_context("lint", ["a", "b/config.pbtxt"]).params
    assert lint_request(parsed) == LintRequest(("a", "b/config.pbtxt"))
    changed = command.make_context("lint", ["a", "--gpus", "0", "--fix", "-q"]).params
    assert lint_request(changed) != LintRequest(("a",))  # the comparison sees the options


# modules a lint does not need: `dataclasses` imports `inspect`, which imports `ast`, `dis` and
# `tokenize` (some 12 ms, a sixth of the hook's run); records are made without them (`ast` itself
# is imported where a python model's model.py is read, TC127)
NOT_IMPORTED = ("dataclasses", "inspect", "typer", "rich")
IMPORTS = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write("
    f"'[' + ','.join(m for m in {NOT_IMPORTED!r} if m in sys.modules) + ']'))\n"
)


@pytest.mark.parametrize("args", [CASES["errors"], CASES["one config of each"]])
def test_the_fast_path_imports_no_module_it_does_not_need(
    repositories: Path, args: list[str]
) -> None:
    out, err, status = _run(FAST, args, repositories, probe=IMPORTS)
    assert status == 1 and "TC" in out, out + err  # it linted
    assert err.endswith("[]"), err
