"""The `tritoncfg` command: a Typer app; each command lives in its own module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, ClassVar

import typer

from tritoncfg import __version__
from tritoncfg.cli.lazy import LazyCommand, LazyGroup


class Commands(LazyGroup):
    """Each command's module is imported when the command runs or its help is shown."""

    LAZY: ClassVar[Mapping[str, LazyCommand]] = {
        "lint": LazyCommand("tritoncfg.cli.lint:lint_command"),
        "fmt": LazyCommand("tritoncfg.cli.fmt:fmt_command"),
        "complete": LazyCommand("tritoncfg.cli.complete:complete_command"),
        "verify": LazyCommand("tritoncfg.cli.verify:verify_command"),
        "probe": LazyCommand("tritoncfg.cli.probe:probe_command"),
        "diff": LazyCommand("tritoncfg.cli.diff:diff_command"),
        "rules": LazyCommand("tritoncfg.cli.rules:rules_command"),
        "explain": LazyCommand("tritoncfg.cli.rules:explain_command"),
        "convert": LazyCommand("tritoncfg.cli.convert:convert_command"),
        "new": LazyCommand("tritoncfg.cli.new:new_command"),
        # old name of `schema settings`
        "config-schema": LazyCommand("tritoncfg.cli.rules:config_schema_command", hidden=True),
        "schema": LazyCommand("tritoncfg.cli.rules:schema_app", group=True),
        "gen": LazyCommand("tritoncfg.cli.gen:app", group=True),
        "simulate": LazyCommand("tritoncfg.cli.simulate:simulate_command"),
        "tune": LazyCommand("tritoncfg.cli.tune:tune_command"),
        "version": LazyCommand("tritoncfg.cli.version:version_command"),
    }


app = typer.Typer(
    name="tritoncfg",
    help="Read, check, format and prove Triton Inference Server model repositories.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help and usage errors: cli/help.py
    cls=Commands,
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
            "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Read, check, format and prove Triton Inference Server model repositories."""


def main() -> None:
    app()
