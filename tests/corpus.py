"""Test support: the corpora in ../shared/corpus (skipped with a clear reason when absent)."""

from __future__ import annotations

import csv
import os
import shutil
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# TRITONCFG_CORPUS points the tests at another copy (or, set to a missing folder, checks that
# every corpus test skips with the message below).
CORPUS = Path(os.environ.get("TRITONCFG_CORPUS") or ROOT.parent / "shared" / "corpus")
REAL_WORLD = CORPUS / "real_world"
TRITON_QA = CORPUS / "triton_qa"


def missing_corpus(part: Path = CORPUS) -> str:
    """The one skip message of every corpus test."""
    return f"corpus not found at {part} (it lives in ../shared/corpus beside the checkout)"


def require_corpus(part: Path = CORPUS) -> Path:
    if not part.is_dir():
        pytest.skip(missing_corpus(part))
    return part


def parametrize_corpus(
    part: Path, argnames: str, values: Sequence[Any], ids: Callable[[Any], str]
) -> pytest.MarkDecorator:
    """`pytest.mark.parametrize(argnames, values)` over cases read from the corpus `part`. When
    `part` is missing: one case, skipped with `missing_corpus`'s message (pytest would say only
    "got empty parameter set"). When it is there but gives no case, collection fails: the
    harness read it wrong."""
    if not part.is_dir():
        width = len([name for name in argnames.split(",") if name.strip()])
        placeholder = (None,) * width
        skip = pytest.mark.skip(reason=missing_corpus(part))
        return pytest.mark.parametrize(
            argnames, [pytest.param(*placeholder, id="corpus-missing", marks=skip)]
        )
    if not values:
        raise AssertionError(f"no {argnames} cases found in {part}")
    return pytest.mark.parametrize(argnames, values, ids=[ids(value) for value in values])


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def corpus_config_files() -> list[Path]:
    """Every text-format file in both corpora: *.pbtxt, and the QA `expected*` files (autofill
    results are configs; invalid-case patterns are not, and both parsers must reject them alike)."""
    if not CORPUS.is_dir():
        return []
    found = set(CORPUS.rglob("*.pbtxt"))
    found.update(p for p in TRITON_QA.rglob("expected*") if p.is_file() and p.suffix != ".json")
    return sorted(found)


def copy_tree(src: Path, dst: Path, *, skip: Callable[[Path], bool] | None = None) -> None:
    """Copy every file and folder under `src` into `dst` as plain, writable files (the corpus is
    read-only, and `shutil.copytree` would copy that mode onto the folders). `skip(rel)` leaves
    out a path relative to `src` (and, for a folder, all under it)."""
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        rel = entry.relative_to(src)
        if skip is not None and skip(rel):
            continue
        target = dst / entry.name
        if entry.is_dir() and not entry.is_symlink():
            copy_tree(entry, target, skip=None if skip is None else _under(rel, skip))
        elif entry.is_file():
            shutil.copyfile(entry, target)


def _under(prefix: Path, skip: Callable[[Path], bool]) -> Callable[[Path], bool]:
    return lambda rel: skip(prefix / rel)


def touch(path: Path) -> None:
    """An empty file (and its folders), unless the path already exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.touch()


# A triton_qa case id is its folder with `__` for `/`, under the folder its first part names.
QA_FOLDERS: dict[str, tuple[str, ...]] = {
    "L0_model_config": ("L0_model_config",),
    "server_qa": ("other_qa", "server"),
    "dali_qa": ("other_qa", "dali_backend"),
}


def qa_case_dir(case_id: str) -> Path:
    """`L0_model_config__a__b` -> L0_model_config/a/b; `server_qa__d__n` -> other_qa/server/d/n;
    `dali_qa__d__n` -> other_qa/dali_backend/d/n."""
    head, *rest = case_id.split("__")
    if head not in QA_FOLDERS:
        raise ValueError(f"{case_id}: unknown triton_qa case prefix {head!r} (see QA_FOLDERS)")
    return TRITON_QA.joinpath(*QA_FOLDERS[head], *rest)


@cache
def qa_index() -> list[dict[str, str]]:
    """INDEX.tsv: one row per case."""
    return read_tsv(TRITON_QA / "INDEX.tsv")


@cache
def qa_setup() -> dict[str, list[dict[str, str]]]:
    """SETUP.tsv rows (the test.sh layout steps), by case id."""
    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in read_tsv(TRITON_QA / "SETUP.tsv"):
        rows[row["case_id"]].append(row)
    return dict(rows)


def _oracle_file(rel: Path) -> bool:
    """The test's own `expected*` files are not part of what Triton loads."""
    return rel.name.startswith("expected")


def materialize_qa_case(
    case_dir: Path,
    dest: Path,
    setup: list[dict[str, str]],
    *,
    setup_base: Path | None = None,
    extra_folders: tuple[str, ...] = (),
) -> list[str]:
    """Copy a triton_qa case to `dest` as its test.sh lays it out: the case's own `expected*`
    files are left out (Triton never loads them), SETUP.tsv's folders are created and its
    `materialized` files recreated (empty where the corpus has no copy), then `extra_folders`
    (test.sh steps SETUP.tsv does not replay). Returns a note per file recreated empty, per
    `missing` artefact that could not be, and per extra folder."""
    base = setup_base or case_dir
    copy_tree(case_dir, dest, skip=_oracle_file)
    notes: list[str] = []
    for row in setup:
        rel = Path(row["target_path"]).relative_to(base.relative_to(TRITON_QA))
        if _oracle_file(rel):
            continue
        target, status = dest / rel, row["status"]
        if status.startswith("created"):
            target.mkdir(parents=True, exist_ok=True)
        elif status.startswith("materialized"):
            if not target.exists():
                touch(target)
                notes.append(f"recreated empty: {rel}")
        elif status.startswith("missing"):
            notes.append(f"missing (not recreated): {rel}")
        else:
            raise AssertionError(f"{row['case_id']}: unknown SETUP status {status!r}")
    for folder in extra_folders:
        (dest / folder).mkdir(parents=True, exist_ok=True)
        notes.append(f"created (test.sh step not in SETUP.tsv): {folder}/")
    return notes
