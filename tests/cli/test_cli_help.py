"""Every `--help` screen shows bracketed text as written (`[tool.tritoncfg]`, `tritoncfg[server]`):
Rich markup must not read it as a style tag and drop it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tritoncfg.cli.app import app

BRACKETED = re.compile(r"\S*\[[^\]\s]*\]\S*")
# a placeholder cut at its table cell's end: no `>` before the gap (2 spaces) or the cell's edge
UNCLOSED = re.compile(r"<[a-z][^<>│]*?(?=\s{2}|\s*│|\s*$)")


def _commands() -> Iterator[tuple[tuple[str, ...], Any]]:
    yield from _walk((), typer.main.get_command(app))


def _walk(path: tuple[str, ...], command: Any) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and group, sub-apps (`gen`, `schema`) included."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk((*path, name), sub)


def _help_texts(command: Any) -> list[str]:
    texts = [command.help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    # a hidden command (the old name `config-schema`) is not listed, so its summary is not shown
    texts += [sub.help or "" for sub in getattr(command, "commands", {}).values() if not sub.hidden]
    return texts


def _squeezed(text: str) -> str:
    """Help screens wrap and frame text: compare without whitespace and box characters."""
    return re.sub(r"[\s│╭╮╰╯─]", "", text)


COMMANDS = list(_commands())


def test_the_walk_finds_every_command_and_bracketed_texts() -> None:
    names = {path[0] for path, _ in COMMANDS if path}
    assert {"lint", "fmt", "complete", "verify", "diff", "rules", "config-schema"} <= names
    bracketed = [m for _, c in COMMANDS for t in _help_texts(c) for m in BRACKETED.findall(t)]
    assert "[tool.tritoncfg]" in bracketed
    assert any("tritoncfg[server]" in m for m in bracketed)


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=[" ".join(path) or "tritoncfg" for path, _ in COMMANDS]
)
def test_help_keeps_every_bracketed_text(path: tuple[str, ...], command: Any) -> None:
    # wide enough that Rich never shortens a long word with an ellipsis: brackets are the subject
    result = CliRunner().invoke(
        app, [*path, "--help"], env={"NO_COLOR": "1", "COLUMNS": "200"}, terminal_width=200
    )
    assert result.exit_code == 0, result.output
    shown = _squeezed(result.output)
    for text in _help_texts(command):
        for bracketed in BRACKETED.findall(text):
            assert _squeezed(bracketed.rstrip(".,);:")) in shown, (path, bracketed)


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=[" ".join(path) or "tritoncfg" for path, _ in COMMANDS]
)
def test_help_at_80_columns_shows_every_option_whole(path: tuple[str, ...], command: Any) -> None:
    """Rich's table would cut `--model-config-name` to `--model-config-na…` here; Click's
    layout wraps the text under the option instead, for groups and commands alike (one style:
    no box anywhere)."""
    result = CliRunner().invoke(
        app, [*path, "--help"], env={"NO_COLOR": "1", "COLUMNS": "80"}, terminal_width=80
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80, result.output
    assert "…" not in result.output
    assert "╭" not in result.output and "│" not in result.output
    words = set(result.output.replace(",", " ").replace("│", " ").split())
    for param in command.params:
        for name in getattr(param, "opts", []) + getattr(param, "secondary_opts", []):
            if name.startswith("-") and not getattr(param, "hidden", False):
                assert name in words, (path, name)
    for text in _help_texts(command):  # bracketed text as written, no escaping backslash
        for bracketed in BRACKETED.findall(text):
            assert _squeezed(bracketed.rstrip(".,);:")) in _squeezed(result.output), bracketed


def test_help_has_one_layout_at_every_width() -> None:
    """The root group and a command look alike, wide or narrow: Click's sections, no boxes;
    each command's summary is its whole first sentence."""
    for width in (80, 120):
        env = {"NO_COLOR": "1", "COLUMNS": str(width)}
        root = CliRunner().invoke(app, ["--help"], env=env, terminal_width=width)
        lint = CliRunner().invoke(app, ["lint", "--help"], env=env, terminal_width=width)
        for result in (root, lint):
            assert result.exit_code == 0, result.output
            assert "Options:" in result.output and "╭" not in result.output
        assert "--model-config-name" in lint.output
        assert "report every problem with file:line:col." in " ".join(root.output.split())


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=[" ".join(path) or "tritoncfg" for path, _ in COMMANDS]
)
@pytest.mark.parametrize("width", [100, 120])
def test_rich_help_never_breaks_a_value_placeholder(
    path: tuple[str, ...], command: Any, width: int
) -> None:
    """At the widths Rich lays help out, an option's `<...>` placeholder is whole on its line:
    a long list of choices (`<onnx|tensorrt|python|pytorch|ense` / `mble|bls>`) breaks mid-word,
    so such options show a short placeholder and list the choices in their help."""
    result = CliRunner().invoke(
        app, [*path, "--help"], env={"NO_COLOR": "1", "COLUMNS": str(width)}, terminal_width=width
    )
    assert result.exit_code == 0, result.output
    for line in result.output.splitlines():
        assert not UNCLOSED.search(line), (path, width, line)
