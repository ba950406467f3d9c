"""The TensorRT runner through the probe contract: a build error is a FAIL (RunnerError) with the
builder's message; no GPU, or a plan only plain TensorRT loads, is "cannot run"
(RunnerUnavailable); --save-plan never writes a TensorRT-RTX engine."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from models.onnxkit import FLOAT, make_onnx, make_runnable
from probe.trtkit import config, installed_adapter, require_gpu

from tritoncfg.probe.contract import ProbeSettings, RunnerError, RunnerUnavailable, TestPoint
from tritoncfg.probe.runners.tensorrt import TensorRTRunner
from tritoncfg.probe.tensorrt.gpu import gpu_problem

CFG = """
max_batch_size: 8
input { name: "x" data_type: TYPE_FP32 dims: [ 16 ] }
output { name: "y" data_type: TYPE_FP32 dims: [ 16 ] }
dynamic_batching { preferred_batch_size: [ 4 ] }
"""


def relu(tmp_path: Path) -> Path:
    path = tmp_path / "m" / "1" / "model.onnx"
    return make_runnable(path, input_shape=["N", 16], output_shape=["N", 16])


def test_the_cli_import_path_resolves() -> None:
    module, _, name = "tritoncfg.probe.runners.tensorrt:TensorRTRunner".partition(":")
    runner = getattr(importlib.import_module(module), name)(ProbeSettings())
    assert runner.name == "tensorrt" and runner.describe() == {"runtime": "tensorrt"}


def test_a_builder_error_is_a_failure_with_the_builders_message(tmp_path: Path) -> None:
    adapter = installed_adapter()
    path = make_onnx(tmp_path / "model.onnx", [("x", FLOAT, [1, 4])], [("y", FLOAT, [1, 4])])
    with pytest.raises(RunnerError) as caught:
        TensorRTRunner(ProbeSettings()).load(path, config(CFG))
    message = str(caught.value)
    assert message.startswith(f"{adapter.label}: parse failed: ")
    assert "Plugin not found" in message


def test_a_variable_dim_is_sized_as_the_plan_sizes_it(tmp_path: Path) -> None:
    installed_adapter()
    path = make_runnable(tmp_path / "model.onnx", input_shape=["N", "S"], output_shape=["N", "S"])
    cfg = config(CFG.replace("dims: [ 16 ] }\noutput", "dims: [ -1 ] }\noutput"))
    for dims, (low, opt, high) in [({}, (1, 16, 64)), ({"S": (2, 3, 5)}, (2, 3, 5))]:
        runner = TensorRTRunner(ProbeSettings(dims=dims))
        try:
            runner.load(path, cfg)
        except RunnerUnavailable as error:
            assert str(error).startswith("no CUDA device: ")
        finally:
            runner.close()
        assert runner.describe()["profiles"] == [{"x": [[1, low], [4, opt], [8, high]]}]


def test_an_unhonourable_precision_is_a_failure(tmp_path: Path) -> None:
    adapter = installed_adapter()
    if hasattr(adapter.module.BuilderFlag, "FP16"):
        pytest.skip(f"{adapter.label} has BuilderFlag.FP16")
    with pytest.raises(RunnerError, match="precision failed: precision 'fp16' cannot be requested"):
        TensorRTRunner(ProbeSettings(precision=("fp16",))).load(relu(tmp_path), config(CFG))


def test_without_a_gpu_the_build_runs_and_then_it_cannot_run(tmp_path: Path) -> None:
    adapter = installed_adapter()
    problem = gpu_problem()
    if problem is None:
        pytest.skip("a CUDA device is present: the GPU test covers this machine")
    runner = TensorRTRunner(ProbeSettings())
    with pytest.raises(RunnerUnavailable) as caught:
        runner.load(relu(tmp_path), config(CFG))
    assert str(caught.value) == f"no CUDA device: {problem}"
    facts = runner.describe()
    assert facts["library"] == adapter.label and facts["engine_size"] > 1000
    assert facts["profiles"] == [{"x": [[1, 16], [4, 16], [8, 16]]}]
    assert facts["precision"] == ["fp32"]
    with pytest.raises(RunnerError, match="no engine loaded"):
        runner.run(TestPoint(1, {"x": (1, 16)}), {"x": np.zeros((1, 16), np.float32)})


def test_save_plan_refuses_a_tensorrt_rtx_engine(tmp_path: Path) -> None:
    adapter = installed_adapter()
    if adapter.triton_loadable:
        pytest.skip(f"{adapter.label} builds engines Triton loads")
    path = relu(tmp_path)
    with pytest.raises(RunnerUnavailable) as caught:
        TensorRTRunner(ProbeSettings(save_plan=True)).load(path, config(CFG))
    assert "--save-plan refused" in str(caught.value)
    assert "cannot load TensorRT-RTX engines" in str(caught.value)
    assert sorted(p.name for p in path.parent.iterdir()) == ["model.onnx"]


def test_a_plan_needs_plain_tensorrt(tmp_path: Path) -> None:
    adapter = installed_adapter()
    if adapter.triton_loadable:
        pytest.skip(f"{adapter.label} loads plans")
    plan = tmp_path / "model.plan"
    plan.write_bytes(b"\0" * 64)
    with pytest.raises(RunnerUnavailable, match=r"only TensorRT-RTX .* is installed"):
        TensorRTRunner(ProbeSettings()).load(plan, config(CFG))


@pytest.mark.gpu
def test_gpu_runner_runs_every_batch_and_times_it(tmp_path: Path) -> None:
    installed_adapter()
    require_gpu()
    runner = TensorRTRunner(ProbeSettings())
    try:
        runner.load(relu(tmp_path), config(CFG))
        facts = runner.describe()
        assert facts["gpu"]["name"] and facts["device_memory_per_profile"]
        for batch in (1, 4, 8):
            x = np.ones((batch, 16), np.float32)
            out = runner.run(TestPoint(batch, {"x": (batch, 16)}), {"x": x})
            assert out.outputs["y"].shape == (batch, 16) and len(out.latencies_ms) == 1
    finally:
        runner.close()
