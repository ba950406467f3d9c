"""The PyTorch runner on a CUDA device: a KIND_GPU model runs on `cuda:0` at every batch size,
timed with CUDA events. Skips with the reason where torch has no CUDA device (CI, this
project's CPU machine); `tools/gpu_check.sh` runs it on a GPU machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run

from tritoncfg.probe.contract import ProbeSettings, TestPoint

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
from probe.torchkit import Double, PastFour, indexed_model  # noqa: E402

from tritoncfg.probe.runners.pytorch import PyTorchRunner  # noqa: E402
from tritoncfg.schema import ModelConfig  # noqa: E402


def require_cuda() -> None:
    if not torch.cuda.is_available():
        pytest.skip(f"needs a CUDA device: torch {torch.__version__} has none here")


def test_a_kind_gpu_model_runs_on_cuda_timed_by_cuda_events(tmp_path: Path) -> None:
    require_cuda()
    from google.protobuf import text_format

    model = indexed_model(tmp_path, "m", Double(), kind="KIND_GPU")
    config = text_format.Parse((model / "config.pbtxt").read_text(), ModelConfig())
    runner = PyTorchRunner(ProbeSettings())
    try:
        runner.load(model / "1" / "model.pt", config)
        facts = runner.describe()
        assert facts["device"] == "cuda:0" and facts["gpu"]
        for batch in range(1, 9):
            x = np.full((batch, 4), 1.5, np.float32)
            out = runner.run(TestPoint(batch, {"INPUT__0": (batch, 4)}), {"INPUT__0": x})
            np.testing.assert_array_equal(out.outputs["OUTPUT__0"], x * 2)
            assert len(out.latencies_ms) == 1 and out.latencies_ms[0] > 0
    finally:
        runner.close()


def test_probe_on_cuda_runs_every_batch_size_and_names_the_first_failure(tmp_path: Path) -> None:
    require_cuda()
    indexed_model(tmp_path, "healthy", Double(), kind="KIND_GPU")
    indexed_model(tmp_path, "past_four", PastFour(), kind="KIND_GPU")
    done = run("probe", str(tmp_path), "-f", "json", "--runs", "3")
    assert done.returncode == 1, done.stdout + done.stderr
    found = {m["model"]: m for m in json.loads(done.stdout)["models"]}
    healthy, twin = found["healthy"], found["past_four"]
    assert healthy["runtime"]["device"] == "cuda:0"
    assert [p["status"] for p in healthy["points"]] == ["OK"] * 8
    assert [p["status"] for p in twin["points"][:5]] == ["OK"] * 4 + ["FAIL"]
    assert twin["points"][4]["reason"].startswith("PyTorch execute failure: ")
