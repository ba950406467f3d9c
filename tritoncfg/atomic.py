"""The one way tritoncfg writes a file: to a temporary file beside it, then an atomic rename.

Every write passes `confined.confine` first: only a regular file (or a new one) reached from its
repository root without leaving it is written (docs/security.md)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from tritoncfg.confined import PathRefused, Snapshot, confine, unchanged


def write_atomic(
    path: Path, text: str, *, root: Path | None = None, expect: Snapshot | None = None
) -> None:
    """Replace `path` with `text` so that readers see the old file or the new one, never half.

    `root`: the repository root the file must be reached from without leaving it (default: its
    own directory, so only the file itself is checked). `expect`: the file as it was read; if
    it changed since (another program edited it), nothing is written. Both refusals, a symlink
    and a file of several hard links (replacing it would split them) raise `PathRefused`. The
    file keeps its mode, and its owner and group where the process may set them."""
    _replace(path, lambda handle: handle.write(text.encode("utf-8")), root, expect)


def write_atomic_bytes(path: Path, data: bytes, *, root: Path | None = None) -> None:
    """Replace `path` with `data` (a TensorRT plan, ...), atomically like `write_atomic`."""
    _replace(path, lambda handle: handle.write(data), root)


def copy_atomic(source: Path, path: Path, *, root: Path | None = None) -> None:
    """Replace `path` with a copy of the file `source` (e.g. a model file), the same way."""
    with source.open("rb") as reader:
        _replace(path, lambda handle: shutil.copyfileobj(reader, handle, 1 << 20), root)


def _replace(
    path: Path,
    fill: Callable[[BinaryIO], object],
    root: Path | None,
    expect: Snapshot | None = None,
) -> None:
    confine(path, path.parent if root is None else root)
    existing = _status(path)
    if existing is not None and existing.st_nlink > 1:
        raise PathRefused(
            path,
            f"has {existing.st_nlink} hard links, and replacing it would split them; not "
            "written (copy it to break the links, then run again)",
            errno.EMLINK,
        )
    directory = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            _keep_owner(tmp, existing)  # before chmod: a chown clears setuid and setgid bits
        os.chmod(tmp, _mode_for(existing))
        if expect is not None and not unchanged(path, expect):
            raise PathRefused(
                path,
                "changed since it was read (edited meanwhile); not written, run again",
                errno.EAGAIN,
            )
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _status(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _keep_owner(tmp: Path, existing: os.stat_result) -> None:
    """The new file gets the old one's owner and group (a run as root would make them root's);
    a process that may not set them leaves its own, as an editor's save does."""
    made = os.stat(tmp)
    if (existing.st_uid, existing.st_gid) == (made.st_uid, made.st_gid):
        return
    try:
        os.chown(tmp, existing.st_uid, existing.st_gid)
    except PermissionError:
        with contextlib.suppress(PermissionError):
            os.chown(tmp, -1, existing.st_gid)  # a group the user belongs to


def _mode_for(existing: os.stat_result | None) -> int:
    """The mode of the file replaced, or for a new file the one `open()` would give it (the
    temporary file is created 0600)."""
    if existing is not None:
        return existing.st_mode & 0o7777
    return 0o666 & ~current_umask()


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
