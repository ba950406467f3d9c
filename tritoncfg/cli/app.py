"""The `tritoncfg` command: a Typer app; each command lives in its own module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from tritoncfg import __version__
from tritoncfg.cli import complete, convert, diff, fmt, gen, lint, new, probe, rules, verify
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


_COMMANDS: dict[str, Callable[..., None]] = {
    "lint": lint.lint_command,
    "fmt": fmt.fmt_command,
    "complete": complete.complete_command,
    "verify": verify.verify_command,
    "probe": probe.probe_command,
    "diff": diff.diff_command,
    "rules": rules.rules_command,
    "explain": rules.explain_command,
    "convert": convert.convert_command,
    "new": new.new_command,
}
for _name, _command in _COMMANDS.items():
    app.command(_name, cls=PlainHelpCommand)(_command)
app.command("config-schema", hidden=True, cls=PlainHelpCommand)(
    rules.config_schema_command
)  # old name of `schema settings`
app.add_typer(rules.schema_app, name="schema", cls=PlainHelpGroup)
app.add_typer(gen.app, cls=PlainHelpGroup)


def main() -> None:
    app()
