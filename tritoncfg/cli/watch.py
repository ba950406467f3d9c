"""`lint --watch`: lint, then lint again whenever a file under the paths (or the settings file)
changes, until Ctrl-C, as ruff's `--watch`. The `watchfiles` package (the `watch` extra) is
imported only here. Each run reads the settings again; the lint cache keeps a re-run to the
models that changed, and its writes are never seen: it is not used inside a linted repository
(api.py), and the folders watched are the repositories, the model folders and the settings file.
A change to a file the file selection leaves out (`exclude`, a .gitignore: file_selection.py)
starts no run; a change to an ignore file or the settings does.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.cli.common import fail

if TYPE_CHECKING:
    from watchfiles import Change

    from tritoncfg.cli.lint_request import LintRequest
    from tritoncfg.file_selection import FileSelection

# a change to these always starts a run: they change what is selected, or how it is linted
ALWAYS_WATCHED = frozenset({".gitignore", "tritoncfg.toml", "pyproject.toml"})


def watch(request: LintRequest, lint_once: Callable[[LintRequest], int]) -> int:
    """Run `lint_once` now and after each change; 0 when stopped with Ctrl-C. A usage error in
    a later run (a settings file saved half-written) is printed, and the watch goes on."""
    try:
        import watchfiles
    except ImportError:
        fail("--watch needs the watchfiles package: pip install 'tritoncfg[watch]'")
    from tritoncfg.cli.common import refuse_cloud

    refuse_cloud([Path(p) for p in request.paths], "lint --watch")
    targets = _targets(request)
    wanted = _Wanted(request, targets)
    _announce("Starting linter in watch mode...")
    _run(lint_once, request)
    try:
        for changes in watchfiles.watch(*targets, watch_filter=wanted, raise_interrupt=True):
            _clear()
            _announce(f"File change detected ({len(changes)} changed). Linting...")
            wanted.reread()  # the settings or an ignore file may have changed
            with suppress(SystemExit):  # its message is printed: wait for the next change
                _run(lint_once, request)
    except KeyboardInterrupt:
        return 0
    return 0


def _run(lint_once: Callable[[LintRequest], int], request: LintRequest) -> None:
    lint_once(request)
    sys.stdout.flush()  # a pipe (an editor, a test) sees each run as it ends


def _targets(request: LintRequest) -> list[Path]:
    """The folders of the paths (a config file's model folder: its layout counts too) and the
    settings file that applies."""
    from tritoncfg.settings import find_config

    folders = {Path(p) if Path(p).is_dir() else Path(p).parent for p in request.paths}
    settings = None if request.isolated else request.config or find_config(Path(request.paths[0]))
    if settings is not None and not any(settings.parent == f for f in folders):
        folders.add(settings)
    return sorted(folders)


class _Wanted:
    """watchfiles' filter: its defaults (no .git, editors' swap files), then the run's file
    selection, read again after each change, as each run reads the settings again."""

    def __init__(self, request: LintRequest, targets: list[Path]) -> None:
        from watchfiles import DefaultFilter

        self.request = request
        self.targets = [Path(os.path.abspath(t)) for t in targets]
        self.default = DefaultFilter()
        self.selection: FileSelection | None = None
        self.reread()

    def reread(self) -> None:
        """The selection as the next run makes it; None (every change counts) where the
        settings cannot be read now: the run reports why."""
        from tritoncfg.api import project

        request = self.request
        try:
            chosen = project(
                request.paths,
                request.overrides,
                config=request.config,
                isolated=request.isolated,
                settings_overrides=request.inputs.settings,
            )
        except Exception:
            self.selection = None
            return
        self.selection = chosen.setup.filters.files  # a new one: the ignore files read anew

    def __call__(self, change: Change, path: str) -> bool:
        if not self.default(change, path):
            return False
        name = os.path.basename(path)
        if self.selection is None or name in ALWAYS_WATCHED:
            return True
        changed = Path(os.path.abspath(path))
        within = next((t for t in self.targets if changed.is_relative_to(t)), None)
        if within is None or within == changed:  # the settings file, watched as itself
            return True
        return not self.selection.skips(changed, within=within)


def _announce(line: str) -> None:
    sys.stdout.flush()
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {line}\n")
    sys.stderr.flush()


def _clear() -> None:
    """A fresh screen for the next run, where there is one to clear (not on a dumb terminal)."""
    if sys.stdout.isatty() and os.environ.get("TERM") != "dumb":
        sys.stdout.write("\x1b[2J\x1b[H")
