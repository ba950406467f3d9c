"""Help screens and usage errors: one layout, written through Rich's console.

Every help screen has Click's layout (usage, text, then each option with its text beside it or
under it where it does not fit), at every width, for commands and groups alike: Rich's boxed
tables cut long option names short at 80 columns (`--model-config-na…`). Texts are shown as
written (no markup: `[tool.tritoncfg]` stays). Colour, when `use_color` allows it, is added by
Rich: option names, headings, and `Error:` in usage errors; without it there is no escape code.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

from typer.core import TyperCommand, TyperGroup

from tritoncfg.cli.clickapi import click
from tritoncfg.cli.common import Color, use_color

# what is coloured: option names (`--fix`, `-f`), headings (`Usage:`, `Options:`), `Error:`
_STYLES = (
    (re.compile(r"(?:^|(?<=[\s,\[/(]))--?[a-zA-Z][\w-]*"), "bold cyan"),
    (re.compile(r"^(?:Usage:|[A-Z][a-z]+:$)", re.MULTILINE), "bold"),
    (re.compile(r"^Error:", re.MULTILINE), "bold red"),
    (re.compile(r"^Try '.*' for help\.$", re.MULTILINE), "dim"),
)


def write_styled(text: str, stream: TextIO, *, color: bool) -> None:
    """`text` as written, through Rich's console, coloured by `_STYLES` when `color`."""
    from rich.text import Text

    from tritoncfg.report.console import rich_console

    shown = Text(text)
    if color:
        for pattern, style in _STYLES:
            shown.highlight_regex(pattern, style)
    console = rich_console(stream, color=color, highlight=False, soft_wrap=True)
    console.print(shown, end="", markup=False)


def _styled(text: str, color: bool) -> str:
    import io

    buffer = io.StringIO()
    write_styled(text, buffer, color=color)
    return buffer.getvalue()


class _StyledHelp:
    """Click's help layout (Typer's Rich one bypassed), coloured through Rich when allowed."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        plain = ctx.make_formatter()
        click.Command.format_help(self, ctx, plain)  # Click's layout, not Typer's Rich one
        formatter.write(_styled(plain.getvalue(), bool(ctx.color)))


class PlainHelpCommand(_StyledHelp, TyperCommand):
    pass


class PlainHelpGroup(_StyledHelp, TyperGroup):
    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Each command with the first sentence of its help, whole (Click would cut it to
        what fits on one line)."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def show_usage_error(error: Any) -> None:
    """A usage error as Click words it (usage line, the help hint, `Error: ...`), on stderr,
    coloured as help is: Typer's boxed Rich panel is not used."""
    stream = sys.stderr
    color = use_color(Color.auto, stream)
    if isinstance(error, click.exceptions.NoArgsIsHelpError):
        stream.write(error.format_message() + "\n")  # the help screen, styled already
        return
    ctx = getattr(error, "ctx", None)
    lines = []
    if ctx is not None:
        lines.append(ctx.get_usage())
        if ctx.command.get_help_option(ctx) is not None:
            option = max(ctx.command.get_help_option_names(ctx), key=len)
            lines.append(f"Try '{ctx.command_path} {option}' for help.")
        lines.append("")
    lines.append(f"Error: {error.format_message()}")
    write_styled("\n".join(lines) + "\n", stream, color=color)
