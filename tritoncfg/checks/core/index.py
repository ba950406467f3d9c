"""Loading rules lazily from the rule table (table.py, tritoncfg/checks/rules.tsv): a run imports
only the family modules that declare the rules it needs, and RULES keeps the table's order
whatever was imported first."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import import_module

from tritoncfg.checks.core.registry import RULES, Rule
from tritoncfg.checks.core.table import TABLE_FILE, families, rule_index, table

_PACKAGE = "tritoncfg.checks"


def load_rules(codes: Iterable[str] | None = None) -> dict[str, Rule]:
    """RULES once the families that declare `codes` (every rule when None) are imported, in
    table order whatever was imported first. A code the table does not hold is left out."""
    index = rule_index()
    wanted = list(index) if codes is None else [c for c in codes if c in index]
    for family in dict.fromkeys(index[c][1] for c in wanted if c not in RULES):
        import_module(f"{_PACKAGE}.{family}")
    if len(RULES) != _ordered[0]:  # registered since: put RULES back in the table's order
        position = _position()
        ordered = sorted(RULES.items(), key=lambda item: position.get(item[0], len(position)))
        RULES.clear()
        RULES.update(ordered)
        _ordered[0] = len(RULES)
    return RULES


_ordered = [0]  # len(RULES) when it was last put in order


@cache
def _position() -> dict[str, int]:
    return {code: i for i, code in enumerate(rule_index())}


def rule_of(code: str) -> Rule:
    """The rule of a code the table holds (its family imported if need be)."""
    found = RULES.get(code)
    return found if found is not None else load_rules((code,))[code]


__all__ = ["TABLE_FILE", "families", "load_rules", "rule_index", "rule_of", "table"]
