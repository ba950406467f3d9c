"""Discovery over the real-world corpus: never raises, always finds the config."""

from __future__ import annotations

from pathlib import Path

from corpus import REAL_WORLD, parametrize_corpus, read_tsv, require_corpus

from tritoncfg.repository import discover


def _config_files() -> list[Path]:
    index = REAL_WORLD / "INDEX.tsv"
    if not index.is_file():
        return []
    return [REAL_WORLD / row["corpus_path"] for row in read_tsv(index)]


CONFIGS = _config_files()
MODEL_DIRS = sorted({p.parent for p in CONFIGS if p.name == "config.pbtxt"})


def _relative(path: Path) -> str:
    return str(path.relative_to(REAL_WORLD))


@parametrize_corpus(REAL_WORLD, "model_dir", MODEL_DIRS, ids=_relative)
def test_model_dir(model_dir: Path) -> None:
    repo = discover(model_dir)
    assert repo.kind == "model"
    (model,) = repo.models
    assert model.config_exists
    assert model.config_path == model_dir / "config.pbtxt"
    model.read_config()


@parametrize_corpus(REAL_WORLD, "config", CONFIGS, ids=_relative)
def test_config_file(config: Path) -> None:
    repo = discover(config)
    assert repo.kind == "file"
    (model,) = repo.models
    assert model.config_exists and model.config_path == config


def test_corpus_counts() -> None:
    require_corpus(REAL_WORLD)
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
