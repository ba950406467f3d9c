"""Test support: real ONNX model files written with onnx.helper.

`make_onnx` writes a model whose one node is an opaque custom op: shape inference leaves the
declared output shapes alone, so a test states exactly the shapes it wants. `make_runnable`
writes a model ONNX Runtime can load (Relu / Add), for the checks against ONNX Runtime itself.
Import it as `from models.onnxkit import ...` (tests/ is on the path).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")
helper = onnx.helper
TensorProto = onnx.TensorProto

FLOAT = TensorProto.FLOAT
FLOAT16 = TensorProto.FLOAT16
INT32 = TensorProto.INT32
INT64 = TensorProto.INT64
INT8 = TensorProto.INT8
BOOL = TensorProto.BOOL
STRING = TensorProto.STRING
DOUBLE = TensorProto.DOUBLE
BFLOAT16 = TensorProto.BFLOAT16

Spec = tuple[str, int, Sequence[int | str | None] | None]  # name, elem type, shape (None: no shape)


def _value(spec: Spec) -> object:
    name, elem, shape = spec
    return helper.make_tensor_value_info(name, elem, None if shape is None else list(shape))


def make_onnx(
    path: Path,
    inputs: Sequence[Spec],
    outputs: Sequence[Spec],
    *,
    initializers: Sequence[tuple[str, int, Sequence[int]]] = (),
    initializers_as_inputs: bool = True,
    ir_version: int = 8,
    opset: int = 17,
) -> Path:
    """A model with the given graph inputs and outputs (and initializers, listed among the graph
    inputs too unless told otherwise)."""
    weights = [
        helper.make_tensor(name, elem, list(shape), [0] * _count(shape))
        for name, elem, shape in initializers
    ]
    graph_inputs = [_value(s) for s in inputs]
    if initializers_as_inputs:
        graph_inputs += [_value((n, e, s)) for n, e, s in initializers]
    node = helper.make_node(
        "Opaque",
        [s[0] for s in inputs] + [n for n, _, _ in initializers],
        [s[0] for s in outputs],
        domain="test.opaque",
    )
    graph = helper.make_graph([node], "g", graph_inputs, [_value(s) for s in outputs], weights)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("test.opaque", 1)],
    )
    model.ir_version = ir_version
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, str(path))
    return path


def make_runnable(
    path: Path,
    *,
    input_shape: Sequence[int | str | None],
    output_shape: Sequence[int | str | None] | None,
    elem: int = FLOAT,
) -> Path:
    """`y = Relu(x)`, which ONNX Runtime loads: for comparing the reader with ORT's own view."""
    x = helper.make_tensor_value_info("x", elem, list(input_shape))
    y = helper.make_tensor_value_info(
        "y", elem, None if output_shape is None else list(output_shape)
    )
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, str(path))
    return path


def make_external(path: Path) -> Path:
    """`y = x + w` with `w` (1024 floats) saved as external data beside the model."""
    x = helper.make_tensor_value_info("x", FLOAT, ["batch", 1024])
    y = helper.make_tensor_value_info("y", FLOAT, ["batch", 1024])
    w = helper.make_tensor("w", FLOAT, [1024], struct.pack("<1024f", *[0.5] * 1024), raw=True)
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(
        model,
        str(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="weights.bin",
        size_threshold=0,
    )
    return path


def make_weighty(model_dir: Path) -> Path:
    """`1/model.onnx` in `model_dir`: [b, 1024] -> [b, 1024] with 4 MiB of weights (1024 x 1024
    floats), for the GPU-memory checks."""
    return make_onnx(
        model_dir / "1" / "model.onnx",
        [("x", FLOAT, ["b", 1024])],
        [("y", FLOAT, ["b", 1024])],
        initializers=[("W", FLOAT, [1024, 1024])],
    )


def _count(shape: Sequence[int]) -> int:
    total = 1
    for dim in shape:
        total *= dim
    return total
