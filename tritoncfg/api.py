"""The small public API: what the CLI uses, and what scripts can use the same way."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tritoncfg.checks import LintOptions, run_checks
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text import ParsedConfig, parse
from tritoncfg.text.printer import format_source
from tritoncfg.workspace import Workspace
from tritoncfg.workspace import load as load_workspace


@dataclass(slots=True)
class LintResult:
    diagnostics: list[Diagnostic]
    files: int
    models: int
    counts: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # config path -> text, for snippets

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)


def load(paths: Path | str | Iterable[Path | str], *, config_name: str | None = None) -> Workspace:
    """Discover and parse a repository, a model directory, a config file, or several of them."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    return load_workspace(items, config_name=config_name)


def lint(
    paths: Path | str | Iterable[Path | str], options: LintOptions | None = None
) -> LintResult:
    """Every finding for the given paths, sorted by file and position."""
    options = options or LintOptions()
    workspace = load(paths, config_name=options.config_name)
    diagnostics = run_checks(workspace, options)
    counts = {s.value: sum(d.severity is s for d in diagnostics) for s in Severity}
    files = sum(1 for m in workspace.models if m.config is not None)
    sources = {m.config_path: m.config.source for m in workspace.models if m.config is not None}
    return LintResult(diagnostics, files, len(workspace.models), counts, sources)


def format(text: str) -> str:
    """Canonical formatting of config text (comments kept). Raises SyntaxProblem."""
    return format_source(text)


__all__ = ["LintOptions", "LintResult", "ParsedConfig", "format", "lint", "load", "parse"]
