"""`--statistics`: the count of findings per rule instead of the findings (as `ruff --statistics`).

A table for people (most frequent first, then by code) and, with `--format json`, a JSON list of
`{code, name, count, fixable, fixable_count}` with ruff's keys: `fixable` is true when every
finding of the rule carries a fix that `--fix` applies (an unsafe one only with `--unsafe-fixes`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.record import record

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report


@record
class RuleCount:
    code: str
    name: str
    severity: str  # the first finding's: an override applies to the whole rule
    count: int = 0
    fixable_count: int = 0

    @property
    def fixable(self) -> bool:
        return self.fixable_count == self.count

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "count": self.count,
            "fixable": self.fixable,
            "fixable_count": self.fixable_count,
        }


def rule_counts(diagnostics: Iterable[Diagnostic], *, unsafe: bool = False) -> list[RuleCount]:
    """Findings per rule code, most frequent first, then by code."""
    counts: dict[str, RuleCount] = {}
    for d in diagnostics:
        entry = counts.get(d.code)
        if entry is None:
            entry = counts[d.code] = RuleCount(d.code, d.rule, d.severity.value)
        entry.count += 1
        entry.fixable_count += d.fix is not None and (d.fix.safe or unsafe)
    return sorted(counts.values(), key=lambda entry: (-entry.count, entry.code))


def _marker(entry: RuleCount) -> str:
    if entry.fixable:
        return "[*] "
    return "[-] " if entry.fixable_count else "[ ] "


def render_statistics(out: TextIO, counts: list[RuleCount]) -> None:
    """`count  code  severity  [*] name`: the fix marker (all `[*]`, some `[-]`, none `[ ]`)
    only when some rule has fixes, as ruff shows it."""
    width = max((len(str(entry.count)) for entry in counts), default=1)
    fixes = any(entry.fixable_count for entry in counts)
    for entry in counts:
        marker = _marker(entry) if fixes else ""
        out.write(
            f"{entry.count:>{width}}  {entry.code}  {entry.severity:<7}  {marker}{entry.name}\n"
        )


def render_statistics_json(counts: list[RuleCount]) -> str:
    return json.dumps([entry.to_json() for entry in counts], indent=2)


def render_table(out: TextIO, report: Report) -> None:
    """`--statistics` with text or concise: the table, then the text format's verdict (not
    with -q)."""
    from tritoncfg.report.text import summary_line

    render_statistics(out, rule_counts(report.diagnostics, unsafe=report.unsafe_fixes))
    if report.summary:
        out.write(
            summary_line(
                report.diagnostics, files=report.files, models=report.models, color=report.color
            )
        )


def render_json(out: TextIO, report: Report) -> None:
    """`--statistics --format json`."""
    counts = rule_counts(report.diagnostics, unsafe=report.unsafe_fixes)
    out.write(render_statistics_json(counts) + "\n")
