"""Help texts are plain text: `[tool.tritoncfg]` and `tritoncfg[server]` are shown as written.

Typer's "rich" markup mode reads `[...]` as a style tag and drops it. Escaping each text at its
source would have to be remembered by every new option, so the command classes escape every help
text (command, options, arguments, subcommands) while help is formatted, and restore it after.

Below RICH_MIN_WIDTH columns (an 80-column terminal; a pipe, which Rich takes for 80), Rich's
option table cuts long option names and words short (`--model-config-na…`), so a command's help
is laid out by Click instead: option and text one under the other where they do not fit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from typer.core import TyperCommand, TyperGroup

RICH_MIN_WIDTH = 100


def _texts(command: Any) -> Iterator[Any]:
    """The objects whose `help`/`short_help`/`epilog` the help screen renders as markup: the
    command, its parameters and (for the root group) its subcommands' one-line summaries."""
    yield command
    yield from command.params
    yield from getattr(command, "commands", {}).values()


@contextmanager
def _escaped(command: Any) -> Iterator[None]:
    from rich.markup import escape  # only when help is shown: rich stays off the lint path

    saved: list[tuple[Any, str, str]] = []
    for obj in _texts(command):
        for attribute in ("help", "short_help", "epilog"):
            text = getattr(obj, attribute, None)
            if isinstance(text, str):
                saved.append((obj, attribute, text))
                setattr(obj, attribute, escape(text))
    try:
        yield
    finally:
        for obj, attribute, text in saved:
            setattr(obj, attribute, text)


def _rich_width() -> int:
    """The width Typer's Rich console will use (TERMINAL_WIDTH, else COLUMNS or the terminal's)."""
    from rich.console import Console
    from typer.rich_utils import MAX_WIDTH

    return MAX_WIDTH or Console().width


@contextmanager
def _laid_out(command: Any) -> Iterator[None]:
    """Rich with escaped texts where it has the width; Click's plain layout where it has not."""
    if command.rich_markup_mode is None:
        yield
    elif _rich_width() >= RICH_MIN_WIDTH:
        with _escaped(command):
            yield
    else:
        mode, command.rich_markup_mode = command.rich_markup_mode, None
        try:
            yield
        finally:
            command.rich_markup_mode = mode


class PlainHelpCommand(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _laid_out(self):
            super().format_help(ctx, formatter)


class PlainHelpGroup(TyperGroup):
    """A group's options are short (`--version`, `--help`): Rich fits them at 80 columns, and
    shows the commands' summaries whole, where Click would cut them."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _escaped(self):
            super().format_help(ctx, formatter)
