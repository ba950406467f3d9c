"""Discovery over the real-world corpus: never raises, always finds the config."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tritoncfg.repository import discover

CORPUS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "real_world").resolve()


def _config_files() -> list[Path]:
    index = CORPUS / "INDEX.tsv"
    if not index.is_file():
        return []
    with index.open(encoding="utf-8", newline="") as handle:
        return [CORPUS / row["corpus_path"] for row in csv.DictReader(handle, delimiter="\t")]


CONFIGS = _config_files()
MODEL_DIRS = sorted({p.parent for p in CONFIGS if p.name == "config.pbtxt"})
needs_corpus = pytest.mark.skipif(
    not CONFIGS, reason=f"real-world corpus not found at {CORPUS} (../shared/corpus/real_world)"
)


@needs_corpus
@pytest.mark.parametrize("model_dir", MODEL_DIRS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_model_dir(model_dir: Path) -> None:
    repo = discover(model_dir)
    assert repo.kind == "model"
    (model,) = repo.models
    assert model.config_exists
    assert model.config_path == model_dir / "config.pbtxt"
    model.read_config()


@needs_corpus
@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_config_file(config: Path) -> None:
    repo = discover(config)
    assert repo.kind == "file"
    (model,) = repo.models
    assert model.config_exists and model.config_path == config


@needs_corpus
def test_corpus_counts() -> None:
    roots = {discover(config).root for config in CONFIGS}
    versions = sum(len(discover(d).models[0].versions) for d in MODEL_DIRS)
    unconventional = sum(
        any(i.kind == "unconventional_config_file" for i in discover(c).issues) for c in CONFIGS
    )
    print(
        f"\nreal_world corpus: {len(CONFIGS)} configs, {len(MODEL_DIRS)} model dirs, "
        f"{len(roots)} repository roots, {versions} version dirs, "
        f"{unconventional} configs outside Triton's layout"
    )
    assert len(MODEL_DIRS) > 0
