"""Everything `new` writes, checked before the first write, then written atomically.

Project files (README, .gitignore, ...) are created when missing and kept when present; a model
folder or a manifest that exists is a conflict, and a conflict stops `new` before it writes
anything, unless `force`. A model folder is built in the project folder and renamed into its
place, so it appears (or replaces the old one) whole.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import field
from pathlib import Path

from tritoncfg.atomic import copy_atomic, current_umask, write_atomic
from tritoncfg.confined import confine, read_regular
from tritoncfg.record import record
from tritoncfg.scaffold.models import ModelFiles
from tritoncfg.scaffold.spec import ScaffoldError


class Conflict(ScaffoldError):
    """Files `new` would overwrite; nothing was written."""


@record
class Plan:
    root: Path
    repository: str  # the model repository folder, inside root
    project: dict[str, str] = field(default_factory=dict)  # kept when present
    owned: dict[str, str] = field(default_factory=dict)  # replaced only with force
    models: list[ModelFiles] = field(default_factory=list)

    def conflicts(self) -> list[str]:
        if self.root.exists() and not self.root.is_dir():
            raise ScaffoldError(f"{self.root}: exists and is not a directory")
        found: list[str] = []
        names = [model.name for model in self.models]
        for name in {n for n in names if names.count(n) > 1}:
            raise ScaffoldError(f"model {name!r} is asked for twice")
        for model in self.models:
            path = self.root / self.repository / model.name
            if path.exists() or path.is_symlink():
                found.append(f"{path}: model exists")
        for relpath, text in self.owned.items():
            path = self.root / relpath
            if path.exists() and _read(path) != text:
                found.append(f"{path}: exists and differs")
        return found

    def write(self, *, force: bool = False) -> list[str]:
        """Write everything; returns what was done, one line per file or model."""
        conflicts = self.conflicts()
        if conflicts and not force:
            raise Conflict(
                "nothing written; these would be overwritten (give --force to replace them):\n  "
                + "\n  ".join(conflicts)
            )
        done: list[str] = []
        (self.root / self.repository).mkdir(parents=True, exist_ok=True)
        for files, replace in ((self.project, force), (self.owned, True)):
            for relpath, text in files.items():
                path = self.root / relpath
                if path.exists() and (not replace or _read(path) == text):
                    continue
                done.append(f"{'replaced' if path.exists() else 'created'} {path}")
                confine(path, self.root)  # before mkdir: a linked folder may leave the project
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, text, root=self.root)
        for model in self.models:
            done.append(_write_model(self.root, self.root / self.repository, model))
        return done


def _write_model(root: Path, repository: Path, model: ModelFiles) -> str:
    """Build the folder in the project root (not in the repository, where a folder left by a
    crash would be loaded as a model), then rename it into place, replacing the old one."""
    target = repository / model.name
    confine(target, root, directory=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{model.name}.new-", dir=root))
    try:
        staging.chmod(0o777 & ~current_umask())  # mkdtemp makes it 0700
        for relpath, content in model.files.items():
            path = staging / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                copy_atomic(content, path)
            else:
                write_atomic(path, content)
        if not (target.exists() or target.is_symlink()):
            os.rename(staging, target)
            return f"created {target}"
        old = Path(tempfile.mkdtemp(prefix=f".{model.name}.old-", dir=root))
        os.rename(target, old / model.name)
        os.rename(staging, target)
        shutil.rmtree(old)
        return f"replaced {target}"
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _read(path: Path) -> str | None:
    try:
        return read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


__all__ = ["Conflict", "Plan"]
