"""Test support for probe: small real ONNX models (onnx.helper) in real repositories on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")
helper = onnx.helper
TensorProto = onnx.TensorProto


def write_model(path: Path, graph: object, opset: int = 17) -> Path:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, str(path))
    return path


def reshape_model(path: Path, *, batch_one: bool) -> Path:
    """x [N, 4] -> Reshape -> y [N, 4]. With `batch_one` the inner Reshape's target is the
    constant [1, 4], so only batch 1 runs (the outer Reshape back to Shape(x) keeps the declared
    [N, 4] output, so the model reads and lints as batchable); its healthy twin reshapes to
    [-1, 4]."""
    target = [1, 4] if batch_one else [-1, 4]
    nodes = [
        helper.make_node(
            "Constant",
            [],
            ["target"],
            value=helper.make_tensor("target_value", TensorProto.INT64, [2], target),
        ),
        helper.make_node("Reshape", ["x", "target"], ["flat"]),
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Reshape", ["flat", "x_shape"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
    )
    return write_model(path, graph)


def identity_model(
    path: Path, inputs: list[tuple[str, int, list[int | str]]], *, op: str = "Identity"
) -> Path:
    """Each input passed through to an output named `<input>_out` (same type and shape)."""
    nodes = [helper.make_node(op, [name], [f"{name}_out"]) for name, _, _ in inputs]
    graph = helper.make_graph(
        nodes,
        "identity",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(f"{n}_out", t, s) for n, t, s in inputs],
    )
    return write_model(path, graph)


def config_model(root: Path, name: str, config: str) -> Path:
    """`root/name/config.pbtxt` with `config`; returns the model directory."""
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "config.pbtxt").write_text(config, encoding="utf-8")
    return root / name


RESHAPE_CONFIG = """\
name: "{name}"
backend: "onnxruntime"
max_batch_size: 8
input [ {{ name: "x" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "y" data_type: TYPE_FP32 dims: [ 4 ] }} ]
dynamic_batching {{ preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100 }}
instance_group [ {{ kind: KIND_CPU }} ]
"""


def reshape_repository(root: Path) -> Path:
    """`broken` (constant batch-1 reshape) and its `healthy` twin, max_batch_size 8 each."""
    for name, batch_one in (("broken", True), ("healthy", False)):
        config_model(root, name, RESHAPE_CONFIG.format(name=name))
        reshape_model(root / name / "1" / "model.onnx", batch_one=batch_one)
    return root
