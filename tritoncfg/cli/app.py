"""The `tritoncfg` command: a Typer app; each command lives in its own module."""

from __future__ import annotations

from typing import Annotated

import typer

from tritoncfg import __version__
from tritoncfg.cli import complete, diff, fmt, lint, rules, verify
from tritoncfg.cli.help import PlainHelpCommand, PlainHelpGroup

app = typer.Typer(
    name="tritoncfg",
    help="Read, check, format and prove Triton Inference Server model repositories.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    cls=PlainHelpGroup,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tritoncfg {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Read, check, format and prove Triton Inference Server model repositories."""


app.command("lint", cls=PlainHelpCommand)(lint.lint_command)
app.command("fmt", cls=PlainHelpCommand)(fmt.fmt_command)
app.command("complete", cls=PlainHelpCommand)(complete.complete_command)
app.command("verify", cls=PlainHelpCommand)(verify.verify_command)
app.command("diff", cls=PlainHelpCommand)(diff.diff_command)
app.command("rules", cls=PlainHelpCommand)(rules.rules_command)
app.command("explain", cls=PlainHelpCommand)(rules.explain_command)
app.command("config-schema", cls=PlainHelpCommand)(rules.config_schema_command)


def main() -> None:
    app()
