"""The small public API: what the CLI uses, and what scripts can use the same way."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from tritoncfg.checks import RULES, LintOptions, run_checks
from tritoncfg.checks.selection import PathFilters, RuleSelection
from tritoncfg.checks.suppress import UNUSED, apply_suppressions
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text import ParsedConfig, parse
from tritoncfg.workspace import Workspace, add_dependents
from tritoncfg.workspace import load as load_workspace


@dataclass(slots=True)
class LintResult:
    diagnostics: list[Diagnostic]
    files: int
    models: int
    sources: dict[str, str] = field(default_factory=dict)  # config path -> text, for snippets
    file_paths: list[str] = field(default_factory=list)  # the config files that were linted

    def count(self, severity: Severity) -> int:
        return sum(d.severity is severity for d in self.diagnostics)

    @property
    def has_errors(self) -> bool:
        return self.count(Severity.ERROR) > 0


def load(
    paths: Path | str | Iterable[Path | str],
    *,
    config_name: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> Workspace:
    """Discover and parse a repository, a model directory, a config file, or several of them.

    `overrides` maps config paths to text that stands in for the file (used by --fix)."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    return load_workspace(items, config_name=config_name, overrides=overrides)


def lint(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions | None = None,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
) -> LintResult:
    """Every finding for the given paths, sorted by file and position."""
    with _collector_paused():
        return _lint(
            paths,
            options or LintOptions(),
            selection or RuleSelection(),
            filters or PathFilters(),
            overrides,
        )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Lint builds many small objects that all live until the end (trees, messages, findings) and
    form no reference cycles; CPython's cyclic GC would rescan them again and again (about 40% of
    a 2,000-model lint). Paused for the run, it collects once afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _lint(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions,
    selection: RuleSelection,
    filters: PathFilters,
    overrides: Mapping[str, str] | None,
) -> LintResult:
    workspace = load(paths, config_name=options.config_name, overrides=overrides)
    if filters.exclude:
        workspace.models = [m for m in workspace.models if not filters.excluded(m.dir.path)]
    if workspace.models:  # given some files of a repository: the ensembles that run them too
        add_dependents(workspace, lambda d: not filters.excluded(d.path))
    rules = selection.active()
    found = run_checks(workspace, options, rules)
    found = apply_suppressions(found, workspace, report_unused=any(r.code == UNUSED for r in rules))
    chosen = {r.code for r in rules}
    diagnostics = []
    for d in found:
        rule = RULES[d.code]
        if d.code not in chosen or filters.ignored(rule, d.path):
            continue
        severity = selection.severity(rule, d.severity)
        diagnostics.append(d if severity is d.severity else replace(d, severity=severity))
    diagnostics.sort(key=lambda d: (d.sort_key[0], d.code == "TC009", d.sort_key))
    configs = [m for m in workspace.models if m.config is not None]
    return LintResult(
        diagnostics,
        files=len(configs),
        models=len(workspace.models),
        sources={
            m.config_path: m.config.source
            for m in (*configs, *workspace.loaded_alternatives)  # TC915 points into alternatives
            if m.config is not None
        },
        file_paths=[m.config_path for m in configs],
    )


def format(text: str) -> str:
    """Canonical formatting of config text (comments kept). Raises SyntaxProblem."""
    from tritoncfg.text.printer import format_source

    return format_source(text)


__all__ = ["LintOptions", "LintResult", "ParsedConfig", "format", "lint", "load", "parse"]
