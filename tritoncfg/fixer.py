"""`lint --fix`: apply the fixes rules attach to their findings, re-linting after each pass.

Fixes are text edits at tree spans, so everything else in the file (comments, layout) stays. A
pass applies every non-overlapping fix of a file, then the whole workspace is linted again on the
edited text (in memory); a file whose edit would add parse errors is left as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from pathlib import Path

from tritoncfg.api import LintResult, lint, project
from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.lintoptions import LintOverrides
from tritoncfg.record import record
from tritoncfg.text import parse
from tritoncfg.text.edits import Edit, EditConflict, apply_edits

MAX_PASSES = 5


@record
class FixOutcome:
    result: LintResult  # the lint of the fixed text: what is left
    before: dict[str, str] = field(default_factory=dict)  # path -> original text, for changed files
    after: dict[str, str] = field(default_factory=dict)  # path -> fixed text
    applied: list[Diagnostic] = field(default_factory=list)

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
) -> FixOutcome:
    """`fix` with the project's settings and the overrides over them, as `tritoncfg lint --fix`
    reads them (tritoncfg.api.project). Writes nothing. Raises SettingsError or OptionError."""
    chosen = project(paths, overrides, config=config, isolated=isolated)
    setup = chosen.setup
    outcome = fix(chosen.paths, setup.options, setup.selection, setup.filters, unsafe=unsafe)
    outcome.result.warnings_as_errors = setup.warnings_as_errors
    return outcome


def fix(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions | None = None,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
    *,
    unsafe: bool = False,
) -> FixOutcome:
    """Lint, fix, and lint again until nothing fixable is left. Writes nothing."""
    texts: dict[str, str] = {}
    outcome = FixOutcome(lint(paths, options, selection, filters))
    for _ in range(MAX_PASSES):
        pending = [d for d in outcome.result.diagnostics if _fixable(d, unsafe)]
        if not pending:
            break
        progressed = False
        for path in dict.fromkeys(d.path for d in pending):
            source = texts.get(path, outcome.result.sources.get(path))
            if source is None:
                continue
            edited, used = _apply(source, [d for d in pending if d.path == path])
            if edited == source or parse(edited).error_count > parse(source).error_count:
                continue
            outcome.before.setdefault(path, source)
            texts[path] = edited
            outcome.applied.extend(used)
            progressed = True
        if not progressed:
            break
        outcome.result = lint(paths, options, selection, filters, overrides=texts)
    outcome.after = {p: texts[p] for p in outcome.before}
    return outcome


def _apply(source: str, diagnostics: list[Diagnostic]) -> tuple[str, list[Diagnostic]]:
    """Apply as many fixes as do not overlap; the others wait for the next pass."""
    edits: list[Edit] = []
    used: list[Diagnostic] = []
    for diagnostic in diagnostics:
        assert diagnostic.fix is not None
        candidate = [*edits, *diagnostic.fix.edits]
        try:
            apply_edits(source, candidate)
        except EditConflict:
            continue
        edits = candidate
        used.append(diagnostic)
    return apply_edits(source, edits), used
