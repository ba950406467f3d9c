"""The small public API: what the CLI uses, and what scripts can use the same way.

`lint(paths, options, selection, filters)` lints with exactly what it is given;
`lint_project(paths, overrides)` first reads the project's settings (`[tool.tritoncfg]`,
tritoncfg.toml) as `tritoncfg lint` does, and merges the overrides over them (lintoptions.py).
docs/api.md shows both."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.lintdriver import lint_discovered, lint_paths
from tritoncfg.lintdriver.project import Project, project
from tritoncfg.lintdriver.result import LintResult
from tritoncfg.lintoptions import LintOverrides, LintSetup, OptionError, lint_setup
from tritoncfg.settings import SettingsError

if TYPE_CHECKING:  # the parser and the schema load on first use: a cached lint needs neither
    from tritoncfg.text import ParsedConfig, parse
    from tritoncfg.workspace import Workspace


def lint_project(
    paths: Path | str | Iterable[Path | str],
    overrides: LintOverrides | None = None,
    *,
    config: Path | None = None,
    isolated: bool = False,
    jobs: int | None = None,
    settings_overrides: Mapping[str, Any] | None = None,
) -> LintResult:
    """What `tritoncfg lint PATHS` finds: the project's settings (see `project`) with the
    overrides over them, the cache included (`.tritoncfg_cache/` beside the settings file, unless
    the settings or `LintOverrides(cache=False)` turn it off). `result.failed` is the exit status.
    Raises SettingsError, OptionError, and for a cloud URL CloudUrlError or CloudError."""
    chosen = project(
        paths, overrides, config=config, isolated=isolated, settings_overrides=settings_overrides
    )
    setup = chosen.setup
    return lint_paths(
        list(chosen.paths),
        setup.options,
        setup.selection,
        setup.filters,
        jobs=jobs,
        cache_dir=setup.cache_dir,
        warnings_as_errors=setup.warnings_as_errors,
    )


def load(
    paths: Path | str | Iterable[Path | str],
    *,
    config_name: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> Workspace:
    """Discover and parse a repository, a model directory, a config file, or several of them.

    `overrides` maps config paths to text that stands in for the file (used by --fix)."""
    from tritoncfg.workspace import load as load_workspace

    items = [paths] if isinstance(paths, str | Path) else list(paths)
    return load_workspace(items, config_name=config_name, overrides=overrides)


def lint(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions | None = None,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> LintResult:
    """Every finding for the given paths, sorted by file and position.

    `jobs`: processes to lint with (None: one per core above a few hundred models; the output is
    the same). `cache_dir`: reuse the outcome of unchanged models from there (`.tritoncfg_cache`).

    A cloud URL (`s3://`, `gs://`, `as://`) is read through fsspec (the `tritoncfg[cloud]` extra);
    its findings are named by object URL. Raises CloudUrlError or CloudError when it cannot be."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    return lint_paths(
        items, options, selection, filters, overrides=overrides, jobs=jobs, cache_dir=cache_dir
    )


def format_text(text: str) -> str:
    """Canonical formatting of config text (comments kept), as `tritoncfg fmt` writes it. Raises
    SyntaxProblem. (Not `format`: that would shadow the builtin.)"""
    from tritoncfg.text.printer import format_source

    return format_source(text)


def __getattr__(name: str) -> object:
    if name in ("ParsedConfig", "parse"):
        import tritoncfg.text.config

        return getattr(tritoncfg.text.config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LintOptions",
    "LintOverrides",
    "LintResult",
    "LintSetup",
    "OptionError",
    "ParsedConfig",
    "Project",
    "SettingsError",
    "format_text",
    "lint",
    "lint_discovered",
    "lint_project",
    "lint_setup",
    "load",
    "parse",
    "project",
]
