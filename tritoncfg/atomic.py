"""The one way tritoncfg writes a file: to a temporary file beside it, then an atomic rename."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that readers see the old file or the new one, never half.

    The file keeps its mode. A symbolic link is refused (OSError): replacing it would turn the
    link into a file, and writing through it could reach outside the target."""
    if path.is_symlink():
        raise OSError(errno.EPERM, "a symbolic link; write the file it points to", str(path))
    directory = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
