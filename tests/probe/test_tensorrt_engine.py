"""The engine's I/O and profiles against the config (plain data, CPU), and the GPU half:
deserialize, execute every shape with `execute_async_v3`, CUDA-event timing. The GPU tests skip
with the reason `cudaGetDeviceCount` gives when there is no device."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from models.onnxkit import make_runnable
from probe.trtkit import config, installed_adapter, require_gpu

from tritoncfg.probe.tensorrt.adapter import CapturedLog
from tritoncfg.probe.tensorrt.build import ParsedNetwork, build_engine, parse_onnx
from tritoncfg.probe.tensorrt.engine import (
    EngineInfo,
    EngineTensor,
    check_engine,
    deserialize,
    inspect_engine,
)
from tritoncfg.probe.tensorrt.execute import Executor, pick_profile

CFG = """
max_batch_size: 8
input { name: "x" data_type: TYPE_FP32 dims: [ 16 ] }
output { name: "y" data_type: TYPE_FP32 dims: [ 16 ] }
"""


def engine(batch_max: int = 8, width: int = 16, dtype: str = "FLOAT") -> EngineInfo:
    profile = ((1, width), (4, width), (batch_max, width))
    return EngineInfo(
        tensors=[
            EngineTensor("x", True, dtype, (-1, width), (profile,)),
            EngineTensor("y", False, "FLOAT", (-1, width)),
        ],
        num_profiles=1,
    )


def test_an_engine_that_matches_the_config_has_no_problems() -> None:
    assert check_engine(engine(), config(CFG)) == []


def test_a_profile_below_max_batch_size_is_reported() -> None:
    assert check_engine(engine(batch_max=4), config(CFG)) == [
        "input 'x': no profile accepts batch 5..8 (the profiles accept 1..4), the config's "
        "max_batch_size is 8"
    ]


def batch_profiles(*ranges: tuple[int, int]) -> EngineInfo:
    """An engine whose input `x` has one profile per (min, max) batch range."""
    info = engine()
    profiles = tuple(((lo, 16), (hi, 16), (hi, 16)) for lo, hi in ranges)
    info.tensors[0] = EngineTensor("x", True, "FLOAT", (-1, 16), profiles)
    info.num_profiles = len(ranges)
    return info


def test_a_gap_between_profiles_is_reported() -> None:
    assert check_engine(batch_profiles((2, 3), (6, 8)), config(CFG)) == [
        "input 'x': no profile accepts batch 1, 4..5 (the profiles accept 2..3, 6..8), the "
        "config's max_batch_size is 8"
    ]


def test_names_types_and_fixed_dims_are_checked() -> None:
    cfg = config(CFG.replace('"y"', '"z"'))
    assert check_engine(engine(), cfg) == ["output 'z': the engine has no such output (it has: y)"]
    assert check_engine(engine(dtype="HALF"), config(CFG)) == [
        "input 'x': data type FP32 in the config, the engine has HALF"
    ]
    problems = check_engine(engine(width=32), config(CFG))
    assert "input 'x': dim 1 is 16 in the config, 32 in the engine" in problems


def test_a_rank_difference_is_reported() -> None:
    cfg = config(CFG.replace("dims: [ 16 ] }\noutput", "dims: [ 4, 4 ] }\noutput"))
    assert check_engine(engine(), cfg) == [
        "input 'x': the config declares 3 dims (batch included), the engine has 2: [-1, 16]"
    ]


def test_pick_profile_chooses_the_profile_holding_every_shape() -> None:
    info = batch_profiles((1, 2), (3, 8))
    assert pick_profile(info, {"x": (2, 16)}) == 0
    assert pick_profile(info, {"x": (5, 16)}) == 1
    assert pick_profile(info, {"x": (9, 16)}) is None
    assert pick_profile(info, {"x": (2, 16, 1)}) is None


@pytest.fixture
def plan(tmp_path: Path) -> bytes:
    adapter = installed_adapter()
    path = make_runnable(tmp_path / "model.onnx", input_shape=["N", 16], output_shape=["N", 16])
    parsed = parse_onnx(adapter, path)
    assert isinstance(parsed, ParsedNetwork)
    result = build_engine(parsed, [{"x": ((1, 16), (4, 16), (8, 16))}])
    assert result.plan is not None, result.errors
    return result.plan


@pytest.mark.gpu
def test_gpu_deserialize_check_execute_and_time(plan: bytes) -> None:
    require_gpu()
    adapter = installed_adapter()
    log = CapturedLog()
    _logger, _runtime, trt_engine = deserialize(adapter, plan, log)
    info = inspect_engine(adapter, trt_engine)
    assert check_engine(info, config(CFG)) == []
    assert info.num_profiles == 1 and info.memory_per_profile[0] >= 0
    executor = Executor(adapter, trt_engine, info, log)
    try:
        for batch in (1, 4, 8):
            x = np.linspace(-1, 1, batch * 16, dtype=np.float32).reshape(batch, 16)
            outputs, latencies = executor.run({"x": x}, warmup=1, timed=3)
            np.testing.assert_allclose(outputs["y"], np.maximum(x, 0), atol=1e-6)
            assert len(latencies) == 3 and all(ms > 0 for ms in latencies)
    finally:
        executor.close()


def test_an_engine_with_a_fixed_batch_dim_below_max_batch_size_is_reported() -> None:
    info = EngineInfo(
        tensors=[
            EngineTensor("x", True, "FLOAT", (1, 16), (((1, 16), (1, 16), (1, 16)),)),
            EngineTensor("y", False, "FLOAT", (1, 16)),
        ],
        num_profiles=1,
    )
    assert check_engine(info, config(CFG)) == [
        "input 'x': the engine fixes the batch dim at 1, the config's max_batch_size is 8"
    ]
