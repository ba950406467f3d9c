"""Scanning one model directory into a `ModelDir` (the detection directory of `AutoCompleteBackendFields`, the config file of
`GetModelConfigFullPath`, the versions of `VersionsToLoad`, warmup, initial_state)."""

from __future__ import annotations

import os
from pathlib import Path

from tritoncfg.record import field, record
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
    """Lists each directory once and collects the issues met on the way; the subdirectories of
    the model directory get their paths here, once each."""

    root_real: Path
    path: Path  # the model directory
    model: str  # its name
    issues: list[LayoutIssue] = field(default_factory=list)
    cache: dict[str, Listing] = field(default_factory=dict)  # by name ("": the model directory)
    paths: dict[str, Path] = field(default_factory=dict)  # the subdirectories' paths, by name

    def sub(self, name: str) -> Path:
        """The path of the model directory's child `name`."""
        path = self.paths.get(name)
        if path is None:
            path = self.paths[name] = self.path / name
        return path

    def __call__(self, name: str) -> Listing:
        """The listing of the model directory's child `name` ("": of the model directory)."""
        listing = self.cache.get(name)
        if listing is None:
            path = self.sub(name) if name else self.path
            listing = list_dir(path, self.root_real, model=self.model)
            self.cache[name] = listing
            self.issues.extend(listing.issues)
        return listing

    def files(self, listing: Listing, name: str) -> tuple[Entry, ...]:
        """The regular files (with their sizes) of the subdirectory `name`, if it is one."""
        entry = listing.entry(name)
        if entry is None or not entry.is_dir:
            return ()
        return tuple(e for e in self(name).entries if e.is_file)


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


def _child_of(path: Path, root: Path) -> bool:
    # the same text is the same path (another text may still be: the Path comparison decides)
    return str(path).rpartition(os.sep)[0] == str(root) or path.parent == root


def scan_model(
    path: Path, root: Path, root_real: Path, choice: ConfigChoice, *, link: bool | None = None
) -> tuple[ModelDir, tuple[LayoutIssue, ...]]:
    """Everything discovery knows about one model directory, and the issues found. `link`:
    whether `path` is a symlink, where the caller knows it (from the root's listing)."""
    name = path.name
    lister = _Lister(root_real, path, name)
    try:
        # a plain (non-link) child of the root is where the root is, inside it: one lstat, not a
        # realpath (and where the root is no link either, it is its own real path)
        if _child_of(path, root) and not (path.is_symlink() if link is None else link):
            real_path = path if root_real == root else root_real / name
        else:
            real_path = path.resolve()
            if not within(real_path, root_real):
                return _inaccessible(path, root), ()  # the link itself is reported by the root
    except (OSError, RuntimeError):
        return _inaccessible(path, root), ()
    listing = lister("")
    if not listing.readable:
        return _inaccessible(path, root), tuple(lister.issues)

    subdirs = tuple([e.name for e in listing.entries if e.is_dir])  # already byte-sorted
    if subdirs:
        detection_dir: Path | None = lister.sub(subdirs[0])
        detection_entries = lister(subdirs[0]).entries
    else:
        detection_dir, detection_entries = None, ()

    scan = scan_versions(subdirs)
    versions = tuple(
        [
            Version(number, names[0], lister.sub(names[0]), lister(names[0]).entries, names[1:])
            for number, names in scan.numbers.items()
        ]
    )

    configs = lister(CONFIGS_DIRNAME) if CONFIGS_DIRNAME in subdirs else None
    alternatives = (
        tuple([e.path for e in configs.entries if e.is_file and e.name.endswith(".pbtxt")])
        if configs is not None
        else ()
    )
    config_path, config_name, config_exists = _select_config(path, listing, configs, choice, lister)
    if not config_exists:
        detail = (
            f"no config file '{config_path.name}': Triton auto-completes an empty config, "
            "or fails in strict mode (--disable-auto-complete-config)"
        )
        lister.issues.append(LayoutIssue("missing_config", config_path, detail, name))

    model = ModelDir(
        name, path, root, True, config_path, config_name, config_exists, alternatives,
        listing.entries, subdirs, detection_dir, detection_entries, versions, scan.ignored,
        lister.files(listing, WARMUP_DIRNAME), lister.files(listing, INITIAL_STATE_DIRNAME),
        real_path,
    )  # fmt: skip
    return model, tuple(lister.issues)
