"""`new --from-model model.plan` where TensorRT runs: the engine is read in a child process
(tritoncfg.models.tensorrt) and the TensorRT backend's auto-complete writes the config. Skips
without the tensorrt package and a GPU; the message `new` gives then is tested in test_new.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from models.trtkit import build_engine, why_not
from scaffold.scaffoldkit import REPOSITORY, assert_clean, new


@pytest.mark.skipif(why_not() is not None, reason=str(why_not()))
def test_from_a_real_engine(tmp_path: Path) -> None:  # pragma: no cover - needs TensorRT and a GPU
    from tritoncfg.text import parse

    engine = build_engine(tmp_path / "engine.plan")
    done = new(tmp_path / "d", "--model", "trt", "--from-model", str(engine))
    assert done.returncode == 0, done.stderr
    model = tmp_path / "d" / REPOSITORY / "trt"
    assert (model / "1" / "model.plan").read_bytes() == engine.read_bytes()
    written = parse((model / "config.pbtxt").read_text()).message
    assert written.backend == "tensorrt"
    assert written.max_batch_size == 8  # the profile's largest batch
    assert [(t.name, list(t.dims)) for t in written.input] == [("x", [16])]
    assert_clean(tmp_path / "d")
