"""The cache directory, used only when it is tritoncfg's own and never through a symbolic link.

Every file is opened relative to the directory's descriptor, which is opened with `O_NOFOLLOW`:
a `.tritoncfg_cache` that is a symlink (to a directory of someone else's files) is refused,
never written into or pruned, and so is one that is not a directory. The directory is
tritoncfg's when it holds the cache-directory tag tritoncfg writes when it creates it
(`CACHEDIR.TAG`, the convention backup tools skip: https://bford.info/cachedir/); an empty one,
or one an older tritoncfg made (its `.gitignore`), is tagged on first use. A directory holding
anything else is left alone. Only files named as the cache names its own are ever removed, and
only regular files: never a file the cache did not write.

Cache files are plain regular files read without blocking (a FIFO put there cannot hang lint)
and written atomically beside themselves; they are not fsync'ed (a file lost in a crash is a
cache miss, and anything unreadable counts as absent).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

TAG = "CACHEDIR.TAG"
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tritoncfg (its lint cache).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
GITIGNORE = ".gitignore"
GITIGNORE_TEXT = "# written by tritoncfg\n*\n"  # what every tritoncfg has written there
OWN_FILE = re.compile(r"(lint|replay)-[0-9a-f]{16}\.json")  # the names `LintCache` gives
_TEMPORARY = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{8}\.tmp")  # `_write`'s, before its rename
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class CacheFolder:
    """`.tritoncfg_cache/`, opened for each use; `refused` says why it is not used (one line)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.refused: str | None = None

    def read(self, name: str) -> bytes | None:
        """The content of a cache file; None when there is none to read (or no cache)."""
        with self._opened(create=False) as folder:
            return None if folder is None else _read(folder, name)

    def write(self, files: dict[str, bytes], *, remove: tuple[str, ...] = (), keep: int) -> None:
        """Write `files` atomically and remove the files named in `remove`, then the oldest
        cache files of each kind beyond `keep`. Nothing is written where the cache is refused;
        an I/O error (a read-only checkout) leaves lint uncached."""
        with suppress(OSError), self._opened(create=True) as folder:
            if folder is None:
                return
            for name, data in files.items():
                _write(folder, name, data)
            for name in remove:
                _remove_own(folder, name)
            _prune(folder, keep)

    @contextmanager
    def _opened(self, *, create: bool) -> Iterator[int | None]:
        folder = self._open(create=create)
        try:
            yield folder
        finally:
            if folder is not None:
                os.close(folder)

    def _open(self, *, create: bool) -> int | None:
        if self.refused is not None:
            return None
        made = False
        try:
            if create:
                # a --cache-dir elsewhere (~/.cache/tritoncfg/x) may need its parents
                os.makedirs(self.path.parent, exist_ok=True)
                with suppress(FileExistsError):
                    os.mkdir(self.path)
                    made = True
            folder = os.open(self.path, _DIRECTORY)
        except FileNotFoundError:
            return None  # no cache yet
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                return None  # unreadable (permissions): uncached, as before
            link = self.path.is_symlink()
            what = "a symbolic link (not followed)" if link else "not a directory"
            self.refused = f"{self.path} is {what}: linting without the cache"
            return None
        try:
            claimed = _claimed(folder, made)
        except OSError:
            claimed = None  # unlistable: uncached, as above
        if not claimed:
            os.close(folder)
            if claimed is None:
                return None
            self.refused = (
                f"{self.path} holds files tritoncfg did not write (it has no {TAG}): "
                "left alone; linting without the cache"
            )
            return None
        return folder


def _claimed(folder: int, made: bool) -> bool:
    """Whether the directory is tritoncfg's cache: tagged, or tagged now when this run `made` it,
    or it is empty or an older tritoncfg's (its `.gitignore` and cache files only). Another
    run's temporary files do not count: runs in parallel (pre-commit's) may create it together."""
    if not made and _read(folder, TAG) == TAG_TEXT.encode():
        return True
    names = {name for name in os.listdir(folder) if not _TEMPORARY.fullmatch(name)}
    if names and not made:
        older = names - {GITIGNORE, TAG}
        if _read(folder, GITIGNORE) != GITIGNORE_TEXT.encode() or not all(
            OWN_FILE.fullmatch(name) for name in older
        ):
            return False
    with suppress(OSError):
        _write(folder, TAG, TAG_TEXT.encode())
        if GITIGNORE not in names:
            _write(folder, GITIGNORE, GITIGNORE_TEXT.encode())
    return True


def _read(folder: int, name: str) -> bytes | None:
    try:
        handle = os.open(name, _READ, dir_fd=folder)
    except OSError:
        return None  # absent, a symlink (ELOOP), unreadable
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None  # a FIFO, a device, a directory: not a cache file
        with os.fdopen(handle, "rb", closefd=False) as reader:
            return reader.read()
    except OSError:
        return None
    finally:
        os.close(handle)


def _write(folder: int, name: str, data: bytes) -> None:
    """Replace `name` with `data`: a new file beside it, renamed over it (a symlink named so is
    replaced, never followed)."""
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    handle = os.open(temporary, flags, 0o666, dir_fd=folder)  # the umask applies
    try:
        with os.fdopen(handle, "wb") as writer:
            writer.write(data)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise


def _remove_own(folder: int, name: str) -> None:
    with suppress(OSError):
        if OWN_FILE.fullmatch(name) and stat.S_ISREG(
            os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
        ):
            os.unlink(name, dir_fd=folder)


def _prune(folder: int, keep: int) -> None:
    """Remove the oldest cache files of each kind beyond `keep`: regular files named as the
    cache names its own, in its own directory, nothing else."""
    kinds: dict[str, list[tuple[int, str]]] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            if OWN_FILE.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                when = entry.stat(follow_symlinks=False).st_mtime_ns
                kinds.setdefault(entry.name.split("-")[0], []).append((when, entry.name))
    for found in kinds.values():
        for _, name in sorted(found)[:-keep]:
            with suppress(OSError):
                os.unlink(name, dir_fd=folder)
