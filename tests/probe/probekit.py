"""Test support for probe: small real ONNX models (onnx.helper) in real repositories on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    nodes = [
        int64_constant("target", [1, 4] if batch_one else [-1, 4]),
        helper.make_node("Reshape", ["x", "target"], ["flat"]),
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Reshape", ["flat", "x_shape"], ["y"]),
    ]
    return rows_model(path, nodes, "reshape")


def int64_constant(name: str, values: list[int]) -> object:
    return helper.make_node(
        "Constant",
        [],
        [name],
        value=helper.make_tensor(f"{name}_value", TensorProto.INT64, [len(values)], values),
    )


def rows_model(path: Path, nodes: list[object], name: str) -> Path:
    """A graph of `nodes` from x [N, 4] to y [N, 4] (FP32), written to `path`."""
    graph = helper.make_graph(
        nodes,
        name,
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


def odd_batch_model(path: Path, *, fails_odd: bool) -> Path:
    """x [N, 4] -> y [N, 4] = x + x[N - 1 + bad], with bad = 1 for an odd N above 1
    (N mod 2 - (N == 1)): batch 1 and every even batch run, and at 3, 5, 7 ONNX Runtime's
    Gather fails (index N out of bounds), at any graph optimization level. Its healthy twin
    (`fails_odd=False`) has bad = 0 at every N."""
    nodes = [
        int64_constant("zero", [0]),
        int64_constant("one", [1]),
        int64_constant("two", [2]),
        int64_constant("off", [1 if fails_odd else 0]),
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Gather", ["x_shape", "zero"], ["n"], axis=0),
        helper.make_node("Mod", ["n", "two"], ["odd"]),
        helper.make_node("Equal", ["n", "one"], ["is_one"]),
        helper.make_node("Cast", ["is_one"], ["one_if_1"], to=TensorProto.INT64),
        helper.make_node("Sub", ["odd", "one_if_1"], ["odd_above_1"]),
        helper.make_node("Mul", ["odd_above_1", "off"], ["bad"]),
        helper.make_node("Sub", ["n", "one"], ["last"]),
        helper.make_node("Add", ["last", "bad"], ["row"]),
        helper.make_node("Gather", ["x", "row"], ["picked"], axis=0),
        helper.make_node("Add", ["x", "picked"], ["y"]),
    ]
    return rows_model(path, nodes, "odd_batch")


def odd_batch_repository(root: Path) -> Path:
    """`odd` (fails at batch 3, 5, 7) and its `even` twin (runs at all), max_batch_size 8."""
    for name, fails_odd in (("odd", True), ("even", False)):
        config_model(root, name, RESHAPE_CONFIG.format(name=name))
        odd_batch_model(root / name / "1" / "model.onnx", fails_odd=fails_odd)
    return root


# probe options for a test that checks what runs, not how fast: one run per window, three
# windows per point (the defaults' 50 ms windows cost at least 0.15 s per point)
FAST = ("--runs", "1", "--window-ms", "0", "--max-windows", "3")


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def examples_built(root: Path) -> Path:
    """A copy of the example repository at `root`, its model files made by make_models.py."""
    shutil.copytree(EXAMPLES / "model_repository", root)
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "make_models.py"), "--repository", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return root


def validated(stdout: str) -> dict[str, Any]:
    """A probe JSON report, validated against its schema."""
    from tritoncfg.probe.report import schema

    jsonschema = pytest.importorskip("jsonschema")
    document: dict[str, Any] = json.loads(stdout)
    jsonschema.Draft202012Validator(schema()).validate(document)
    return document


def models(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["model"]: m for m in document["models"]}


def rows(model: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["label"], p["status"]) for p in model["points"]]
