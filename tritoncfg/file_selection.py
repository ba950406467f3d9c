"""Which files and model directories a command takes: the one answer for every command that walks
a tree (lint, fmt, complete, probe), from the `exclude` setting and, with `respect-gitignore`
(on by default), git's ignore files.

As ruff does:
- a path named on the command line is taken even when excluded or ignored, unless
  `force-exclude` (then it and its parent directories are checked too: what pre-commit needs);
- what is found by walking a named directory is checked below that directory: a pattern that
  covers the named directory itself does not drop what is inside it;
- `.gitignore` files count inside a git work tree only (a `.git` at or above the path), with
  git's semantics: a `.gitignore` applies to its own directory and below, a deeper one and a
  later line win, `!pattern` takes a path back, but nothing inside an ignored directory comes
  back; `.git/info/exclude` counts as a `.gitignore` at the top, below all of them.

Patterns are gitignore-style, read by the `pathspec` library (imported only when a pattern is
there to match). A model directory counts as covered when a pattern covers it or its
`config.pbtxt`, as git would then leave nothing of the model to read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from tritoncfg.record import field, record

CONFIG_FILENAME = "config.pbtxt"
NEVER_WALKED = frozenset({".git", ".tritoncfg_cache"})  # fmt's walk does not enter these


@record(frozen=True)
class _Patterns:
    """One ignore file's patterns, as two expressions: those that match a name at any depth
    (`*.py`, `build/`: matched against the entry's last component, which is quick) and the
    others (matched against the path below the file's directory). Each expression's
    alternatives are in reverse order, so the alternative that matches is the last matching
    line of its kind; `include[i]`: whether line `i` ignores (True) or takes back (`!`)."""

    names: re.Pattern[str] | None
    paths: re.Pattern[str] | None
    include: tuple[bool, ...]


ANY_DEPTH = "^(?:.+/)?"  # how pathspec starts a pattern with no slash but at its end


def _compile(lines: Iterable[str]) -> _Patterns | None:
    """The lines that match something (comments and blanks dropped), or None."""
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    kept = [p for p in spec.patterns if p.include is not None and p.regex is not None]
    if not kept:
        return None
    names: list[str] = []
    paths: list[str] = []
    for index in reversed(range(len(kept))):
        regex = kept[index].regex
        assert regex is not None
        text = regex.pattern
        if "(?P<ps_d>" in text:  # a pattern for the entry itself (`x`, `x/`, `*.py`)
            text = text.replace("(?P<ps_d>", "(?:")
        elif not text.endswith("$"):  # `x/**`: everything below x, matched as a prefix
            text += ".*"
        rest = text.removeprefix(ANY_DEPTH)
        if rest != text and "/" not in rest.replace("(?:/)", "").replace("(?:/|$)", ""):
            names.append(f"(?P<_{index}>{rest})")
        else:
            paths.append(f"(?P<_{index}>{text})")
    return _Patterns(
        re.compile("|".join(names)) if names else None,
        re.compile("|".join(paths)) if paths else None,
        tuple(bool(p.include) for p in kept),
    )


# the ignore files that apply in a directory: (that directory with a final "/", its patterns)
Sources = tuple[tuple[str, _Patterns], ...]


def _decide(sources: Sources, entry: str, is_dir: bool) -> bool:
    """Whether the patterns leave `entry` (an absolute path) out, judged on the entry alone (its
    parents are judged on their own): the last line that matches it decides, deeper files after
    higher ones."""
    decision = False
    suffix = "/" if is_dir else ""
    name = entry[entry.rfind("/") + 1 :] + suffix
    for directory, patterns in sources:
        if not entry.startswith(directory):
            continue
        line = -1
        if patterns.names is not None:
            found = patterns.names.fullmatch(name)
            if found is not None and found.lastgroup is not None:
                line = int(found.lastgroup[1:])
        if patterns.paths is not None:
            found = patterns.paths.fullmatch(entry[len(directory) :] + suffix)
            if found is not None and found.lastgroup is not None:
                line = max(line, int(found.lastgroup[1:]))
        if line >= 0:
            decision = patterns.include[line]
    return decision


def _read_lines(path: Path | str) -> list[str] | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)  # an ignore file is small: a megabyte at most is read
    except OSError:  # absent, a directory, unreadable: no patterns
        return None
    return data.decode("utf-8", "replace").splitlines()


def _git_dir(top: Path) -> Path | None:
    """The git directory of the work tree at `top` (`.git`, or where a `.git` file points: a
    linked worktree's info/ is in the common directory)."""
    dot_git = top / ".git"
    if dot_git.is_dir():
        return dot_git
    lines = _read_lines(dot_git) or []
    if not lines or not lines[0].startswith("gitdir:"):
        return None
    git_dir = (top / lines[0].removeprefix("gitdir:").strip()).resolve()
    common = _read_lines(git_dir / "commondir")
    return (git_dir / common[0].strip()).resolve() if common else git_dir


class _Ignores:
    """One run's reading of the ignore files: each directory's work tree top, the sources that
    apply in it, and each entry's decision, read once. Paths are absolute, as text."""

    def __init__(self) -> None:
        self.tops: dict[str, str | None] = {}
        self.sources: dict[str, Sources] = {}
        self.decided: dict[tuple[str, bool], bool] = {}
        self.read: dict[str, str | None] = {}  # every ignore file consulted: its text

    def __getstate__(self) -> dict[str, Any]:
        return {}  # a pickled copy reads the files again

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def top(self, directory: str) -> str | None:
        """The git work tree `directory` is in (the nearest `.git` at or above it), or None."""
        found = self.tops.get(directory, "")
        if found != "":
            return found
        parent = os.path.dirname(directory)
        if os.path.lexists(os.path.join(directory, ".git")):
            top: str | None = directory
        elif parent == directory:
            top = None
        else:
            top = self.top(parent)
        self.tops[directory] = top
        return top

    def _file(self, path: str) -> _Patterns | None:
        lines = _read_lines(path)
        self.read[path] = None if lines is None else "\n".join(lines)
        return _compile(lines) if lines else None

    def sources_in(self, directory: str, top: str) -> Sources:
        """The ignore files that apply to the entries of `directory`, lowest precedence first."""
        found = self.sources.get(directory)
        if found is not None:
            return found
        inherited: Sources = ()
        if directory == top:
            git_dir = _git_dir(Path(top))
            exclude = self._file(str(git_dir / "info" / "exclude")) if git_dir else None
            inherited = ((_slash(top), exclude),) if exclude is not None else ()
        else:
            inherited = self.sources_in(os.path.dirname(directory), top)
        own = self._file(os.path.join(directory, ".gitignore"))
        found = (*inherited, (_slash(directory), own)) if own is not None else inherited
        self.sources[directory] = found
        return found

    def ignored(self, entry: str, is_dir: bool, top: str) -> bool:
        key = (entry, is_dir)
        found = self.decided.get(key)
        if found is None:
            sources = self.sources_in(os.path.dirname(entry), top)
            found = self.decided[key] = bool(sources) and _decide(sources, entry, is_dir)
        return found


def _slash(directory: str) -> str:
    return directory if directory.endswith("/") else directory + "/"


def _entries(
    target: str, start: str | None, top: str, directory: bool
) -> Iterator[tuple[str, bool]]:
    """`target` and its parents below `start` (below `top` when `start` is None or not under
    it), outermost first, each with whether it is a directory."""
    floor = start if start is not None and start.startswith(_slash(top)) else top
    if not target.startswith(_slash(floor)):
        floor = top
    index = len(_slash(floor))
    while True:
        cut = target.find("/", index)
        if cut < 0:
            yield target, directory
            return
        yield target[:cut], True
        index = cut + 1


@record(frozen=True)
class FileSelection:
    """The selection settings: `exclude` patterns relative to `base` (the settings file's
    folder), whether git's ignore files count, and whether named paths are checked too. The
    defaults leave nothing out; the settings' defaults (lintoptions.file_selection) respect
    .gitignore files, as ruff."""

    base: Path | None = None
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = False
    force_exclude: bool = False
    _ignores: _Ignores = field(default_factory=_Ignores, init=False, repr=False, compare=False)
    _real: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _absolute(self, path: Path | str) -> str:
        """`path` made absolute with its parent's links resolved (once per parent): patterns are
        matched against where the file is, as git sees it."""
        text = os.path.abspath(path)
        parent, name = os.path.split(text)
        resolved = self._real.get(parent)
        if resolved is None:
            resolved = self._real[parent] = os.path.realpath(parent)
        return os.path.join(resolved, name)

    @property
    def _active(self) -> bool:
        return bool(self.exclude) or self.respect_gitignore

    def skips(self, path: Path, *, within: Path | None = None, directory: bool = False) -> bool:
        """Whether `path` is left out. `within`: the named directory the path was found in by
        walking (its entries below that directory are checked); None: the path was named itself,
        left out only with `force_exclude` (it and its parents are checked)."""
        if not self._active or (within is None and not self.force_exclude):
            return False
        start = None if within is None else self._absolute(within)
        return self._skips(self._absolute(path), start, directory)

    def skips_model(self, model_dir: Path | str, *, named: bool = False) -> bool:
        """Whether a model directory is left out: named on the command line (itself, or a
        config file in it), or found in its repository, the directory above it."""
        if not self._active or (named and not self.force_exclude):
            return False
        directory = self._absolute(model_dir)  # the repository resolved, once per run
        start = None if named else os.path.dirname(directory)
        return self._skips(os.path.join(directory, CONFIG_FILENAME), start, False)

    def _skips(self, target: str, start: str | None, directory: bool) -> bool:
        if self.force_exclude:
            start = None
        return self._excluded(target, start, directory) or self._git_ignored(
            target, start, directory
        )

    def _excluded(self, target: str, start: str | None, directory: bool) -> bool:
        patterns = _patterns(self.exclude)
        if patterns is None:
            return False
        base = self._real.get("") or self._real.setdefault(
            "", os.path.realpath(self.base or Path.cwd())
        )
        top = base if target.startswith(_slash(base)) else "/"
        sources = ((_slash(top), patterns),)
        return any(
            _decide(sources, entry, is_dir)
            for entry, is_dir in _entries(target, start, top, directory)
        )

    def _git_ignored(self, target: str, start: str | None, directory: bool) -> bool:
        if not self.respect_gitignore:
            return False
        ignores = self._ignores
        top = ignores.top(os.path.dirname(target))
        if top is None:
            return False
        return any(
            ignores.ignored(entry, is_dir, top)
            for entry, is_dir in _entries(target, start, top, directory)
        )

    def fingerprint(self, paths: Iterable[Path]) -> str:
        """What the ignore files above and at `paths` say (each file's path and text, or its
        absence), for the lint cache's key: a model that becomes ignored by an edit there must
        not be replayed. Files inside a model directory are stamped with the model."""
        if not self.respect_gitignore:
            return ""
        ignores = _Ignores()
        for path in paths:
            target = os.path.realpath(path)
            directory = target if os.path.isdir(target) else os.path.dirname(target)
            top = ignores.top(directory)
            if top is not None:
                ignores.sources_in(directory, top)
        return repr(sorted(ignores.read.items()))

    def walk(self, directory: Path, wanted: Callable[[Path], bool]) -> Iterator[Path]:
        """The files under `directory` (named on the command line) for which `wanted(path)` is
        true and that are not left out; directories left out, links to directories, `.git` and
        the lint cache are not entered."""
        for folder, subfolders, files in os.walk(directory):
            here = Path(folder)
            subfolders[:] = sorted(
                name
                for name in subfolders
                if name not in NEVER_WALKED
                and not self.skips(here / name, within=directory, directory=True)
            )
            for name in sorted(files):
                path = here / name
                if wanted(path) and not self.skips(path, within=directory):
                    yield path


_COMPILED: dict[tuple[str, ...], _Patterns | None] = {}


def _patterns(lines: tuple[str, ...]) -> _Patterns | None:
    if not lines:
        return None
    if lines not in _COMPILED:
        _COMPILED[lines] = _compile(lines)
    return _COMPILED[lines]
