"""One merge of the project's settings with what a caller states: the CLI and the API share it.

`[tool.tritoncfg]` (or tritoncfg.toml, see settings.py) gives a project's defaults; a value the
caller states (a command-line option, a field of `LintOverrides` from Python) wins over it. Values
are written as on the command line or in the settings file (`gpus="0,1"` or `[0, 1]` or
`"none"`, `gpu_memory="80GiB"`), and checked here: a bad one raises `OptionError`, whose message
names the option as the command line spells it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tritoncfg.record import record
from tritoncfg.settings import Settings

if TYPE_CHECKING:
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.selection import PathFilters, RuleSelection
    from tritoncfg.file_selection import FileSelection


class OptionError(ValueError):
    """An option value that cannot be used: a malformed value or a rule selector no rule has."""


@record(frozen=True)
class LintOverrides:
    """What the caller states. None (for a list: empty) takes the settings' value, then the
    default. `select` replaces the settings' selection; `extend_select`, `ignore` and
    `severity_overrides` add to the settings', and a rule named in `select` or `extend_select`
    is not ignored by the settings' `ignore`."""

    triton_mode: str | None = None  # "default" or "strict"
    gpus: str | Sequence[int] | None = None  # "0,1", [0, 1], or "none"
    gpu_memory: str | int | None = None  # bytes, or "24GiB", "80GB"
    model_config_name: str | None = None
    backend_dir: Path | None = None  # the settings' is relative to the settings file
    rate_limit: str | None = None  # "off" or "execution_count"
    rate_limit_resources: Sequence[str] = ()  # "NAME:COUNT[:DEVICE]"
    triton_version: str | None = None  # "2.51", "24.10"
    model_files: str | None = None  # "required" or "optional"
    select: Sequence[str] = ()  # rule codes, prefixes (TC2) or names
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    severity_overrides: Mapping[str, str] = field(default_factory=dict)  # selector -> severity
    warnings_as_errors: bool | None = None
    cache: bool | None = None  # reuse unchanged models' findings from .tritoncfg_cache/
    cache_dir: Path | None = None  # where that cache lives; None: the settings' `cache-dir`
    respect_gitignore: bool | None = None  # leave out what .gitignore files ignore (default on)
    force_exclude: bool | None = None  # leave out named paths too when excluded or ignored


@record(frozen=True)
class LintSetup:
    """Everything a lint run takes besides its paths."""

    options: LintOptions
    selection: RuleSelection
    filters: PathFilters
    warnings_as_errors: bool = False
    cache_dir: Path | None = None  # .tritoncfg_cache/ beside the settings file; None: no cache


def lint_setup(settings: Settings, overrides: LintOverrides | None = None) -> LintSetup:
    """The settings, with the overrides winning. Raises OptionError."""
    given = overrides or LintOverrides()
    options = _options(settings, given)
    selection = _selection(settings, given)
    from tritoncfg.checks.core.selection import PathFilters, SelectorError, check_selectors

    files = file_selection(settings, given)
    filters = PathFilters(
        base=files.base,
        exclude=files.exclude,
        per_path_ignores={k: tuple(v) for k, v in settings.get("per-path-ignores", {}).items()},
        respect_gitignore=files.respect_gitignore,
        force_exclude=files.force_exclude,
    )
    try:
        check_selectors(selection.selectors())
        for selectors in filters.per_path_ignores.values():
            check_selectors(selectors)
    except SelectorError as exc:
        raise OptionError(str(exc)) from None
    cache = given.cache if given.cache is not None else settings.get("cache", True)
    folder = given.cache_dir or settings.base / settings.get("cache-dir", ".tritoncfg_cache")
    return LintSetup(
        options,
        selection,
        filters,
        warnings_as_errors=_first(given.warnings_as_errors, settings.get("warnings-as-errors")),
        cache_dir=folder if cache else None,
    )


def file_selection(settings: Settings, overrides: LintOverrides | None = None) -> FileSelection:
    """Which files a command takes (`exclude`, `respect-gitignore`, `force-exclude`), the
    overrides winning: what lint's path filters and fmt's walk both use."""
    from tritoncfg.file_selection import FileSelection

    given = overrides or LintOverrides()
    return FileSelection(
        settings.base,
        tuple(settings.get("exclude", [])),
        respect_gitignore=_first(given.respect_gitignore, settings.get("respect-gitignore", True)),
        force_exclude=_first(given.force_exclude, settings.get("force-exclude")),
    )


