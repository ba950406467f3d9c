"""Help texts are plain text: `[tool.tritoncfg]` and `tritoncfg[server]` are shown as written.

Typer's "rich" markup mode reads `[...]` as a style tag and drops it. Escaping each text at its
source would have to be remembered by every new option, so the command classes escape every help
text (command, options, arguments, subcommands) while help is formatted, and restore it after.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from typer.core import TyperCommand, TyperGroup


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


class PlainHelpCommand(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _escaped(self):
            super().format_help(ctx, formatter)


class PlainHelpGroup(TyperGroup):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _escaped(self):
            super().format_help(ctx, formatter)
