"""A stand-in model repository: real folders, every file a symbolic link to the user's file.

The python backend's interpreter ignores PYTHONDONTWRITEBYTECODE and would write `__pycache__`
into the user's version folders; pointed at the mirror, it writes into the mirror. Nothing in
the user's repository is ever written.
"""

from __future__ import annotations

import os
from pathlib import Path


def mirror_repository(source: Path, target: Path) -> Path:
    """Lay `source` out under `target` (created): folders copied, files linked. Hidden top-level
    folders (`.git`) are linked whole: Triton only fails them, and they can be large."""
    target.mkdir(parents=True, exist_ok=False)
    _mirror(source.resolve(), target, top=True)
    return target


def _mirror(source: Path, target: Path, *, top: bool) -> None:
    try:
        entries = sorted(os.scandir(source), key=lambda e: e.name)
    except OSError:
        return  # unreadable: Triton meets the same (and lint reports it)
    for entry in entries:
        path = Path(entry.path)
        link = target / entry.name
        if (
            entry.is_symlink()
            or not entry.is_dir(follow_symlinks=False)
            or (top and entry.name.startswith("."))
        ):
            # a symlink stays one (to what it points at, relative links resolved as Triton would)
            os.symlink(os.path.realpath(path) if entry.is_symlink() else path, link)
            continue
        link.mkdir()
        _mirror(path, link, top=False)


class PathMap:
    """Messages from the server name mirror paths; users want their own."""

    def __init__(self, mirror: Path, original: Path) -> None:
        self.mirror = str(mirror)
        self.original = str(original)

    def __call__(self, text: str) -> str:
        return text.replace(self.mirror, self.original)
