"""Reusing a model directory's scan while its directories and files are unchanged (the lint cache).

Listing a directory costs far more than a `stat`. A scan is reused when every directory it listed
has the same stamp (modification and status-change times, inode: a directory's mtime changes
whenever an entry is added, removed or renamed) and every file it listed the same stamp and size.
Models with a symlink, or that could not be listed, are always scanned again.

A stamp is trusted only when it is *settled*: older than the run that recorded it by more than
`SETTLE_NS`. A directory or file changed within a timestamp tick of being read can change again
without its times moving (git's "racily clean" entries); such a directory is listed again, and
such a config read again.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tritoncfg.repository.model import (
    INITIAL_STATE_DIRNAME,
    WARMUP_DIRNAME,
    Entry,
    IgnoredDir,
    LayoutIssue,
    ModelDir,
    Version,
)
from tritoncfg.repository.scan import ConfigChoice, scan_model

Signature = list[list[Any]]  # rows of `stamp`: [path, mtime_ns, ctime_ns, size or -1, inode]
# How long after a change a stamp is trusted: above the timestamp granularity of the common file
# systems (a kernel tick on ext4, 1 s on HFS+, 2 s on FAT) and a little clock skew.
SETTLE_NS = 3_000_000_000


def stamp(path: str, *, is_dir: bool) -> list[Any]:
    """[path, mtime_ns, ctime_ns, size (-1 for a directory), inode]. Raises OSError."""
    info = os.stat(path)
    return [path, info.st_mtime_ns, info.st_ctime_ns, -1 if is_dir else info.st_size, info.st_ino]


def settled(row: list[Any], trusted_before: int) -> bool:
    """Whether a stamp was recorded long enough after its last change to be trusted."""
    return bool(max(row[1], row[2]) < trusted_before)


def _listed(model: ModelDir) -> tuple[list[Path], list[Entry]]:
    dirs = [model.path, *(model.path / name for name in model.subdirs_sorted)]
    files = [*model.entries, *model.detection_entries, *model.warmup_entries]
    files += [*model.initial_state_entries, *(e for v in model.versions for e in v.entries)]
    return dirs, files


def signature(model: ModelDir) -> Signature | None:
    """What to `stat` to know the scan still holds; None when it cannot be trusted so."""
    if not model.accessible:
        return None
    dirs, entries = _listed(model)
    if any(e.is_symlink for e in entries):
        return None
    try:
        found: Signature = [stamp(str(path), is_dir=True) for path in dirs]
        files = {str(e.path) for e in entries if e.is_file}
        files.update(str(p) for p in model.alternative_configs)  # configs/*.pbtxt
        if model.config_exists:
            files.add(str(model.config_path))
        found += [stamp(name, is_dir=False) for name in sorted(files)]
    except OSError:
        return None
    return found


def unchanged(recorded: Signature, trusted_before: int) -> bool:
    """Whether every stamp is the same now, and every directory's settled (its listing holds)."""
    try:
        for row in recorded:
            if stamp(row[0], is_dir=row[3] == -1) != row:
                return False
            if row[3] == -1 and not settled(row, trusted_before):
                return False
    except (OSError, TypeError, IndexError):
        return False
    return True


def _entries_json(entries: tuple[Entry, ...], parent: Path | None) -> list[Any]:
    """Rows without the path where it is `parent/name` (as listing makes it): rebuilding each
    path from its parent is the most of reading a scan back."""
    return [
        [e.name, e.is_dir, e.is_file, e.is_symlink, e.size, e.outside_root,
         None if e.parent is parent or e.parent == parent else str(e.path)]
        for e in entries
    ]  # fmt: skip


def _entries(rows: list[Any], parent: Path | None) -> tuple[Entry, ...]:
    return tuple(
        Entry(n, parent if p is None and parent is not None else Path(p).parent, d, f, s, z, o)
        for n, d, f, s, z, o, p in rows
    )


def _path(value: str | None) -> Path | None:
    return None if value is None else Path(value)


def encode(model: ModelDir, issues: tuple[LayoutIssue, ...]) -> dict[str, Any]:
    path = model.path
    return {
        "model": [
            model.name, str(path), str(model.root), model.accessible, str(model.config_path),
            model.config_name, model.config_exists, [str(p) for p in model.alternative_configs],
            _entries_json(model.entries, path), list(model.subdirs_sorted),
            None if model.detection_dir is None else str(model.detection_dir),
            _entries_json(model.detection_entries, model.detection_dir),
            [[v.number, v.dirname, str(v.path), _entries_json(v.entries, v.path), list(v.aliases)]
             for v in model.versions],
            [[i.name, i.cause, i.reason] for i in model.ignored_version_dirs],
            _entries_json(model.warmup_entries, path / WARMUP_DIRNAME),
            _entries_json(model.initial_state_entries, path / INITIAL_STATE_DIRNAME),
            None if model.real_path is None else str(model.real_path),
        ],
        "issues": [[i.kind, str(i.path), i.detail, i.model] for i in issues],
    }  # fmt: skip


