"""Replaying a whole unchanged lint: the cache's fast path.

After a lint of whole repositories, the cache records its result and a stamp (times, size, inode;
see `repository.reuse`) of everything discovery listed and the checks read: each input path,
each repository root (its modification time changes when a model is added, removed or renamed),
and each model's directories and files, ensemble steps included. The next run with the same key
`stat`s those paths, and when every stamp is unchanged and settled it gives the recorded result
without listing a directory or reading a config. A config whose stamp is unchanged but too recent
to be trusted is read and compared by checksum; any other doubt falls back to the model-by-model
cache. Nothing is recorded where a stamp cannot stand for what was read: a root holding a
symlink, a model with one (its scan carries no signature), or a run over some models of a
repository (the others, read on demand, are not stamped).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.lintcache.codec import DAMAGE, are_strings, encode, file_digest, pack, unpack
from tritoncfg.repository import Repository
from tritoncfg.repository.reuse import SETTLE_NS, Signature, settled, stamp


def _root_has_symlink(root: str) -> bool:
    try:
        with os.scandir(root) as entries:
            return any(entry.is_symlink() for entry in entries)
    except OSError:
        return True


def paths_stamps(
    repositories: tuple[Repository, ...], signatures: Iterable[Signature | None]
) -> list[list[Any]] | None:
    """The stamps a replay depends on; None when a replay could not be trusted."""
    rows: dict[str, list[Any]] = {}
    try:
        for repository in repositories:
            root = str(repository.root)
            if repository.context_names or _root_has_symlink(root):
                return None
            for path in (repository.root, *repository.inputs):
                if os.path.islink(path):
                    return None
                rows[str(path)] = stamp(str(path), is_dir=path.is_dir())
    except OSError:
        return None
    for found in signatures:
        if found is None:
            return None
        rows.update((row[0], row) for row in found)
    return list(rows.values())


def record_replay(
    run: str,
    started: int,
    stamps: list[list[Any]],
    configs: Mapping[str, str],
    result: dict[str, Any],
    rows: Mapping[int, tuple[Diagnostic, list[Any]]],
) -> dict[str, Any]:
    """The replay file's content. `result`: the LintResult's fields, `diagnostics` as Diagnostic;
    `rows`: findings read from the cache with their JSON rows, by `id` (not encoded again)."""
    wanted = {row[0] for row in stamps}
    return {
        "run": run,
        "started": started,
        "stamps": stamps,
        "configs": {path: key for path, key in configs.items() if path in wanted},
        "result": {
            **result,
            "diagnostics": pack(_row(d, rows) for d in result["diagnostics"]),
            "sources": sorted(result["sources"]),
        },
    }


def _row(d: Diagnostic, rows: Mapping[int, tuple[Diagnostic, list[Any]]]) -> list[Any]:
    known = rows.get(id(d))
    return known[1] if known is not None and known[0] is d else encode(d)


def validate(content: Any, run: str) -> tuple[dict[str, Any], bool] | None:
    """The recorded result if every stamp still holds (with its diagnostics decoded), and whether
    a recent config had to be read to know; None when anything changed or is in doubt, the
    content damaged or of the wrong types included."""
    try:
        if content["run"] != run:
            return None
        started = content["started"]
        if type(started) is not int:
            return None  # (JSON's Infinity, a float, would not convert)
        trusted_before = started - SETTLE_NS
        configs: Mapping[str, str] = content["configs"]
        reread = False
        for row in content["stamps"]:
            if type(row[0]) is not str or stamp(row[0], is_dir=row[3] == -1) != row:
                return None  # (a number would be taken for a file descriptor)
            if not settled(row, trusted_before):
                known = configs.get(row[0])
                if known is None or file_digest(row[0]) != known:
                    return None
                reread = True
        return _result(content["result"]), reread
    except (OSError, *DAMAGE):
        return None


def _result(recorded: dict[str, Any]) -> dict[str, Any]:
    """LintResult's fields as recorded, each of its type (DAMAGE raised otherwise)."""
    counts = [recorded["files"], recorded["models"]]
    lists = [recorded["sources"], recorded["file_paths"], recorded["relinted"], recorded["notes"]]
    if any(type(n) is not int for n in counts) or not all(map(are_strings, lists)):
        raise TypeError("a recorded result of the wrong types")
    diagnostics: list[Diagnostic] = unpack(recorded["diagnostics"])
    files, models = counts
    sources, file_paths, relinted, notes = lists
    return {"diagnostics": diagnostics, "files": files, "models": models, "sources": sources,
            "file_paths": file_paths, "relinted": relinted, "notes": notes}  # fmt: skip
