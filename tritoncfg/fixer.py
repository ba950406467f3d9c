"""`lint --fix`: apply the fixes rules attach to their findings, re-linting after each pass.

Fixes are text edits at tree spans, so everything else in the file (comments, layout) stays. A
pass applies every non-overlapping fix of a file, then the whole workspace is linted again on the
edited text (in memory); a file whose edit would add parse errors is left as it was.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from itertools import pairwise
from pathlib import Path
from typing import Any

from tritoncfg.api import LintResult, lint, project
from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.lintoptions import LintOverrides
from tritoncfg.record import field, record, replace
from tritoncfg.text import parse
from tritoncfg.text.edits import Edit, apply_edits, edit_range, line_starts

MAX_PASSES = 5


@record
class FixOutcome:
    result: LintResult  # the lint of the fixed text: what is left
    before: dict[str, str] = field(default_factory=dict)  # path -> original text, for changed files
    after: dict[str, str] = field(default_factory=dict)  # path -> fixed text
    applied: list[Diagnostic] = field(default_factory=list)
    passes: int = 0  # of fixes, each followed by a lint

    @property
    def changed(self) -> list[str]:
        return [p for p in self.after if self.after[p] != self.before[p]]


def _fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    return diagnostic.fix is not None and (diagnostic.fix.safe or unsafe)


def fix_project(
    paths: Path | str | Iterable[Path | str],
    overrides: LintOverrides | None = None,
    *,
    unsafe: bool = False,
    config: Path | None = None,
    isolated: bool = False,
    settings_overrides: Mapping[str, Any] | None = None,
) -> FixOutcome:
    """`fix` with the project's settings and the overrides over them, as `tritoncfg lint --fix`
    reads them (tritoncfg.api.project). Writes nothing. Raises SettingsError or OptionError."""
    chosen = project(
        paths, overrides, config=config, isolated=isolated, settings_overrides=settings_overrides
    )
    setup = chosen.setup
    outcome = fix(chosen.paths, setup.options, setup.selection, setup.filters, unsafe=unsafe)
    outcome.result = replace(outcome.result, warnings_as_errors=setup.warnings_as_errors)
    return outcome


def fix(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions | None = None,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
    *,
    unsafe: bool = False,
) -> FixOutcome:
    """Lint, fix, and lint again until nothing fixable is left. Writes nothing.

    A pass that leaves fewer parse errors is always followed by another (a file reports at most
    MAX_TEXT_ERRORS, so 20,000 repeated fields take 20 passes); the others are MAX_PASSES at
    most in all, which stops fixes that undo each other."""
    texts: dict[str, str] = {}
    outcome = FixOutcome(lint(paths, options, selection, filters))
    stalled = 0
    while stalled < MAX_PASSES:
        pending = [d for d in outcome.result.diagnostics if _fixable(d, unsafe)]
        progress = _fix_pass(outcome, texts, pending)
        if progress is None:
            break
        outcome.passes += 1
        stalled += not progress  # parse errors only decrease: the other passes are bounded
        outcome.result = lint(paths, options, selection, filters, overrides=texts)
    outcome.after = {p: texts[p] for p in outcome.before}
    return outcome


def _fix_pass(outcome: FixOutcome, texts: dict[str, str], pending: list[Diagnostic]) -> bool | None:
    """Apply the pending fixes file by file into `texts`: None when no file changed, else
    whether some file has fewer parse errors. A file whose edit adds parse errors is skipped."""
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in pending:
        by_path.setdefault(diagnostic.path, []).append(diagnostic)
    changed = fewer = False
    for path, diagnostics in by_path.items():
        source = texts.get(path, outcome.result.sources.get(path))
        if source is None:
            continue
        edited, used = _apply(source, diagnostics)
        if edited == source:
            continue
        before, after = parse(source).error_count, parse(edited).error_count
        if after > before:
            continue
        outcome.before.setdefault(path, source)
        texts[path] = edited
        outcome.applied.extend(used)
        changed, fewer = True, fewer or after < before
    return fewer if changed else None


def _apply(source: str, diagnostics: list[Diagnostic]) -> tuple[str, list[Diagnostic]]:
    """Apply every fix that overlaps none taken before it; the others wait for the next pass.
    The text ranges are worked out once: re-applying the edits taken so far for each candidate
    made a pass quadratic (20,000 repeated fields: minutes)."""
    starts = line_starts(source)
    taken = _Ranges()
    edits: list[Edit] = []
    used: list[Diagnostic] = []
    for diagnostic in diagnostics:
        assert diagnostic.fix is not None
        ranges = [edit_range(starts, edit) for edit in diagnostic.fix.edits]
        if not taken.add_all(ranges):
            continue
        edits.extend(diagnostic.fix.edits)
        used.append(diagnostic)
    return apply_edits(source, edits), used


class _Ranges:
    """Disjoint text ranges (start, end), sorted; touching ranges do not overlap."""

    def __init__(self) -> None:
        self.ranges: list[tuple[int, int]] = []

    def _free(self, start: int, end: int) -> bool:
        index = bisect.bisect_left(self.ranges, (start, end))
        before = self.ranges[index - 1] if index else None
        after = self.ranges[index] if index < len(self.ranges) else None
        return (before is None or before[1] <= start) and (after is None or end <= after[0])

    def add_all(self, ranges: list[tuple[int, int]]) -> bool:
        """Add the ranges if none overlaps a range held or another of them."""
        mine = sorted(ranges)
        if any(a[1] > b[0] for a, b in pairwise(mine)):
            return False
        if not all(self._free(start, end) for start, end in mine):
            return False
        for item in mine:
            bisect.insort(self.ranges, item)
        return True
