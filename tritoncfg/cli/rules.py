"""`tritoncfg rules`, `tritoncfg explain CODE`, `tritoncfg schema settings|model-config`: the
rules' own docs and the JSON Schemas (`config-schema` is the old name of `schema settings`)."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated

import typer

from tritoncfg.cli.common import fail


class RulesFormat(StrEnum):
    text = "text"
    json = "json"


def rules_command(
    output_format: Annotated[
        RulesFormat, typer.Option("--format", "-f", help="Output format.")
    ] = RulesFormat.text,
) -> None:
    """List every rule: code, name, severity, Triton phase, fixable, summary."""
    from tritoncfg.checks import RULES

    rules = [RULES[code] for code in sorted(RULES)]
    if output_format is RulesFormat.json:
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
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=False, header_style="bold")
    for column in ("code", "rule", "severity", "phase", "fix", "summary"):
        table.add_column(column, overflow="fold")
    for r in rules:
        table.add_row(
            r.code, r.name, r.severity.value, r.phase, "yes" if r.fixable else "", r.summary
        )
    Console(highlight=False).print(table)


def explain_command(
    rule: Annotated[str, typer.Argument(help="A rule code (TC203) or name.", show_default=False)],
) -> None:
    """Show a rule's full documentation."""
    from rich.console import Console
    from rich.markdown import Markdown

    from tritoncfg.checks import RULES
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
    Console(highlight=False).print(Markdown(f"{header}\n\n{found.summary}\n\n{found.doc}"))


schema_app = typer.Typer(
    help="Print a JSON Schema: of tritoncfg's settings, or of a model configuration as JSON.",
    no_args_is_help=True,
)


@schema_app.command("settings")
def config_schema_command() -> None:
    """Print the JSON Schema of the [tool.tritoncfg] configuration (for editors)."""
    from tritoncfg.settings import CONFIG_SCHEMA

    sys.stdout.write(json.dumps(CONFIG_SCHEMA, indent=2) + "\n")


@schema_app.command("model-config")
def model_config_schema_command() -> None:
    """Print the JSON Schema (draft 2020-12) of a model configuration as JSON, generated from
    the ModelConfig protobuf: proto field names as Triton's JSON writes them, enums by name or
    number, 64-bit integers as strings or numbers, at most one member of each oneof."""
    from tritoncfg.schema.json_schema import model_config_schema

    sys.stdout.write(json.dumps(model_config_schema(), indent=2) + "\n")