class _Paths:
    """The paths of one scan's subdirectories (the detection and version directories), each
    made once from the model directory's path rather than parsed again."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.made: dict[str, Path] = {}

    def __call__(self, value: str | None) -> Path | None:
        if value is None:
            return None
        parent, _, name = value.rpartition(os.sep)
        if parent != self.text or not name:
            return Path(value)
        made = self.made.get(name)
        if made is None:
            made = self.made[name] = self.path / name
        return made


@functools.lru_cache(maxsize=16)
def _root(value: str) -> Path:
    return Path(value)


class _Row(tuple[Any, ...]):
    """The shape of a JSON list of a fixed length, each item of its own shape."""


Check = Callable[[Any], bool]


def _checker(shape: Any) -> Check:
    """Whether a JSON value has `shape`: a `_Row`, a list `[item shape]`, or a type (tuple),
    made once into a function (a record is read back for each model of a re-lint)."""
    if isinstance(shape, _Row):
        size = len(shape)
        if not any(isinstance(item, (_Row, list)) for item in shape):  # plain types: in C
            return lambda value: (
                type(value) is list and len(value) == size and all(map(isinstance, value, shape))
            )
        items = tuple(map(_checker, shape))
        return lambda value: (
            type(value) is list
            and len(value) == size
            and all(check(item) for check, item in zip(items, value, strict=True))
        )
    if type(shape) is list:
        each = _checker(shape[0])
        return lambda value: type(value) is list and all(map(each, value))
    return lambda value: isinstance(value, shape)


_TEXT = (str, type(None))
_ENTRIES = [_Row((str, bool, bool, bool, (int, type(None)), bool, _TEXT))]  # `_entries_json`
# what `encode` writes, checked before `decode` reads it: a record edited or damaged into other
# types is scanned again, never read into a model of the wrong types
_RECORD = {
    key: _checker(shape)
    for key, shape in {
        "model": _Row((str, str, str, bool, str, _TEXT, bool, [str], _ENTRIES, [str], _TEXT,
                       _ENTRIES, [_Row((int, str, str, _ENTRIES, [str]))], [_Row((str, str, str))],
                       (list, type(None)), (list, type(None)), _TEXT)),
        "issues": [_Row((str, str, str, _TEXT))],
        "signature": [_Row((str, int, int, int, int))],
    }.items()
}  # fmt: skip
_ENTRY_ROWS = _checker(_ENTRIES)


def _well_formed(record: dict[str, Any]) -> bool:
    if not all(check(record.get(key)) for key, check in _RECORD.items()):
        return False
    warmup, initial = record["model"][14:16]
    return all(found is None or _ENTRY_ROWS(found) for found in (warmup, initial))


def decode(data: dict[str, Any]) -> tuple[ModelDir, tuple[LayoutIssue, ...]]:
    (name, path, root, accessible, config, config_name, exists, alternatives, entries, subdirs,
     detection, detection_entries, versions, ignored, warmup, initial, real) = data["model"]  # fmt: skip
    model_path = Path(path)
    listed = _entries(entries, model_path)
    known = _Paths(model_path, path)
    detection_dir = known(detection)
    model = ModelDir(
        name, model_path, _root(root), accessible, known(config) or Path(config),
        config_name, exists, tuple(Path(p) for p in alternatives), listed, tuple(subdirs),
        detection_dir, _entries(detection_entries, detection_dir),
        tuple(Version(n, d, v, _entries(e, v), tuple(a))
              for n, d, v, e, a in ((n, d, known(p) or Path(p), e, a) for n, d, p, e, a in versions)),
        tuple(IgnoredDir(n, c, r) for n, c, r in ignored),
        _entries(warmup, model_path / WARMUP_DIRNAME) if warmup else (),
        _entries(initial, model_path / INITIAL_STATE_DIRNAME) if initial else (), _path(real),
    )  # fmt: skip
    issues = tuple(LayoutIssue(k, Path(p), d, m) for k, p, d, m in data["issues"])
    return model, issues


class ScanReuse:
    """`scan_model`, answered from `previous` scans whose directories and files are unchanged;
    `now` collects this run's scans (to be kept for the next)."""

    def __init__(self, previous: dict[str, Any], trusted_before: int = 0) -> None:
        self.previous = previous
        self.trusted_before = trusted_before  # stamps settled before this are trusted
        self.now: dict[str, Any] = {}
        self.reused = 0
        self._signatures: dict[str, Signature] = {}  # model dir -> its signature, this run

    def signature_of(self, model: ModelDir | None) -> Signature | None:
        """The signature of a model this run scanned or reused (None: not known here)."""
        return None if model is None else self._signatures.get(f"{model.path}\0{model.config_path}")

    def __call__(
        self, path: Path, root: Path, root_real: Path, choice: ConfigChoice, *, link: bool | None
    ) -> tuple[ModelDir, tuple[LayoutIssue, ...]]:
        key = f"{path}\0{choice.explicit}\0{choice.config_name}"
        old = self.previous.get(key)
        if isinstance(old, dict) and _well_formed(old):
            try:
                if unchanged(old["signature"], self.trusted_before):
                    found = decode(old)
                    self.now[key] = old
                    self.reused += 1
                    self._signatures[f"{found[0].path}\0{found[0].config_path}"] = old["signature"]
                    return found
            except (KeyError, TypeError, ValueError):
                pass  # a damaged record: scanned again
        model, issues = scan_model(path, root, root_real, choice, link=link)
        recorded = signature(model)
        if recorded is not None:
            self.now[key] = {**encode(model, issues), "signature": recorded}
            self._signatures[f"{model.path}\0{model.config_path}"] = recorded
        return model, issues
