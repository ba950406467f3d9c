"""The lint cache (`.tritoncfg_cache/`): each model's outcome, reused while its inputs are unchanged.

A run's key covers tritoncfg's version, the lint options, the rule selection, the path
filters and the `.gitignore` files above the paths (file_selection.py); a model's key covers its config's bytes (a checksum), what discovery found in its
directory, and the stamp (times, size, inode) of every directory and file listed there. An entry
is used when the model's key is unchanged and so is the key of every model its cross-model checks
asked for (ensemble steps, transitively): change one model and only it and the models that depend
on it are linted again. A whole unchanged run is replayed from one small file without listing or
reading anything (`replay.py`). Files are JSON, written atomically; anything the cache cannot
read (damaged, edited, of the wrong types) counts as absent and is overwritten, never fatal. The
directory is used only when it is tritoncfg's and not a symlink (`folder.py`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg import __version__
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.lintcache.codec import DAMAGE, are_strings, decode, digest, encode, load
from tritoncfg.lintcache.folder import CacheFolder
from tritoncfg.lintcache.replay import paths_stamps, record_replay, validate
from tritoncfg.repository import ModelDir, Repository, RepositoryError
from tritoncfg.repository.mentions import Mentions
from tritoncfg.repository.reuse import SETTLE_NS, ScanReuse, Signature, settled, signature
from tritoncfg.sourcetexts import SourceTexts

if TYPE_CHECKING:  # the lint run imports the rules: a replayed run needs none of it
    from tritoncfg.lintrun import LintJob, ModelOutcome, Selected

CACHE_DIRNAME = ".tritoncfg_cache"
MAX_FILES = 64  # run keys and sets of linted paths kept; the oldest beyond this are removed
ABSENT = "absent"  # the key of a model that does not exist (an ensemble step not there yet)
FORMAT = 3  # the layout of the cache files


def run_key(job: LintJob) -> str:
    backend = job.options.backend_dir
    installed = [] if backend is None else [*installed_names(backend), "|"]
    if backend is not None:  # the repository agents beside it (TC124)
        installed += installed_names(backend.parent / "repoagents")
    text = repr(
        (FORMAT, __version__, code_stamp(PACKAGE), job.options, sorted(job.codes),
         job.selection, job.filters)
    )  # fmt: skip
    return f"{text}{installed}"


INSTALLED_DEPTH = 3  # <backend-dir>/<backend>/<runtime>, and a runtime one folder below that


def installed_names(folder: Path) -> list[str]:
    """What the backend rules may look up under `folder` (--backend-dir): each path below it, down
    to INSTALLED_DEPTH levels (links not followed), in order. A library removed from
    `<backend-dir>/onnxruntime/` while the folder stays must change the run's key: a replayed run
    would otherwise pass a model whose backend Triton no longer finds (TC120)."""
    found = []
    top = str(folder)
    for current, subfolders, files in os.walk(folder):
        relative = os.path.relpath(current, top)
        depth = 0 if relative == "." else relative.count(os.sep) + 1
        if depth >= INSTALLED_DEPTH:
            subfolders[:] = []
        subfolders.sort()
        prefix = "" if relative == "." else relative + "/"
        found += [prefix + name for name in sorted([*subfolders, *files])]
    return found


PACKAGE = Path(__file__).resolve().parent.parent  # tritoncfg's own files
_CODE_STAMPS: dict[Path, str] = {}


def code_stamp(package: Path) -> str:
    """A checksum of the size and time of each module of `package`: a checkout changed without a
    new version (an editable install, a `git pull`) must not replay what the older code found.
    Stats only, some 200 files: about a millisecond, once per process."""
    found = _CODE_STAMPS.get(package)
    if found is None:
        stamps = []
        for folder, subfolders, files in os.walk(package):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".tsv")):
                    info = os.stat(os.path.join(folder, name))
                    stamps.append((os.path.join(folder, name), info.st_size, info.st_mtime_ns))
        found = _CODE_STAMPS[package] = digest(repr(stamps).encode())
    return found


def _stats(model: ModelDir) -> list[tuple[str, int, int]]:
    paths = [e.path for e in model.entries if e.is_file]
    paths += [e.path for v in model.versions for e in v.entries if e.is_file]
    paths += [*model.alternative_configs, *(e.path for e in model.warmup_entries)]
    paths += [e.path for e in model.initial_state_entries]
    found = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        found.append((str(path), info.st_size, info.st_mtime_ns))
    return found


def _config_key(
    model: ModelDir, found: Signature | None, known: Mapping[str, Any], trusted: int
) -> str:
    """The config's checksum: the recorded one while its stamp is unchanged and settled (a
    config rewritten with the same size within a timestamp tick is never settled), else read."""
    path = str(model.config_path)
    row = next((r for r in found or () if r[0] == path), None)
    previous = known.get(path)
    if (
        row is not None
        and type(previous) is list
        and len(previous) == 2
        and previous[0] == row
        and type(previous[1]) is str
        and settled(row, trusted)
    ):
        return previous[1]
    try:
        data = model.read_config_bytes()
    except RepositoryError as error:
        return f"unreadable: {error}"
    return f"config {len(data)} {digest(data)}"


class LintCache:
    """One run's view of the cache directory: `replay` first, else `scans` and `lookup` while
    linting, then `store`."""

    def __init__(self, directory: Path, job: LintJob, inputs: Iterable[Path]) -> None:
        self.started = time.time_ns()
        # per set of linted paths too: a pre-commit run over a few files reads a small file
        inputs = sorted(inputs)
        # and per content of the .gitignore files above them: a model they come to ignore (or
        # take back) must not be replayed from a run that linted it (or left it out)
        ignores = job.filters.files.fingerprint(inputs)
        self.run = f"{run_key(job)} {[str(i) for i in inputs]} {ignores}"
        name = digest(self.run.encode())
        self.file = f"lint-{name}.json"
        self.replay_file = f"replay-{name}.json"
        self.directory = directory
        self.folder = CacheFolder(directory)
        self.hits = 0
        self._own: dict[tuple[str, str], str] = {}
        self._signatures: dict[tuple[str, str], Signature | None] = {}
        self._configs: dict[str, Any] = {}  # config path -> [its stamp, its checksum key]
        self._loaded: dict[str, Any] | None = None
        self._hits: dict[str, Any] = {}  # the entries used, by name
        self._rows: dict[int, tuple[Diagnostic, list[Any]]] = {}  # id -> a cached finding, its row
        self._scans: ScanReuse | None = None

    def replay(self) -> dict[str, Any] | None:
        """The whole recorded result (LintResult's fields) when nothing it depends on changed."""
        content = load(self.folder.read(self.replay_file))
        found = validate(content, self.run)
        if found is None:
            return None
        result, reread = found
        if reread:  # the recent configs are verified now: settle them for the next run
            self._write({self.replay_file: {**content, "started": self.started}})
        result["sources"] = SourceTexts(on_disk=result["sources"])
        return result

    @property
    def _content(self) -> dict[str, Any]:
        if self._loaded is None:
            loaded = load(self.folder.read(self.file))  # missing or corrupt: lint everything
            ok = isinstance(loaded, dict) and loaded.get("run") == self.run
            self._loaded = loaded if ok else {}
        return self._loaded

    def _recorded(self, key: str) -> dict[str, Any]:
        found = self._content.get(key)
        return found if isinstance(found, dict) else {}

    @property
    def trusted_before(self) -> int:
        started = self._content.get("started")
        return started - SETTLE_NS if type(started) is int else 0

    @property
    def scans(self) -> ScanReuse:
        """Discovery's scanner, answering from the recorded scans that still hold."""
        if self._scans is None:
            self._scans = ScanReuse(self._recorded("scans"), self.trusted_before)
        return self._scans

    def own(self, repository: Repository, name: str) -> str:
        key = (str(repository.root), name)
        if key not in self._own:
            model = repository.model(name)
            if model is None:
                self._own[key] = ABSENT
                return ABSENT
            found = self.scans.signature_of(model)
            found = found if found is not None else signature(model)
            self._signatures[key] = found
            if found is not None:
                text = repr([found, str(model.config_path), model.config_exists])
            else:
                text = repr([repr(model), _stats(model)])
            if model.config_exists:
                config = _config_key(model, found, self._recorded("configs"), self.trusted_before)
                text += config
                row = next((r for r in found or () if r[0] == str(model.config_path)), None)
                if row is not None:
                    self._configs[str(model.config_path)] = [row, config]
            self._own[key] = text
        return self._own[key]

    def lookup(self, selected: Selected) -> ModelOutcome | None:
        """The cached outcome, if the model and every model it depends on are unchanged."""
        from tritoncfg.lintrun import ModelOutcome

        entry = self._recorded("models").get(_entry_name(selected))
        try:
            if entry is None or entry["own"] != self.own(selected.repository, selected.dir.name):
                return None
            deps: Mapping[str, str] = entry["deps"]
            if any(self.own(selected.repository, name) != key for name, key in deps.items()):
                return None
            if [encode(d) for d in selected.routed] != entry["routed"]:
                return None
            rows = entry["diagnostics"]
            diagnostics = [decode(row) for row in rows]
            sources, direct = entry["sources"], entry["direct"]
            if not (are_strings(sources) and are_strings(direct) and type(entry["linted"]) is bool):
                return None
            self.hits += 1
            self._hits[_entry_name(selected)] = entry  # stored again as it is
            self._rows.update((id(d), (d, row)) for d, row in zip(diagnostics, rows, strict=True))
            texts = SourceTexts(on_disk=sources)
            return ModelOutcome(diagnostics, texts, entry["linted"], tuple(direct))
        except DAMAGE:
            return None  # a corrupt entry is linted again

    def store(
        self,
        repositories: tuple[Repository, ...],
        results: Iterable[tuple[Selected, ModelOutcome]],
        result: dict[str, Any],
    ) -> None:
        """Record every model's outcome (with its dependencies' keys), the scans, and for a
        replay the whole `result` (LintResult's fields), then write the cache files."""
        pairs = list(results)
        direct = {(str(s.repository.root), s.dir.name): o.deps for s, o in pairs}
        models: dict[str, Any] = {}
        for selected, outcome in pairs:
            name = _entry_name(selected)
            if name in self._hits:  # its key and its dependencies' keys are unchanged
                models[name] = self._hits[name]
                continue
            root = str(selected.repository.root)
            closure = _closure(direct, root, selected.dir.name, outcome.deps)
            models[name] = {
                "own": self.own(selected.repository, selected.dir.name),
                "deps": {name: self.own(selected.repository, name) for name in sorted(closure)},
                "direct": list(outcome.deps),
                "routed": [encode(d) for d in selected.routed],
                "diagnostics": [encode(d) for d in outcome.diagnostics],
                "sources": sorted(outcome.sources),
                "linted": outcome.linted,
            }
        configs = {path: key for path, (_, key) in self._configs.items()}
        content = {"run": self.run, "started": self.started, "models": models,
                   "scans": self.scans.now, "configs": self._configs}  # fmt: skip
        stamps = paths_stamps(repositories, self._signatures.values())
        if stamps is None:
            self._write({self.file: content}, remove=(self.replay_file,))
        else:
            replay = record_replay(self.run, self.started, stamps, configs, result, self._rows)
            self._write({self.file: content, self.replay_file: replay})

    def mentions(self, root: Path) -> Mentions:
        """What the bytes of the configs of the repository at `root` showed (the search for the
        ensembles that run a linted model reads only the configs changed since)."""
        content = load(self.folder.read(_mentions_file(root)))
        if not isinstance(content, dict) or content.get("format") != FORMAT:
            return Mentions({}, 0)
        recorded, started = content.get("configs"), content.get("started")
        if not isinstance(recorded, dict) or type(started) is not int:
            return Mentions({}, 0)
        return Mentions(recorded, started)

    def store_mentions(self, root: Path, mentions: Mentions) -> None:
        if mentions.changed:
            content = {"format": FORMAT, "started": self.started, "configs": mentions.now}
            self._write({_mentions_file(root): content})

    def _write(self, files: Mapping[str, dict[str, Any]], remove: tuple[str, ...] = ()) -> None:
        import json

        data = {
            # built here, never cyclic: the check for cycles was a third of the encoding
            name: json.dumps(content, separators=(",", ":"), check_circular=False).encode()
            for name, content in files.items()
        }
        self.folder.write(data, remove=remove, keep=MAX_FILES)


def _mentions_file(root: Path) -> str:
    return f"mentions-{digest(str(root).encode())}.json"


def _entry_name(selected: Selected) -> str:
    return f"{selected.dir.path}\0{selected.dir.config_path}"


def _closure(
    direct: Mapping[tuple[str, str], tuple[str, ...]], root: str, name: str, deps: tuple[str, ...]
) -> set[str]:
    """Every model `name` depends on, through the dependencies recorded in this run."""
    seen: set[str] = set()
    todo = list(deps)
    while todo:
        current = todo.pop()
        if current in seen or current == name:
            continue
        seen.add(current)
        todo.extend(direct.get((root, current), ()))
    return seen
