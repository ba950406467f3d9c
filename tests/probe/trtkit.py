"""Test support for the TensorRT probe tests: configs from pbtxt text, the installed TensorRT
adapter (tensorrt or tensorrt_rtx, skipping with the reason when neither imports), and the GPU
check. Import it as `from probe.trtkit import ...` (tests/ is on the path)."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from tritoncfg.probe.tensorrt.adapter import TrtAdapter, TrtMissing, load_adapter
from tritoncfg.probe.tensorrt.gpu import gpu_problem
from tritoncfg.schema import model_config_pb2


def config(text: str) -> model_config_pb2.ModelConfig:
    return text_format.Parse(text, model_config_pb2.ModelConfig())


def installed_adapter() -> TrtAdapter:
    """The adapter over whichever TensorRT module imports; skips the test when none does."""
    try:
        return load_adapter()
    except TrtMissing as error:
        pytest.skip(f"no TensorRT module: {error}")


def require_gpu() -> None:
    problem = gpu_problem()
    if problem is not None:
        pytest.skip(f"needs a CUDA device: {problem}")
