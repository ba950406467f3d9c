"""The facts discovery finds on disk: repository → model directories → versions → entries.

Plain frozen dataclasses. Nothing here parses a config; the text stage wraps a `ModelDir`
with its syntax tree and message later.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tritoncfg.confined import PathRefused, read_regular
from tritoncfg.record import field, record

if TYPE_CHECKING:
    from tritoncfg.text.span import Span

CONFIG_FILENAME = "config.pbtxt"
CONFIGS_DIRNAME = "configs"
WARMUP_DIRNAME = "warmup"
INITIAL_STATE_DIRNAME = "initial_state"

RepositoryKind = Literal["repository", "model", "file"]


def is_json_path(path: object) -> bool:
    """Whether a config file is JSON (by its suffix, in any case): what Triton's load API takes
    as a config override and GET /v2/models/<m>/config returns; any other is text format."""
    return str(path).lower().endswith(".json")


IssueKind = Literal[
    "not_a_directory",  # `ModelRepositoryManager::Poll`: `repository path is not a valid directory`
    "root_file",  # a plain file at the repository root; Triton ignores it
    "hidden_model_dir",  # `Poll` (model_repository_manager.cc): `.git`, `.ipynb_checkpoints` are polled as models and fail
    "symlink_outside_root",  # reported, never followed
    "broken_symlink",  # dangling or looping link
    "unreadable_dir",  # PermissionError and friends while listing
    "missing_config",  # no config file: empty config (auto-complete) or an error (strict)
    "config_name_not_found",  # `GetModelConfigFullPath`: --model-config-name falls back to config.pbtxt
    "unconventional_config_file",  # a file Triton would never read as a model config
]

IgnoredCause = Literal["leading_zeros", "not_integral", "out_of_range"]


def byte_order(name: str) -> bytes:
    """Sort key ordering names as C++ std::set<std::string> does: by raw bytes."""
    return os.fsencode(name)


def _itself(name: str) -> str:
    return name


def byte_key(names: Iterable[str]) -> Callable[[str], Any]:
    """The sort key that orders `names` as `byte_order` does: for names all ASCII (the usual
    case) the name itself, which orders them the same without encoding each."""
    return _itself if all(name.isascii() for name in names) else byte_order


UNREAD = -1  # an `Entry` size not read yet


@record(frozen=True)
class Entry:
    """One top-level item of a directory. A symlink leaving the root is not followed:
    `outside_root` is set and `is_dir`/`is_file` are False."""

    name: str
    parent: Path  # the directory listed
    is_dir: bool
    is_file: bool
    is_symlink: bool
    stat_size: int | None = field(compare=False)  # `size`, or UNREAD
    outside_root: bool = False

    @property
    def path(self) -> Path:
        """`parent / name`, built when asked for: most entries are only looked up by name."""
        return self.parent / self.name

    @property
    def size(self) -> int | None:
        """Bytes, for regular files only; read when first asked for (few sizes ever are)."""
        size = self.stat_size
        if size == UNREAD:
            try:
                size = os.stat(os.path.join(self.parent, self.name)).st_size
            except OSError:
                size = None
            object.__setattr__(self, "stat_size", size)  # a cache: not compared, not hashed
        return size


def find_entry(entries: tuple[Entry, ...], name: str) -> Entry | None:
    for entry in entries:
        if entry.name == name:
            return entry
    return None


@record(frozen=True)
class Version:
    """A numeric version directory, as `model_lifecycle.cc:VersionsToLoad` finds it."""

    number: int
    dirname: str  # the directory on disk; `1` is preferred when `1` and `1abc` both give 1
    path: Path
    entries: tuple[Entry, ...]
    aliases: tuple[str, ...] = ()  # other directory names that collapsed into this number

    @property
    def loads_from(self) -> Path:
        """Triton builds the version path as `<model>/<number>` (`JoinPath({model_path,
        std::to_string(version)})`), so `1abc/` is loaded from `1/`, which may not exist."""
        return self.path.parent / str(self.number)

    @property
    def dirname_is_canonical(self) -> bool:
        return self.dirname == str(self.number)

    def entry(self, name: str) -> Entry | None:
        return find_entry(self.entries, name)

    def has_file(self, name: str) -> bool:
        entry = self.entry(name)
        return entry is not None and entry.is_file

    def has_dir(self, name: str) -> bool:
        entry = self.entry(name)
        return entry is not None and entry.is_dir


@record(frozen=True)
class IgnoredDir:
    """A subdirectory `VersionsToLoad` skips, with the warning Triton logs."""

    name: str
    cause: IgnoredCause
    reason: str


@record(frozen=True)
class LayoutIssue:
    """A fact about the layout that a rule may turn into a diagnostic."""

    kind: IssueKind
    path: Path
    detail: str
    model: str | None = None


class RepositoryError(Exception):
    """A file that discovery was asked to read could not be read."""

    def __init__(self, path: Path, reason: str, *, span: Span | None = None) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.span = span  # where in the file, for a decoding error


@record(frozen=True)
class ModelDir:
    """One immediate subdirectory of a repository: Triton polls every one as a model."""

    name: str
    path: Path
    root: Path  # the repository root; nothing outside it is ever read
    accessible: bool  # False when the directory could not be listed or leaves the root
    config_path: Path
    config_name: str | None  # the `configs/<name>.pbtxt` in use; None means config.pbtxt
    config_exists: bool
    alternative_configs: tuple[Path, ...]
    entries: tuple[Entry, ...]
    subdirs_sorted: tuple[str, ...]
    detection_dir: (
        Path | None
    )  # `AutoCompleteBackendFields` looks in the byte-wise first subdirectory, numeric or not
    detection_entries: tuple[Entry, ...]
    versions: tuple[Version, ...]
    ignored_version_dirs: tuple[IgnoredDir, ...]
    warmup_entries: tuple[Entry, ...]  # the regular files of warmup/, with their sizes
    initial_state_entries: tuple[Entry, ...]  # the regular files of initial_state/
    # the directory with every symlink resolved, known to be inside the root; None if inaccessible
    real_path: Path | None = None

    @property
    def is_hidden(self) -> bool:
        return self.name.startswith(".")

    @property
    def warmup_files(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.warmup_entries)

    @property
    def initial_state_files(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.initial_state_entries)

    @property
    def files_in_model_dir(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries if e.is_file)

    @property
    def version_numbers(self) -> tuple[int, ...]:
        return tuple(v.number for v in self.versions)

    def version(self, number: int) -> Version | None:
        return next((v for v in self.versions if v.number == number), None)

    def entry(self, name: str) -> Entry | None:
        return find_entry(self.entries, name)

    def resolve(self, relpath: str) -> Path | None:
        """The path `relpath` names inside the model directory, or None when it escapes it
        (by `..` or by a symlink). Existence is not checked.

        Leading `/` are dropped as Triton's `JoinPath` does: `"/x"` joins to `<model>/x`."""
        candidate = Path(os.path.normpath(self.path / relpath.lstrip("/")))
        if not candidate.is_relative_to(self.path):
            return None
        if self._plain_child(candidate):
            return candidate
        try:
            real = candidate.resolve()
            inside = real.is_relative_to(self.real_path or self.path.resolve())
        except (OSError, RuntimeError):
            return None
        return candidate if inside else None

    def _plain_child(self, path: Path) -> bool:
        """Whether `path` is a direct child that discovery listed as no symlink, or did not list
        (it does not exist): either way it resolves inside the model directory, with no syscall.
        """
        if self.real_path is None:
            return False
        # the same text is the same path (another text may still be: the Path comparison decides)
        if os.path.dirname(path) != str(self.path) and path.parent != self.path:
            return False
        entry = self.entry(path.name)
        return entry is None or not entry.is_symlink

    def _real_config_path(self) -> str:
        path = self.config_path
        if self.real_path is not None and self._plain_child(path):
            # scan checked that real_path is inside the root
            return os.path.join(self.real_path, path.name)
        try:
            real = path.resolve()
        except (OSError, RuntimeError) as error:
            raise RepositoryError(path, f"cannot resolve path: {error}") from error
        if not real.is_relative_to(self.root.resolve()):
            raise RepositoryError(path, "refusing to read outside the repository root")
        return str(real)

    def read_config_bytes(self) -> bytes:
        """The selected config file's raw bytes. Raises `RepositoryError`."""
        path = self.config_path
        real = self._real_config_path()
        try:
            return read_regular(real)  # never opens a FIFO or device; bounded size
        except PathRefused as error:
            raise RepositoryError(path, error.strerror or str(error)) from error
        except OSError as error:
            reason = f"failed to open text file for read: {error.strerror or error}"
            raise RepositoryError(path, reason) from error

    def read_config(self) -> str:
        """The selected config file decoded as UTF-8. Raises `RepositoryError`."""
        data = self.read_config_bytes()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            from tritoncfg.text.decoding import Utf8Error

            bad = Utf8Error(error)
            raise RepositoryError(self.config_path, bad.reason, span=bad.span) from error


