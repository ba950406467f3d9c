"""`tritoncfg rules`, `tritoncfg explain CODE`, `tritoncfg schema settings|model-config`: the
rules' own docs and the JSON Schemas (`config-schema` is the old name of `schema settings`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from tritoncfg.cli.common import Color, fail, use_color
from tritoncfg.cli.help import PlainHelpCommand
from tritoncfg.options.choices import TextOrJson


def rules_command(
    output_format: Annotated[
        TextOrJson, typer.Option("--format", "-f", help="Output format.")
    ] = TextOrJson.text,
) -> None:
    """List every rule: code, name, severity, Triton phase, fixable, summary."""
    from tritoncfg.checks import RULES

    rules = [RULES[code] for code in sorted(RULES)]
    if output_format is TextOrJson.json:
        rows = [
            {
                "code": r.code,
                "rule": r.name,
                "severity": r.severity.value,
                "phase": r.phase,
                "summary": r.summary,
                "fixable": r.fixable,
            }
            for r in rules
        ]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    header = ("code", "rule", "severity", "phase", "fix", "summary")
    rows_text = [
        (r.code, r.name, r.severity.value, r.phase, "yes" if r.fixable else "", r.summary)
        for r in rules
    ]
    if not sys.stdout.isatty():
        # piped or redirected: one line per rule, for grep and diff; nothing wraps
        _write_lines(header, rows_text)
        return
    from rich.table import Table
    from rich.text import Text

    from tritoncfg.report.console import rich_console

    table = Table(show_lines=False, header_style="bold")
    for column in header:
        table.add_column(column, overflow="fold")
    for row in rows_text:
        table.add_row(*(Text(cell) for cell in row))  # Text: a summary's [brackets] stay
    rich_console(None, color=use_color(Color.auto, sys.stdout), highlight=False).print(table)


def _write_lines(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    """Aligned columns, one line per row; the last column (the summary) is never cut."""
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]
    for row in (header, *rows):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        sys.stdout.write("  ".join([*cells, row[-1]]).rstrip() + "\n")


def explain_command(
    rule: Annotated[str, typer.Argument(help="A rule code (TC203) or name.", show_default=False)],
) -> None:
    """Show a rule's full documentation."""
    from rich.markdown import Markdown

    from tritoncfg.checks import RULES
    from tritoncfg.report.console import rich_console
    from tritoncfg.schema.lookup import suggest

    found = RULES.get(rule.upper()) or next((r for r in RULES.values() if r.name == rule), None)
    if found is None:
        hint = suggest(rule, [*RULES, *(r.name for r in RULES.values())])
        fail(
            f"no rule {rule!r}"
            + (f'; did you mean "{hint}"?' if hint else "; see `tritoncfg rules`")
        )
    header = f"# {found.code} {found.name}\n\n*{found.severity.value}* · Triton phase {found.phase}"
    if found.fixable:
        header += " · fixable with `--fix`"
    console = rich_console(None, color=use_color(Color.auto, sys.stdout), highlight=False)
    console.print(Markdown(f"{header}\n\n{found.summary}\n\n{found.doc}"))


schema_app = typer.Typer(
    help="Print a JSON Schema: of tritoncfg's settings, or of a model configuration as JSON.",
    no_args_is_help=True,
)


@schema_app.command("settings", cls=PlainHelpCommand)
def config_schema_command() -> None:
    """Print the JSON Schema of the [tool.tritoncfg] configuration (for editors)."""
    from tritoncfg.settings import CONFIG_SCHEMA

    sys.stdout.write(json.dumps(CONFIG_SCHEMA, indent=2) + "\n")


@schema_app.command("model-config", cls=PlainHelpCommand)
def model_config_schema_command() -> None:
    """Print the JSON Schema (draft 2020-12) of a model configuration as JSON, generated from
    the ModelConfig protobuf: proto field names as Triton's JSON writes them, enums by name or
    number, 64-bit integers as strings or numbers, at most one member of each oneof."""
    from tritoncfg.schema.json_schema import model_config_schema

    sys.stdout.write(json.dumps(model_config_schema(), indent=2) + "\n")
