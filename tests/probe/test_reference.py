"""The reference comparison that probe's loop makes when TensorRT runs an `.onnx` model: the
same inputs through ONNX Runtime, compared with `--atol` / `--rtol`. TensorRT cannot execute
here (no GPU), so two real ONNX Runtime sessions stand in for TensorRT and the reference: the
same model twice (within tolerance, errors 0), and a twin with slightly different weights (a
FAIL that names the output and the largest error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from probe.probekit import helper, reshape_model, write_model
from probe.trtkit import config

from tritoncfg.probe.contract import ProbeSettings, RunnerError, TestPoint
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.reference import (
    against,
    check_point,
    open_reference,
    plain,
    reference_runtime,
)
from tritoncfg.probe.runners.onnxruntime import OnnxRuntimeRunner
from tritoncfg.probe.runners.tensorrt import TensorRTRunner

np = pytest.importorskip("numpy")
pytest.importorskip("onnxruntime")

from tritoncfg.probe.execute import _reference, run_point  # noqa: E402

CFG = """
max_batch_size: 8
input { name: "x" data_type: TYPE_FP32 dims: [ 4 ] }
output { name: "y" data_type: TYPE_FP32 dims: [ 4 ] }
"""


def scaled(path: Path, weight: float) -> Path:
    """y = x * weight, x and y [N, 4]."""
    scale = helper.make_tensor("w", 1, [1], [weight])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["y"])],
        "scaled",
        [helper.make_tensor_value_info("x", 1, ["N", 4])],
        [helper.make_tensor_value_info("y", 1, ["N", 4])],
        [scale],
    )
    return write_model(path, graph)


def session(path: Path, settings: ProbeSettings) -> OnnxRuntimeRunner:
    runner = OnnxRuntimeRunner(settings)
    runner.load(path, config(CFG))
    return runner


POINT = TestPoint(4, {"x": (4, 4)})
INPUTS = {"x": np.random.default_rng(0).uniform(1.0, 2.0, (4, 4)).astype(np.float32)}


def test_the_same_model_twice_is_within_tolerance_with_zero_error(tmp_path: Path) -> None:
    settings = ProbeSettings()
    model = scaled(tmp_path / "a" / "model.onnx", 1.0)
    actual = session(model, settings).run(POINT, INPUTS).outputs
    expected = session(model, settings).run(POINT, INPUTS).outputs
    verdict = against(actual, expected, settings.atol, settings.rtol)
    assert (verdict.max_abs_error, verdict.max_rel_error, verdict.mismatch) == (0.0, 0.0, None)


def test_other_weights_are_a_mismatch_with_the_max_error(tmp_path: Path) -> None:
    settings = ProbeSettings()
    actual = session(scaled(tmp_path / "a" / "model.onnx", 1.001), settings).run(POINT, INPUTS)
    expected = session(scaled(tmp_path / "b" / "model.onnx", 1.0), settings).run(POINT, INPUTS)
    verdict = against(actual.outputs, expected.outputs, settings.atol, settings.rtol)
    x = INPUTS["x"].astype(np.float64)
    assert verdict.max_abs_error == pytest.approx(float((x * 0.001).max()), rel=1e-3)
    assert verdict.max_rel_error == pytest.approx(0.001, rel=1e-3)
    assert verdict.mismatch is not None
    assert verdict.mismatch.startswith(
        "against ONNX Runtime: output 'y': 16 of 16 values outside atol=1e-05 rtol=1e-05 "
        "(max abs error "
    )
    loose = against(actual.outputs, expected.outputs, atol=0.0, rtol=0.01)
    assert loose.mismatch is None and loose.max_abs_error == verdict.max_abs_error


def test_a_point_against_its_reference_passes_or_fails_with_the_error(tmp_path: Path) -> None:
    settings = ProbeSettings(warmup_runs=1, timed_runs=2)
    runner = session(scaled(tmp_path / "a" / "model.onnx", 1.0), settings)
    twin = session(scaled(tmp_path / "b" / "model.onnx", 1.0), settings)
    ok = run_point(runner, config(CFG), POINT, INPUTS, settings, reference=twin)
    assert (ok.status, ok.reason, ok.max_abs_error, ok.max_rel_error) == ("OK", None, 0.0, 0.0)
    assert ok.latency_ms is not None
    other = session(scaled(tmp_path / "c" / "model.onnx", 1.01), settings)
    bad = run_point(runner, config(CFG), POINT, INPUTS, settings, reference=other)
    assert bad.status == "FAIL" and bad.latency_ms is None
    assert bad.reason is not None and "against ONNX Runtime: output 'y': 16 of 16" in bad.reason
    assert bad.max_abs_error == pytest.approx(float((INPUTS["x"] * 0.01).max()), rel=1e-3)
    without = run_point(runner, config(CFG), POINT, INPUTS, settings)
    assert without.status == "OK" and without.max_abs_error is None


def test_a_reference_that_fails_at_the_point_fails_it_with_its_message(tmp_path: Path) -> None:
    settings = ProbeSettings()
    runner = session(reshape_model(tmp_path / "a" / "model.onnx", batch_one=False), settings)
    batch_one = session(reshape_model(tmp_path / "b" / "model.onnx", batch_one=True), settings)
    with pytest.raises(RunnerError):
        batch_one.run(POINT, INPUTS)  # the reference really cannot run batch 4
    result = run_point(runner, config(CFG), POINT, INPUTS, settings, reference=batch_one)
    assert result.status == "FAIL" and result.reason is not None
    assert result.reason.startswith("the reference (onnxruntime) failed: ")
    verdict = check_point(batch_one, POINT, INPUTS, {}, settings)
    assert verdict.mismatch == result.reason


def test_only_tensorrt_on_an_onnx_file_is_compared() -> None:
    assert reference_runtime("tensorrt", Path("m/1/model.onnx")) == "onnxruntime"
    assert reference_runtime("tensorrt", Path("m/1/model.plan")) is None
    assert reference_runtime("onnxruntime", Path("m/1/model.onnx")) is None
    assert reference_runtime("tensorrt", None) is None


def test_the_loop_opens_onnx_runtime_beside_the_tensorrt_runner(tmp_path: Path) -> None:
    settings = ProbeSettings()
    model = scaled(tmp_path / "m" / "1" / "model.onnx", 1.0)
    step = ModelPlan("m", str(tmp_path / "m"), config(CFG), "tensorrt", model)
    reference, facts = _reference(TensorRTRunner(settings), step, settings)
    assert isinstance(reference, OnnxRuntimeRunner)
    assert isinstance(facts, dict) and facts["runtime"] == "onnxruntime"
    out = reference.run(POINT, INPUTS).outputs["y"]
    assert np.array_equal(out, INPUTS["x"])
    assert _reference(OnnxRuntimeRunner(settings), step, settings) == (None, None)


def test_a_reference_that_cannot_load_is_reported_not_compared(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx model")
    runner, why = open_reference("onnxruntime", broken, config(CFG), ProbeSettings())
    assert runner is None and why is not None
    assert why.startswith("not compared: ONNX Runtime cannot load model.onnx: ")


def test_the_reference_never_runs_on_onnx_runtimes_tensorrt_provider() -> None:
    accelerated = config(
        CFG + "optimization { execution_accelerators { gpu_execution_accelerator "
        '[ { name: "tensorrt" } ] } }'
    )
    assert len(accelerated.optimization.execution_accelerators.gpu_execution_accelerator) == 1
    stripped = plain(accelerated)
    assert isinstance(stripped, type(accelerated))
    assert not stripped.optimization.HasField("execution_accelerators")
    assert stripped.input == accelerated.input and stripped.max_batch_size == 8
    assert len(accelerated.optimization.execution_accelerators.gpu_execution_accelerator) == 1
