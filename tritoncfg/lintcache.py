"""The lint cache (`.tritoncfg_cache/`): each model's outcome, reused while its inputs are unchanged.

A run's key covers tritoncfg's version, the lint options, the rule selection and the path
filters; a model's key covers its config's bytes, what discovery found in its directory, and the
size and modification time of every file listed there. An entry is used when the model's key is
unchanged and so is the key of every model its cross-model checks asked for (ensemble steps,
transitively): change one model and only it and the models that depend on it are linted again.
Entries are JSON, written atomically; an unreadable or corrupt cache is ignored, never fatal.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tritoncfg import __version__
from tritoncfg.diagnostics import Diagnostic, Fix, Severity, TritonVerdict
from tritoncfg.lintrun import LintJob, ModelOutcome, Selected
from tritoncfg.repository import ModelDir, Repository, RepositoryError
from tritoncfg.repository.reuse import ScanReuse, Signature, signature
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span

CACHE_DIRNAME = ".tritoncfg_cache"
MAX_FILES = 64  # one file per run key and set of linted paths; the oldest beyond this are removed
ABSENT = "absent"  # the key of a model that does not exist (an ensemble step not there yet)


def digest(data: bytes) -> str:
    """A 64-bit checksum (CRC-32 and Adler-32) for naming and keying cache entries: hashlib would
    load OpenSSL, which costs a one-file lint more than its whole cache. The keys it names are
    compared in full where a collision could matter (the run's key is stored in the file)."""
    import zlib

    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def run_key(job: LintJob) -> str:
    backend = job.options.backend_dir
    installed = sorted(os.listdir(backend)) if backend is not None and backend.is_dir() else []
    text = repr(
        (__version__, job.options, sorted(r.code for r in job.rules), job.selection, job.filters)
    )
    return f"{text}{installed}"


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


def model_key(model: ModelDir | None, recorded: Signature | None = None) -> str:
    """What a model's outcome depends on, besides its peers: the modification times and sizes
    of its directories and files, or, where those cannot be trusted (symlinks), what discovery
    found and the files' sizes and times; and always the config's bytes."""
    if model is None:
        return ABSENT
    found = recorded if recorded is not None else signature(model)
    if found is not None:
        text = repr([found, str(model.config_path), model.config_exists])
    else:
        text = repr([repr(model), _stats(model)])
    # The config's bytes always count: a config rewritten with the same size within the file
    # system's timestamp resolution (a tick on ext4) must not keep a stale verdict.
    if model.config_exists:
        try:
            data = model.read_config_bytes()
            text += f"config {len(data)} {digest(data)}"
        except RepositoryError as error:
            text += f"unreadable: {error}"
    return text


def _diagnostic_json(d: Diagnostic) -> list[Any]:
    fix = d.fix
    return [
        d.code, d.rule, d.severity.value, d.message, d.path, list(d.span), d.model,
        None if d.triton is None else [d.triton.phase, d.triton.message],
        None if fix is None else [fix.description, [[list(e.span), e.text] for e in fix.edits], fix.safe],
    ]  # fmt: skip


def _diagnostic(row: list[Any]) -> Diagnostic:
    code, rule, severity, message, path, span, model, triton, fix = row
    return Diagnostic(
        code, rule, Severity(severity), message, path, Span(*span), model,
        None if triton is None else TritonVerdict(*triton),
        None if fix is None else Fix(fix[0], tuple(Edit(Span(*s), t) for s, t in fix[1]), fix[2]),
    )  # fmt: skip


def _entry_name(selected: Selected) -> str:
    return f"{selected.dir.path}\0{selected.dir.config_path}"


class LintCache:
    """One run's view of the cache directory."""

    def __init__(self, directory: Path, job: LintJob, inputs: Iterable[Path]) -> None:
        import json

        # per set of linted paths too: a pre-commit run over a few files reads a small file
        self.run = f"{run_key(job)} {sorted(map(str, inputs))}"
        self.file = directory / f"lint-{digest(self.run.encode())}.json"
        self.directory = directory
        self.entries: dict[str, Any] = {}
        self.hits = 0
        self._own: dict[tuple[str, str], str] = {}
        scans: dict[str, Any] = {}
        try:
            loaded = json.loads(self.file.read_text(encoding="utf-8"))
            if isinstance(loaded, dict) and loaded.get("run") == self.run:
                self.entries = dict(loaded["models"])
                scans = dict(loaded["scans"])
        except (OSError, ValueError, KeyError, TypeError):
            self.entries = {}  # a missing or corrupt cache: lint everything
        self.scans = ScanReuse(scans)

    def own(self, repository: Repository, name: str) -> str:
        key = (str(repository.root), name)
        if key not in self._own:
            model = repository.model(name)
            self._own[key] = model_key(model, self.scans.signature_of(model))
        return self._own[key]

    def lookup(self, selected: Selected) -> ModelOutcome | None:
        """The cached outcome, if the model and every model it depends on are unchanged."""
        entry = self.entries.get(_entry_name(selected))
        try:
            if entry is None or entry["own"] != self.own(selected.repository, selected.dir.name):
                return None
            deps: Mapping[str, str] = entry["deps"]
            if any(self.own(selected.repository, name) != key for name, key in deps.items()):
                return None
            diagnostics = [_diagnostic(row) for row in entry["diagnostics"]]
            routed = [_diagnostic_json(d) for d in selected.routed]
            if routed != entry["routed"]:
                return None
            self.hits += 1
            return ModelOutcome(
                diagnostics, dict(entry["sources"]), bool(entry["linted"]), tuple(entry["direct"])
            )
        except (KeyError, TypeError, ValueError, IndexError):
            return None  # a corrupt entry is linted again

    def store(self, results: Iterable[tuple[Selected, ModelOutcome]]) -> None:
        """Record every model's outcome (with its dependencies' keys) and write the cache."""
        pairs = list(results)
        same_scans = self.scans.reused == len(self.scans.now) == len(self.scans.previous)
        if same_scans and self.hits == len(pairs) == len(self.entries):
            return  # nothing changed: nothing to write
        direct = {(str(s.repository.root), s.dir.name): o.deps for s, o in pairs}
        models: dict[str, Any] = {}
        for selected, outcome in pairs:
            root = str(selected.repository.root)
            closure = _closure(direct, root, selected.dir.name, outcome.deps)
            models[_entry_name(selected)] = {
                "own": self.own(selected.repository, selected.dir.name),
                "deps": {name: self.own(selected.repository, name) for name in sorted(closure)},
                "direct": list(outcome.deps),
                "routed": [_diagnostic_json(d) for d in selected.routed],
                "diagnostics": [_diagnostic_json(d) for d in outcome.diagnostics],
                "sources": outcome.sources,
                "linted": outcome.linted,
            }
        self._write({"run": self.run, "models": models, "scans": self.scans.now})

    def _write(self, content: dict[str, Any]) -> None:
        import json

        from tritoncfg.atomic import write_atomic

        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gitignore = self.directory / ".gitignore"
            if not gitignore.exists():
                write_atomic(gitignore, "# written by tritoncfg\n*\n")
            write_atomic(self.file, json.dumps(content, separators=(",", ":")))
            files = sorted(self.directory.glob("lint-*.json"), key=lambda p: p.stat().st_mtime)
            for old in files[:-MAX_FILES]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only checkout: lint works, only uncached


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