@record(frozen=True)
class Repository:
    """What `discover` found. `models` are the ones to check; the other models of the same root
    (`context_names`) are there only so cross-model (ensemble) checks can see them, and are
    scanned when first asked for: linting one file of a large repository stays fast."""

    root: Path
    kind: RepositoryKind
    models: tuple[ModelDir, ...]
    context_names: tuple[str, ...]
    issues: tuple[LayoutIssue, ...]
    inputs: tuple[Path, ...]  # the paths discovery was given
    scan: Callable[[str], ModelDir] | None = field(default=None, compare=False, repr=False)
    _scanned: dict[str, ModelDir] = field(default_factory=dict, compare=False, repr=False)
    _selected: dict[str, ModelDir] = field(default_factory=dict, compare=False, repr=False)
    _context_set: set[str] = field(default_factory=set, compare=False, repr=False)

    def _context(self, name: str) -> ModelDir | None:
        if self.scan is None:
            return None
        if not self._context_set:  # a set: a repository may have 20,000 models
            self._context_set.update(self.context_names)
        if name not in self._context_set:
            return None
        if name not in self._scanned:
            self._scanned[name] = self.scan(name)
        return self._scanned[name]

    @property
    def context_models(self) -> tuple[ModelDir, ...]:
        found = (self._context(name) for name in self.context_names)
        return tuple(m for m in found if m is not None)

    @property
    def all_models(self) -> tuple[ModelDir, ...]:
        """Every model of the root once (by name), selected ones first for a duplicated name."""
        seen: dict[str, ModelDir] = {}
        for model in (*self.models, *self.context_models):
            seen.setdefault(model.name, model)
        return tuple(sorted(seen.values(), key=lambda m: byte_order(m.name)))

    def model(self, name: str) -> ModelDir | None:
        if not self._selected and self.models:  # by name, the first of a duplicated name
            for model in reversed(self.models):
                self._selected[model.name] = model
        selected = self._selected.get(name)
        return selected if selected is not None else self._context(name)
