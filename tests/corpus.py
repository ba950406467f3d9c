"""Test support: the corpora in ../shared/corpus (skipped with a clear reason when absent)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
REAL_WORLD = CORPUS / "real_world"
TRITON_QA = CORPUS / "triton_qa"


def require_corpus(part: Path = CORPUS) -> Path:
    if not part.is_dir():
        pytest.skip(
            f"corpus not found at {part} (it lives in ../shared/corpus beside the checkout)"
        )
    return part


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
