"""`LintJob`: what every model of a lint is linted with (options, selected rules, path filters,
config overrides). Its own module: the cache keys a run by it before anything is linted, and a
run the cache replays imports neither the lint run (lintrun.py) nor the check context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tritoncfg.checks.core.index import load_rules, repository_codes, rule_of
from tritoncfg.checks.core.options import LintOptions
from tritoncfg.checks.core.registry import Rule
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.record import field, record, replace
from tritoncfg.repository.model import is_json_path


@record(frozen=True)
class LintJob:
    """What every model is linted with."""

    options: LintOptions
    codes: tuple[str, ...]  # the selected rules, in RULES order
    selection: RuleSelection
    filters: PathFilters
    overrides: Mapping[str, str] = field(default_factory=dict)

    chosen: frozenset[str] = field(init=False, repr=False, compare=False)
    # (code, severity found) -> (rule, severity reported), as `finish` works them out
    _severities: dict[tuple[str, Severity], tuple[Rule, Severity]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "chosen", frozenset(self.codes))

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The selected rules, their families imported on first use: a run the cache replays
        imports none."""
        rules = load_rules(self.codes)
        return tuple(rules[code] for code in self.codes)

    @property
    def repository_rules(self) -> tuple[Rule, ...]:
        """The selected rules of the families that declare repository-scope rules: checking a
        repository imports no other family (a one-file lint whose model the cache holds)."""
        codes = repository_codes(self.codes)
        rules = load_rules(codes)
        return tuple(rules[code] for code in codes)

    def finish(self, found: Sequence[Diagnostic]) -> list[Diagnostic]:
        """Only the selected rules' findings, outside ignored paths, with their severity."""
        chosen = self.chosen
        severities = self._severities
        ignoring = bool(self.filters.per_path_ignores)
        kept = []
        for d in found:
            if d.code not in chosen:
                continue
            known = severities.get((d.code, d.severity))
            if known is None:
                rule = rule_of(d.code)
                known = (rule, self.selection.severity(rule, d.severity))
                severities[d.code, d.severity] = known
            rule, severity = known
            if ignoring and self.filters.ignored(rule, d.path):
                continue
            if d.fix is not None and is_json_path(d.path):
                d = replace(d, fix=None)  # fixes are text-format edits; JSON configs get none
            kept.append(d if severity is d.severity else replace(d, severity=severity))
        return kept
