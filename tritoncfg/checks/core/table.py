"""The rule table, tritoncfg/checks/rules.tsv: the one hand-edited list of rule codes, each with
its name, the module and attribute that declare it (`io.labels:label_file_missing`), its
lifecycle (stable, preview, deprecated, removed), the release it came in and, for a removed
rule, the code that replaces it.

Everything else derives from it: the order rules run and report in (line order), which family
modules a run imports (`load_rules`: only those of the rules it needs), whether a code exists
(a selector, a suppression comment) without importing any family, and the check that a
declaration agrees with its line (`registry._register`). A code is never reused: a rule taken
out stays in the table as `removed`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from tritoncfg.record import record

TABLE_FILE = Path(__file__).resolve().parent.parent / "rules.tsv"
_PACKAGE = "tritoncfg.checks"
Lifecycle = Literal["stable", "preview", "deprecated", "removed"]
LIFECYCLES: tuple[Lifecycle, ...] = ("stable", "preview", "deprecated", "removed")


class TableError(ValueError):
    """rules.tsv, or a declaration, does not hold together (a developer's error)."""


@record(frozen=True)
class TableRow:
    code: str
    name: str  # "-" for a removed rule
    module: str  # the family module under tritoncfg.checks ("-" for a removed rule)
    attribute: str  # the module's name for the rule object
    lifecycle: Lifecycle
    since: str
    redirect: str | None  # a removed or deprecated rule's replacement


@cache
def table() -> dict[str, TableRow]:
    """Every row of rules.tsv, by code, in table order."""
    rows: dict[str, TableRow] = {}
    names: set[str] = set()
    for number, line in enumerate(TABLE_FILE.read_text(encoding="utf-8").splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6 or fields[3] not in LIFECYCLES:
            raise TableError(f"{TABLE_FILE.name}:{number}: expected 6 fields, a known lifecycle")
        code, name, check, lifecycle, since, redirect = fields
        module, _, attribute = check.partition(":")
        if code in rows or (name != "-" and name in names):
            raise TableError(f"{TABLE_FILE.name}:{number}: {code} or {name} appears twice")
        names.add(name)
        stage = LIFECYCLES[LIFECYCLES.index(lifecycle)]  # the Literal, checked above
        rows[code] = TableRow(
            code, name, module, attribute, stage, since, None if redirect == "-" else redirect
        )
    return rows


@cache
def rule_index() -> dict[str, tuple[str, str]]:
    """code -> (name, module) of every rule that exists (not removed), in table order."""
    return {
        row.code: (row.name, row.module) for row in table().values() if row.lifecycle != "removed"
    }


def families() -> list[str]:
    """The family modules, in the order of their first rule in the table."""
    return list(dict.fromkeys(module for _, module in rule_index().values()))


def row_for(code: str, module: str, attribute: str) -> TableRow:
    """The table's line for a rule being declared; a declaration the table does not name the
    same way is refused."""
    row = table().get(code)
    where = f"{module.removeprefix(_PACKAGE + '.')}:{attribute}"
    if row is None or row.lifecycle == "removed":
        raise TableError(f"{code} ({where}) is not a rule in {TABLE_FILE.name}: add its line")
    if f"{_PACKAGE}.{row.module}" != module or row.attribute != attribute:
        raise TableError(
            f"{code} is declared at {where}; {TABLE_FILE.name} says {row.module}:{row.attribute}"
        )
    return row
