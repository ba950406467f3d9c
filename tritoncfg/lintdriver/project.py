"""What `lint_project` (and every command that lints as `tritoncfg lint` does) lints: the paths
as lint reads them and the settings that apply to them, merged with the caller's overrides."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tritoncfg.cloud.url import is_cloud
from tritoncfg.lintoptions import LintOverrides, LintSetup, OptionError, lint_setup
from tritoncfg.record import record, replace
from tritoncfg.settings import load_settings, project_repository


@record(frozen=True)
class Project:
    """What `lint_project` lints: the paths as lint reads them (a project folder whose settings
    name its model repository stands for that repository) and the setup that applies to them."""

    paths: tuple[Path | str, ...]
    setup: LintSetup


def project(
    paths: Path | str | Iterable[Path | str],
    overrides: LintOverrides | None = None,
    *,
    config: Path | None = None,
    isolated: bool = False,
    settings_overrides: Mapping[str, Any] | None = None,
) -> Project:
    """The settings found from the first local path (walking up to the nearest tritoncfg.toml or
    pyproject.toml with `[tool.tritoncfg]`), or `config`'s, or none with `isolated` (a project's
    `repository` included); `settings_overrides` (settings keys, as `--config "KEY = VALUE"`)
    win over the file, the overrides over both. Raises SettingsError, or OptionError (a bad
    value, a path that does not exist)."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    for item in items:
        if not is_cloud(item):
            _check_local(Path(item))
    chosen = [
        item if is_cloud(item) or isolated else project_repository(Path(item)) for item in items
    ]
    local = [Path(item) for item in chosen if not is_cloud(item)]
    for path in local:
        _check_local(path)
    settings = load_settings(
        local[0] if local else Path.cwd(),
        config=config,
        isolated=isolated,
        overrides=settings_overrides,
    )
    setup = lint_setup(settings, overrides)
    if len(local) < len(chosen):  # the cache keys local files only
        setup = replace(setup, cache_dir=None)
    return Project(tuple(chosen), setup)


def _check_local(path: Path) -> None:
    """A path to lint: present, and a directory or a regular file (not a loop, a device...)."""
    from tritoncfg.confined import PathRefused, check_input

    try:
        check_input(path)
    except PathRefused as error:
        raise OptionError(str(error)) from None
    if not os.path.lexists(path):
        raise OptionError(f"{path}: no such file or directory")
