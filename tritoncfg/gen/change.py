"""How every generator changes a config: its fields set through the comment-preserving edit
layer (field_update.py), the result checked with `lint`, then shown as a unified diff or written
atomically.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.lintoptions import LintOverrides, LintSetup
from tritoncfg.record import field, record
from tritoncfg.report.formats import shown_path

if TYPE_CHECKING:
    from tritoncfg.api import LintResult


class GenError(Exception):
    """A generator refuses: the message says why (Triton would refuse it; exit status 1)."""


class GenUsageError(GenError):
    """The generator cannot run as asked: a malformed or missing option value, an input file
    that cannot be read or is not what the option takes, settings that cannot be used (exit
    status 2, as every command's usage errors)."""


@record
class Change:
    """A generator's outcome for one config file."""

    path: Path
    before: str  # "" for a new file
    after: str
    notes: list[str] = field(default_factory=list)  # how values were chosen, for the output
    extra_files: dict[Path, bytes] = field(default_factory=dict)  # written with the config
    make_dirs: list[Path] = field(default_factory=list)  # created with the config
    root: Path | None = None  # the repository root the writes must not leave (its model's)

    @property
    def changed(self) -> bool:
        return (
            self.before != self.after
            or any(not _holds(path, data) for path, data in self.extra_files.items())
            or any(not d.is_dir() for d in self.make_dirs)
        )

    def diff(self) -> str:
        shown = shown_path(self.path)
        old = shown if self.before else "/dev/null"
        lines = difflib.unified_diff(
            self.before.splitlines(True), self.after.splitlines(True), old, shown
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _holds(path: Path, data: bytes) -> bool:
    """The regular file `path` holds `data` already (a warmup file written before)."""
    from tritoncfg.confined import read_regular

    try:
        return read_regular(path, limit=len(data) + 1, follow=False) == data
    except OSError:  # missing, not a regular file, larger: written again
        return False


def project_setup(
    path: Path,
    overrides: LintOverrides | None = None,
    *,
    config: Path | None = None,
    isolated: bool = False,
    settings: Mapping[str, Any] | None = None,
) -> LintSetup:
    """What `tritoncfg lint PATH` applies to `path`: the project's settings (tritoncfg.toml or
    `[tool.tritoncfg]`, found walking up from it; or `config`'s; none with `isolated`), then
    `settings` (as `--config "KEY = VALUE"`), with `overrides` winning: the one merge lint makes
    (`tritoncfg.api.project`). Raises GenUsageError when they cannot be used."""
    from tritoncfg.api import project
    from tritoncfg.lintoptions import OptionError
    from tritoncfg.settings import SettingsError

    try:
        return project(
            path, overrides, config=config, isolated=isolated, settings_overrides=settings
        ).setup
    except (SettingsError, OptionError) as exc:
        raise GenUsageError(str(exc)) from None


def lint_findings(
    model_dir: Path, config_path: Path, text: str, setup: LintSetup
) -> list[Diagnostic]:
    """Lint the model as `tritoncfg lint` would with `setup` (the project's settings), `text`
    standing in for its config: every finding in that config or its model directory."""
    from tritoncfg.api import lint

    result = lint(
        model_dir,
        setup.options,
        setup.selection,
        setup.filters,
        overrides={str(config_path): text},
    )
    return model_findings(result, config_path)


def model_findings(result: LintResult, config_path: Path) -> list[Diagnostic]:
    """The findings of `result` in the config at `config_path` or its model directory."""
    return [d for d in result.diagnostics if Path(d.path).is_relative_to(config_path.parent)]


def describe(findings: list[Diagnostic]) -> str:
    return "\n".join(
        f"{shown_path(Path(d.path))}:{d.span.line}:{d.span.column}: {d.severity.value}: {d.code} {d.message}"
        for d in findings
    )


def write_change(change: Change) -> None:
    """Write the config and any extra files, each atomically (extra files first), none through
    a symlink out of the repository root (checked before any folder is made). A model
    directory that is not there yet is built beside its place (a hidden directory of the
    repository) and renamed into it in one step; in one that is there, what a failed write made
    is removed. Either way a failure leaves no half-made model, which Triton would poll and fail
    to load."""
    import os
    import shutil
    import tempfile

    from tritoncfg.atomic import current_umask
    from tritoncfg.confined import confine

    root = change.root if change.root is not None else change.path.parent.parent
    for path in (*change.extra_files, change.path):
        confine(path, root)
    for wanted in change.make_dirs:
        confine(wanted, root, directory=True)
    directory = change.path.parent
    if os.path.lexists(directory) or not directory.parent.is_dir():
        _write_undoing(change, Path, root)
        return
    staging = Path(tempfile.mkdtemp(prefix=".tritoncfg-new-", dir=directory.parent))
    try:
        staging.chmod(0o777 & ~current_umask())  # mkdtemp makes it 0700
        _write_undoing(change, lambda path: staging / path.relative_to(directory), root)
        os.rename(staging, directory)  # fails, not merges, if a directory appeared there since
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write_undoing(change: Change, placed: Callable[[Path], Path], root: Path) -> None:
    """Write the change, each path where `placed` puts it; on failure remove the files and
    directories it created (those it replaced keep their new content)."""
    from tritoncfg.atomic import write_atomic
    from tritoncfg.confined import Snapshot

    made: list[Path] = []
    try:
        for path, data in change.extra_files.items():
            target = placed(path)
            made += _make_dirs(target.parent)
            if not target.exists():
                made.append(target)
            _write_bytes(target, data)
        for wanted in change.make_dirs:
            made += _make_dirs(placed(wanted))
        config = placed(change.path)
        made += _make_dirs(config.parent)
        before = Snapshot.of(change.before.encode("utf-8")) if config.exists() else None
        write_atomic(config, change.after, root=root, expect=before)
    except BaseException:
        for path in reversed(made):
            _remove(path)
        raise


def _make_dirs(path: Path) -> list[Path]:
    """Create `path` and its missing parents; returns those created, outermost first."""
    missing = []
    while not path.is_dir():
        missing.append(path)
        path = path.parent
    for created in reversed(missing):
        created.mkdir()
    return missing[::-1]


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()
    except OSError:
        pass  # not ours to force: a directory something else filled since


def _write_bytes(path: Path, data: bytes) -> None:
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; warmup data is read by the server
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = [
    "Change",
    "GenError",
    "GenUsageError",
    "describe",
    "lint_findings",
    "model_findings",
    "project_setup",
    "write_change",
]
