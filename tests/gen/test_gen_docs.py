"""docs/gen.md: every worked example runs, and prints what the page shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from clikit import run_documented

DOC = Path(__file__).resolve().parents[2] / "docs" / "gen.md"
FILE = re.compile(r"<!-- file: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)```\n", re.S)
RUN = re.compile(r"<!-- run -->\n```console\n\$ (?P<command>[^\n]+)\n(?P<output>.*?)```\n", re.S)


def _examples() -> list[tuple[str, str]]:
    return [(m["command"], m["output"]) for m in RUN.finditer(DOC.read_text())]


def test_the_page_has_an_example_per_generator() -> None:
    commands = " ".join(command for command, _ in _examples())
    for name in ("dynamic-batching", "instance-group", "warmup", "ensemble", "--from-perf"):
        assert name in commands


@pytest.mark.parametrize(("command", "output"), _examples())
def test_example_output(command: str, output: str, tmp_path: Path) -> None:
    for match in FILE.finditer(DOC.read_text()):
        path = tmp_path / match["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(match["body"])
        if path.name == "config.pbtxt":
            (path.parent / "1").mkdir()
            (path.parent / "1" / "model.py").write_text("# never imported\n")
    done = run_documented(command, tmp_path)
    assert done.returncode == 0, done.stdout
    assert done.stdout == output


def test_every_option_is_documented() -> None:
    import typer

    from tritoncfg.cli.gen import app

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert len(commands) == 4
    text = DOC.read_text()
    for name, command in commands.items():
        assert f"gen {name}" in text
        for param in command.params:
            for option in param.opts:
                if option.startswith("--") and option != "--help":
                    assert option in text, f"gen {name} {option} is not in docs/gen.md"
