"""Scanning one model directory into a `ModelDir` (the detection directory of `AutoCompleteBackendFields`, the config file of
`GetModelConfigFullPath`, the versions of `VersionsToLoad`, warmup, initial_state)."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from tritoncfg.record import record
from tritoncfg.repository.fs import Listing, list_dir, probe_file, within
from tritoncfg.repository.model import (
    CONFIG_FILENAME,
    CONFIGS_DIRNAME,
    INITIAL_STATE_DIRNAME,
    WARMUP_DIRNAME,
    Entry,
    LayoutIssue,
    ModelDir,
    Version,
)
from tritoncfg.repository.versions import scan_versions


@record(frozen=True)
class ConfigChoice:
    """Which config a model should use: an explicit file, a `--model-config-name`, or neither."""

    explicit: Path | None = None
    config_name: str | None = None


@record
class _Lister:
    """Lists each directory once and collects the issues met on the way."""

    root_real: Path
    model: str
    issues: list[LayoutIssue] = field(default_factory=list)
    cache: dict[str, Listing] = field(default_factory=dict)  # by path (a Path hashes slowly)

    def __call__(self, path: Path) -> Listing:
        key = str(path)
        if key not in self.cache:
            listing = list_dir(path, self.root_real, model=self.model)
            self.cache[key] = listing
            self.issues.extend(listing.issues)
        return self.cache[key]

    def files(self, listing: Listing, name: str) -> tuple[Entry, ...]:
        """The regular files (with their sizes) of the subdirectory `name`, if it is one."""
        entry = listing.entry(name)
        if entry is None or not entry.is_dir:
            return ()
        return tuple(e for e in self(entry.path).entries if e.is_file)


def _inaccessible(path: Path, root: Path) -> ModelDir:
    return ModelDir(
        name=path.name, path=path, root=root, accessible=False,
        config_path=path / CONFIG_FILENAME, config_name=None, config_exists=False,
        alternative_configs=(), entries=(), subdirs_sorted=(), detection_dir=None,
        detection_entries=(), versions=(), ignored_version_dirs=(), warmup_entries=(),
        initial_state_entries=(), real_path=None,
    )  # fmt: skip


def _select_config(
    path: Path, listing: Listing, configs: Listing | None, choice: ConfigChoice, lister: _Lister
) -> tuple[Path, str | None, bool]:
    """`GetModelConfigFullPath`: `configs/<name>.pbtxt` if it exists, else `config.pbtxt`; an explicit file wins."""
    if choice.explicit is not None:
        explicit = choice.explicit
        in_configs = explicit.parent == path / CONFIGS_DIRNAME
        name = explicit.stem if in_configs else None
        held = configs if in_configs else (listing if explicit.parent == path else None)
        if held is not None:
            entry = held.entry(explicit.name)
            return explicit, name, entry is not None and entry.is_file
        exists, issue = probe_file(explicit, lister.root_real, model=lister.model)
        if issue is not None:
            lister.issues.append(issue)
        return explicit, name, exists
    if choice.config_name is not None:
        wanted = f"{choice.config_name}.pbtxt"
        entry = configs.entry(wanted) if configs is not None else None
        if entry is not None:  # Triton tests existence only; a directory then fails to read
            return path / CONFIGS_DIRNAME / wanted, choice.config_name, entry.is_file
        detail = f"'{CONFIGS_DIRNAME}/{wanted}' not found; Triton falls back to '{CONFIG_FILENAME}'"
        lister.issues.append(
            LayoutIssue(
                "config_name_not_found", path / CONFIGS_DIRNAME / wanted, detail, lister.model
            )
        )
    entry = listing.entry(CONFIG_FILENAME)
    return path / CONFIG_FILENAME, None, entry is not None and entry.is_file


def scan_model(
    path: Path, root: Path, root_real: Path, choice: ConfigChoice
) -> tuple[ModelDir, tuple[LayoutIssue, ...]]:
    """Everything discovery knows about one model directory, and the issues found."""
    lister = _Lister(root_real, path.name)
    try:
        # a plain (non-link) child of the root is where the root is: one lstat, not a realpath
        plain = path.parent == root and not path.is_symlink()
        real_path = root_real / path.name if plain else path.resolve()
        inside = within(real_path, root_real)
    except (OSError, RuntimeError):
        inside = False
    if not inside:  # the link itself is reported by the root listing
        return _inaccessible(path, root), ()
    listing = lister(path)
    if not listing.readable:
        return _inaccessible(path, root), tuple(lister.issues)

    # the listing's own paths of the subdirectories: building each again costs more than a stat
    dirs = {e.name: e.path for e in listing.entries if e.is_dir}
    subdirs = tuple(dirs)  # already byte-sorted
    detection_dir = dirs[subdirs[0]] if subdirs else None
    detection_entries = lister(detection_dir).entries if detection_dir is not None else ()

    scan = scan_versions(subdirs)
    versions = tuple(
        Version(number, names[0], dirs[names[0]], lister(dirs[names[0]]).entries, names[1:])
        for number, names in scan.numbers.items()
    )

    configs_dir = dirs.get(CONFIGS_DIRNAME)
    configs = lister(configs_dir) if configs_dir is not None else None
    alternatives = tuple(
        e.path
        for e in (configs.entries if configs else ())
        if e.is_file and e.name.endswith(".pbtxt")
    )
    config_path, config_name, config_exists = _select_config(path, listing, configs, choice, lister)
    if not config_exists:
        detail = (
            f"no config file '{config_path.name}': Triton auto-completes an empty config, "
            "or fails in strict mode (--disable-auto-complete-config)"
        )
        lister.issues.append(LayoutIssue("missing_config", config_path, detail, path.name))

    model = ModelDir(
        name=path.name,
        path=path,
        root=root,
        accessible=True,
        config_path=config_path,
        config_name=config_name,
        config_exists=config_exists,
        alternative_configs=alternatives,
        entries=listing.entries,
        subdirs_sorted=subdirs,
        detection_dir=detection_dir,
        detection_entries=detection_entries,
        versions=versions,
        ignored_version_dirs=scan.ignored,
        warmup_entries=lister.files(listing, WARMUP_DIRNAME),
        initial_state_entries=lister.files(listing, INITIAL_STATE_DIRNAME),
        real_path=real_path,
    )
    return model, tuple(lister.issues)
