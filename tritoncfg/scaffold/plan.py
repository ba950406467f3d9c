"""Everything `new` writes, checked before the first write, then written atomically.

Project files (README, .gitignore, ...) are created when missing and kept when present, even
with `force`; a model folder or a manifest that exists is a conflict, and a conflict stops `new`
before it writes anything, unless `force`. A model folder is built in the project folder and
renamed into its place, so it appears (or replaces the old one) whole.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from tritoncfg.atomic import copy_atomic, current_umask, write_atomic
from tritoncfg.confined import confine, read_regular
from tritoncfg.record import field, record
from tritoncfg.scaffold.models import ModelFiles
from tritoncfg.scaffold.spec import NAME_MAX, ScaffoldError

_PATH_MAX = 4096  # bytes in a path, its terminating NUL included (Linux)
_TEMPORARY = len(".x.12345678.tmp") - 1  # write_atomic's name for `x`: `.x.XXXXXXXX.tmp`
_SHOWN_NAME = 64  # of a model's name in its staging folder's name


class Conflict(ScaffoldError):
    """Files `new` would overwrite; nothing was written."""


@record
class Plan:
    root: Path
    repository: str  # the model repository folder, inside root
    project: dict[str, str] = field(default_factory=dict)  # kept when present
    owned: dict[str, str] = field(default_factory=dict)  # replaced only with force
    models: list[ModelFiles] = field(default_factory=list)

    def targets(self) -> list[Path]:
        """Every path `write` makes: project files, manifests, model folders and their files."""
        paths = [self.root / relpath for relpath in (*self.project, *self.owned)]
        for model in self.models:
            folder = self.root / self.repository / model.name
            paths += [folder / relpath for relpath in model.files]
        return paths

    def conflicts(self) -> list[str]:
        check_writable(self.root, self.targets())
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
        # project files are never replaced, not even with force: force replaces what was asked
        # for (models, manifests), and the README or .gitignore is the user's to edit
        for files, replace in ((self.project, False), (self.owned, True)):
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
    short = model.name[:_SHOWN_NAME]  # a 255-byte name is a valid folder, not with a suffix
    staging = Path(tempfile.mkdtemp(prefix=f".{short}.new-", dir=root))
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
        old = Path(tempfile.mkdtemp(prefix=f".{short}.old-", dir=root))
        os.rename(target, old / model.name)
        os.rename(staging, target)
        shutil.rmtree(old)
        return f"replaced {target}"
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def check_writable(root: Path, targets: list[Path]) -> None:
    """Raise ScaffoldError, before anything is written, for a target `write` could not make: a
    path component over NAME_MAX bytes, a path over PATH_MAX, or a file where one of its folders
    must be (the project folder's own parents included)."""
    for path in targets:
        absolute = Path(os.path.abspath(path))
        size = len(os.fsencode(absolute))
        if size + _TEMPORARY >= _PATH_MAX:
            raise ScaffoldError(
                f"{path}: the path is too long to write ({size} bytes, and {_TEMPORARY} more "
                f"for the temporary file it is written to; the limit is {_PATH_MAX})"
            )
        long = next((p for p in absolute.parts if len(os.fsencode(p)) > NAME_MAX), None)
        if long is not None:
            raise ScaffoldError(
                f"{path}: {long[:24]!r}... is over {NAME_MAX} bytes; a file name is at most that"
            )
    folders = {parent for path in targets for parent in path.parents if parent != Path(".")}
    for folder in sorted(folders, key=lambda p: len(p.parts)):
        if folder.exists() and not folder.is_dir():
            raise ScaffoldError(f"{folder}: exists and is not a directory")


def _read(path: Path) -> str | None:
    try:
        return read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


__all__ = ["Conflict", "Plan"]
