"""The one way tritoncfg writes a file: to a temporary file beside it, then an atomic rename."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that readers see the old file or the new one, never half.

    The file keeps its mode. A symbolic link is refused (OSError): replacing it would turn the
    link into a file, and writing through it could reach outside the target."""
    _replace(path, lambda handle: handle.write(text.encode("utf-8")))


def write_atomic_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` (a TensorRT plan, ...), atomically like `write_atomic`."""
    _replace(path, lambda handle: handle.write(data))


def copy_atomic(source: Path, path: Path) -> None:
    """Replace `path` with a copy of the file `source` (e.g. a model file), the same way."""
    with source.open("rb") as reader:
        _replace(path, lambda handle: shutil.copyfileobj(reader, handle, 1 << 20))


def _replace(path: Path, fill: Callable[[BinaryIO], object]) -> None:
    if path.is_symlink():
        raise OSError(errno.EPERM, "a symbolic link; write the file it points to", str(path))
    directory = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    """The mode of the file replaced, or for a new file the one `open()` would give it (the
    temporary file is created 0600)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