def _first(given: bool | None, configured: bool | None) -> bool:
    return bool(given if given is not None else configured)


def _options(settings: Settings, given: LintOverrides) -> LintOptions:
    from tritoncfg.checks import LintOptions

    mode: Literal["default", "strict"] = (
        "strict" if (given.triton_mode or settings.get("triton-mode")) == "strict" else "default"
    )
    configured_backend_dir = settings.get("backend-dir")
    return LintOptions(
        triton_mode=mode,
        gpus=parse_gpus(given.gpus if given.gpus is not None else settings.get("gpus")),
        gpu_memory=_gpu_memory(
            given.gpu_memory if given.gpu_memory is not None else settings.get("gpu-memory")
        ),
        config_name=given.model_config_name or settings.get("model-config-name"),
        rate_limit=parse_rate_limit(given.rate_limit or settings.get("rate-limit")),
        rate_limit_resources=parse_rate_limit_resources(
            given.rate_limit_resources or settings.get("rate-limit-resource")
        ),
        backend_dir=given.backend_dir
        or (settings.base / configured_backend_dir if configured_backend_dir else None),
        triton_version=_triton_version(given.triton_version or settings.get("triton-version")),
        model_files="optional"
        if (given.model_files or settings.get("model-files")) == "optional"
        else "required",
        backends=tuple(settings.get("backends", [])),
        repo_agents=tuple(settings.get("repo-agents", [])),
        runtimes=tuple(settings.get("runtimes", [])),
    )


def _selection(settings: Settings, given: LintOverrides) -> RuleSelection:
    from tritoncfg.checks.core.selection import RuleSelection

    named = {*given.select, *given.extend_select}
    return RuleSelection(
        select=tuple(given.select) or tuple(settings.get("select", ["ALL"])),
        extend_select=(*settings.get("extend-select", []), *given.extend_select),
        # a rule the caller names is not ignored by the settings file
        ignore=(*(s for s in settings.get("ignore", []) if s not in named), *given.ignore),
        severity_overrides=_severities(
            {**settings.get("severity-overrides", {}), **given.severity_overrides}
        ),
    )


def _severities(merged: Mapping[str, str]) -> dict[str, Any]:
    from tritoncfg.diagnostics import Severity

    try:
        return {selector: Severity(value) for selector, value in merged.items()}
    except ValueError as exc:
        raise OptionError(f"severity override: {exc}; use error, warning or info") from None


def parse_gpus(value: str | Sequence[int] | None) -> tuple[int, ...] | None:
    """`"0,1"`, `[0, 1]` or `"none"` (no GPU); None: unknown."""
    if value is None:
        return None
    if not isinstance(value, str):
        return tuple(sorted(set(value)))
    if value.strip().lower() == "none":
        return ()
    try:
        return tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        raise OptionError(
            f"--gpus expects a comma-separated list of GPU ids or 'none', got {value!r}"
        ) from None


def parse_rate_limit(value: str | None) -> bool | None:
    if value is None:
        return None
    if value not in ("off", "execution_count"):
        raise OptionError(f"--rate-limit expects off or execution_count, got {value!r}")
    return value == "execution_count"


def _gpu_memory(value: str | int | None) -> int | None:
    if value is None:
        return None
    from tritoncfg.units import parse_size

    try:
        return parse_size(value)
    except ValueError as exc:
        raise OptionError(f"--gpu-memory: {exc}") from None


def _triton_version(value: str | None) -> str | None:
    if value is None:
        return None
    from tritoncfg.schema.releases import UnknownRelease, find_release

    try:
        find_release(str(value))
    except UnknownRelease as exc:
        raise OptionError(f"--triton-version: {exc}") from None
    return str(value)


def parse_rate_limit_resources(
    values: Sequence[str] | None,
) -> tuple[tuple[str, int, int | None], ...]:
    if not values:
        return ()  # not importing the rule family for nothing
    from tritoncfg.checks.warmup_and_runtime.rate_limit_resources import parse_rate_limit_resource

    try:
        return tuple(parse_rate_limit_resource(value) for value in values)
    except ValueError as exc:
        raise OptionError(f"--rate-limit-resource: {exc}") from None
