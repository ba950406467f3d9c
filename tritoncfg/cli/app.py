"""The `tritoncfg` command: a Typer app; each command lives in its own module."""

from __future__ import annotations

from typing import Annotated

import typer

from tritoncfg import __version__
from tritoncfg.cli import complete, convert, diff, fmt, gen, lint, new, probe, rules, verify

app = typer.Typer(
    name="tritoncfg",
    help="Read, check, format and prove Triton Inference Server model repositories.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
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


app.command("lint")(lint.lint_command)
app.command("fmt")(fmt.fmt_command)
app.command("complete")(complete.complete_command)
app.command("verify")(verify.verify_command)
app.command("probe")(probe.probe_command)
app.command("diff")(diff.diff_command)
app.command("rules")(rules.rules_command)
app.command("explain")(rules.explain_command)
app.command("convert")(convert.convert_command)
app.command("config-schema", hidden=True)(
    rules.config_schema_command
)  # old name of `schema settings`
app.add_typer(rules.schema_app, name="schema")
app.add_typer(gen.app)
app.command("new")(new.new_command)


def main() -> None:
    app()
