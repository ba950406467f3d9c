"""One merge of the project's settings with what a caller states: the CLI and the API share it.

`[tool.tritoncfg]` (or tritoncfg.toml, see settings.py) gives a project's defaults; a value the
caller states (a command-line option, a field of `LintOverrides` from Python) wins over it, and
the option's default over neither. Values are written as on the command line or in the settings
file (`gpus="0,1"` or `[0, 1]` or `"none"`, `gpu_memory="80GiB"`), and read by the parser that
options/table.py declares with the option: a bad one raises `OptionError`, whose message names
the option as the command line spells it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.options.table import BY_KEY, LINT_OPTIONS
from tritoncfg.options.values import OptionError as OptionError
from tritoncfg.options.values import parse_severities
from tritoncfg.record import field, record
from tritoncfg.settings import Settings

if TYPE_CHECKING:
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.selection import PathFilters, RuleSelection
    from tritoncfg.file_selection import FileSelection


@record(frozen=True)
class LintOverrides:
    """What the caller states. None (for a list: empty) takes the settings' value, then the
    default. `select` replaces the settings' selection; `extend_select`, `ignore` and
    `severity_overrides` add to the settings', and a rule named in `select` or `extend_select`
    is not ignored by the settings' `ignore`. One field per option of options/table.py that
    the command line has (a test holds them equal)."""

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
    cache = option_value("cache", settings, given)
    return LintSetup(
        options,
        selection,
        filters,
        warnings_as_errors=option_value("warnings-as-errors", settings, given),
        cache_dir=option_value("cache-dir", settings, given) if cache else None,
    )


def file_selection(settings: Settings, overrides: LintOverrides | None = None) -> FileSelection:
    """Which files a command takes (`exclude`, `respect-gitignore`, `force-exclude`), the
    overrides winning: what lint's path filters and fmt's walk both use."""
    from tritoncfg.file_selection import FileSelection

    given = overrides or LintOverrides()
    return FileSelection(
        settings.base,
        option_value("exclude", settings, given),
        respect_gitignore=option_value("respect-gitignore", settings, given),
        force_exclude=option_value("force-exclude", settings, given),
    )


def option_value(key: str, settings: Settings, given: LintOverrides) -> Any:
    """The option's value as lint uses it: the caller's, else the settings', else its default
    (a path in the settings relative to their file), read by its parser."""
    option = BY_KEY[key]
    stated = getattr(given, option.field) if option.field else None
    if stated is None or (option.repeatable and not stated):
        stated = settings.get(key, option.default)
        if option.relative and stated is not None:
            stated = settings.base / stated
    return option.read(stated) if option.read else stated


def _options(settings: Settings, given: LintOverrides) -> LintOptions:
    from tritoncfg.checks import LintOptions

    return LintOptions(
        **{o.target: option_value(o.key, settings, given) for o in LINT_OPTIONS if o.target}
    )


def _selection(settings: Settings, given: LintOverrides) -> RuleSelection:
    from tritoncfg.checks.core.selection import RuleSelection

    named = {*given.select, *given.extend_select}
    return RuleSelection(
        select=tuple(option_value("select", settings, given)),
        extend_select=(*settings.get("extend-select", []), *given.extend_select),
        # a rule the caller names is not ignored by the settings file
        ignore=(*(s for s in settings.get("ignore", []) if s not in named), *given.ignore),
        severity_overrides=parse_severities(
            {**settings.get("severity-overrides", {}), **given.severity_overrides}
        ),
    )
