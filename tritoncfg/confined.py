"""The gate every local file passes: configs and settings files are read only when they are
regular files of bounded size, and a file is written only when it is reached from its
repository root without a symlink leaving it (docs/security.md).

Reads check the file's type before opening it and open it non-blocking, so a FIFO or a device
named `config.pbtxt` is refused, never waited on. Writes resolve the target once and compare
it with the resolved root, as discovery does when it reports a link out of the root (TC102).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

CONFIG_SIZE_LIMIT = 64 * 1024 * 1024  # bytes: a config or settings file above it is refused

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class PathRefused(OSError):
    """A path tritoncfg will not read or write; `strerror` says why, `filename` names it."""

    def __init__(self, path: Path | str, reason: str, code: int = errno.EPERM) -> None:
        super().__init__(code, reason, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class Snapshot(NamedTuple):
    """A file as it was read: a write checks the file still is so before replacing it."""

    size: int
    digest: bytes  # of the content: a same-size edit within the clock's tick changes it
    identity: tuple[int, int, int] | None = None  # device, inode, mtime_ns; None: content only

    @classmethod
    def of(cls, data: bytes) -> Snapshot:
        """The snapshot of content read earlier (through the workspace): bytes compared only."""
        import hashlib  # only where a file is written: lint does not pay for it

        return cls(len(data), hashlib.sha256(data).digest())


def kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words, for a message."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path | str, *, limit: int = CONFIG_SIZE_LIMIT, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Raises `PathRefused` for anything
    else (a directory, FIFO, device, socket; with `follow=False`, a symlink), OSError when it
    cannot be read."""
    return _read(path, limit, follow)[0]


def read_snapshot(
    path: Path | str, *, limit: int = CONFIG_SIZE_LIMIT, follow: bool = True
) -> tuple[bytes, Snapshot]:
    """`read_regular`, with the snapshot a later write compares the file with."""
    import hashlib

    data, status = _read(path, limit, follow)
    identity = (status.st_dev, status.st_ino, status.st_mtime_ns)
    return data, Snapshot(len(data), hashlib.sha256(data).digest(), identity)


def _read(path: Path | str, limit: int, follow: bool) -> tuple[bytes, os.stat_result]:
    status = os.stat(path, follow_symlinks=follow)  # before open: a FIFO is never opened
    _check_regular(path, status.st_mode, status.st_size, limit)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    descriptor = os.open(path, flags)
    try:
        status = os.fstat(descriptor)  # it may have been replaced since the stat
        _check_regular(path, status.st_mode, status.st_size, limit)
        data = _read_upto(descriptor, limit + 1, status.st_size)
    finally:
        os.close(descriptor)
    _check_regular(path, status.st_mode, len(data), limit)  # it may have grown since
    return data, status


def _read_upto(descriptor: int, most: int, size: int) -> bytes:
    """Up to `most` bytes of an open file, to its end: plain `os.read`s, sized by `size` (what
    fstat said), with no buffered file object around the descriptor (lint reads thousands)."""
    chunks = []
    left = most
    while left > 0:
        chunk = os.read(descriptor, min(left, max(size + 1, 65536)))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _check_regular(path: Path | str, mode: int, size: int, limit: int) -> None:
    if stat.S_ISLNK(mode):
        raise PathRefused(path, "a symbolic link; not followed")
    if not stat.S_ISREG(mode):
        raise PathRefused(path, f"{kind(mode)}, not a regular file; only regular files are read")
    if size > limit:
        raise PathRefused(
            path,
            f"{size:,} bytes, over the {limit // (1024 * 1024)} MiB limit for a config or "
            "settings file (docs/security.md)",
            errno.EFBIG,
        )


def unchanged(path: Path | str, snapshot: Snapshot) -> bool:
    """Whether `path` still holds what was read into `snapshot` (same file, same bytes)."""
    try:
        now = read_snapshot(path, limit=snapshot.size, follow=False)[1]
    except OSError:  # gone, replaced by a link, grown past its old size: changed
        return False
    same_file = snapshot.identity is None or now.identity == snapshot.identity
    return same_file and now[:2] == snapshot[:2]


def check_input(path: Path | str) -> None:
    """A path given on the command line: a directory, a regular file or a symlink to one (a
    missing path is the caller's to report). Raises `PathRefused` for a symlink loop, a name
    too long for the system, a FIFO, a device or a socket: nothing would be checked there."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise PathRefused(path, _os_reason(error), error.errno or errno.EINVAL) from None
    if not (stat.S_ISDIR(status.st_mode) or stat.S_ISREG(status.st_mode)):
        raise PathRefused(
            path, f"{kind(status.st_mode)}; give a config file, a model directory or a repository"
        )


def _os_reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symbolic link loop (too many levels of symbolic links)"
    if error.errno == errno.ENAMETOOLONG:
        return "the path or one of its names is too long for the file system"
    return error.strerror or str(error)


def confine(path: Path, root: Path, *, directory: bool = False) -> None:
    """Refuse to write `path` unless it resolves inside `root` (both resolved once, so a
    symlinked directory on the way that leaves the root is caught, as lint's TC102 reports it)
    and is a regular file (with `directory`, a directory) or does not exist yet. Raises
    `PathRefused` naming the link."""
    check_inside(path, root)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(status.st_mode):
        raise PathRefused(path, "a symbolic link; write the file it points to")
    if not (stat.S_ISDIR if directory else stat.S_ISREG)(status.st_mode):
        raise PathRefused(path, f"{kind(status.st_mode)}, not a regular file")


def check_inside(path: Path, root: Path) -> None:
    """Refuse `path` (to read or to write) unless it resolves inside `root`: what lint does not
    follow is neither read nor written. Raises `PathRefused` naming the link that leaves."""
    root_real = _real(root)
    real = _real(path)
    if not real.is_relative_to(root_real):
        link = _leaving_link(Path(os.path.abspath(path)), Path(os.path.abspath(root)), root_real)
        if link is None:
            raise PathRefused(path, f"outside the repository root '{root}'")
        raise PathRefused(
            path,
            f"'{_shown(link)}' is a symbolic link out of the repository root, to "
            f"'{os.path.realpath(link)}'; not followed (lint reports it: TC102)",
        )


def _real(path: Path) -> Path:
    """`path` with every symlink resolved; a loop or an over-long name is refused."""
    try:
        os.stat(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENAMETOOLONG):
            raise PathRefused(path, _os_reason(error), error.errno) from None
    return Path(os.path.realpath(path))


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is under it, as the user typed it."""
    relative = os.path.relpath(path)
    return path.as_posix() if relative.startswith("..") else relative


def _leaving_link(target: Path, root: Path, root_real: Path) -> Path | None:
    """The first symlink on the way from `root` down to `target` that resolves outside it."""
    if not target.is_relative_to(root):
        return None
    current = root
    for part in target.relative_to(root).parts:
        current = current / part
        if os.path.islink(current) and not Path(os.path.realpath(current)).is_relative_to(
            root_real
        ):
            return current
    return None
