"""One `--dim` gives the same sizes in the shape plan and in the TensorRT optimization profile
derived for the same model: both read `INPUT.AXIS` (the batch dim counted), the ONNX symbolic
name, then `INPUT`, and fall back to the plan's default range. The model is a real ONNX file,
read by the plan as `plan_points` reads it and parsed by the installed TensorRT (TensorRT-RTX
parses and builds on CPU)."""

from __future__ import annotations

from pathlib import Path

import pytest
from probe.probekit import TensorProto, helper, write_model
from probe.trtkit import config, installed_adapter

from tritoncfg.models.io import ModelIO
from tritoncfg.models.onnx import read_onnx
from tritoncfg.probe.plan import DEFAULT_RANGE, Range, plan_points
from tritoncfg.probe.tensorrt.build import ParsedNetwork, build_engine, parse_onnx
from tritoncfg.probe.tensorrt.profiles import ProfileShapes, derive_profile

CFG = """
max_batch_size: 8
input { name: "ids" data_type: TYPE_FP32 dims: [ -1 ] }
input { name: "mask" data_type: TYPE_FP32 dims: [ -1 ] }
input { name: "img" data_type: TYPE_FP32 dims: [ 3, -1 ] }
output { name: "sum" data_type: TYPE_FP32 dims: [ -1 ] }
output { name: "act" data_type: TYPE_FP32 dims: [ 3, -1 ] }
dynamic_batching { preferred_batch_size: [ 4 ] }
"""

# each variable axis of the network (batch dim counted) -> the plan's variable that sizes it
AXES = {("ids", 1): "seq", ("mask", 1): "seq", ("img", 2): "W"}


def two_inputs_sharing_seq(path: Path) -> Path:
    """ids, mask [N, seq] -> sum = ids + mask; img [N, 3, W] -> act = Relu(img)."""
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["ids", "mask"], ["sum"]),
            helper.make_node("Relu", ["img"], ["act"]),
        ],
        "shared",
        [
            value("ids", TensorProto.FLOAT, ["N", "seq"]),
            value("mask", TensorProto.FLOAT, ["N", "seq"]),
            value("img", TensorProto.FLOAT, ["N", 3, "W"]),
        ],
        [
            value("sum", TensorProto.FLOAT, ["N", "seq"]),
            value("act", TensorProto.FLOAT, ["N", 3, "W"]),
        ],
    )
    return write_model(path, graph)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_inputs_sharing_seq(tmp_path_factory.mktemp("dims") / "1" / "model.onnx")


def profile_for(model: Path, dims: dict[str, Range]) -> tuple[ParsedNetwork, ProfileShapes]:
    parsed = parse_onnx(installed_adapter(), model)
    assert isinstance(parsed, ParsedNetwork), getattr(parsed, "errors", None)
    names = {t.name: t.dim_names for t in parsed.info.inputs}
    assert names["ids"] == ("N", "seq"), "the parser keeps the ONNX symbolic names"
    return parsed, derive_profile(config(CFG), parsed.info.net_inputs(), dims)


@pytest.mark.parametrize(
    ("dims", "seq", "img"),
    [
        ({"seq": (2, 8, 16), "img.2": (4, 5, 6)}, (2, 8, 16), (4, 5, 6)),
        ({"ids.1": (3, 4, 5), "img": (7, 8, 9)}, (3, 4, 5), (7, 8, 9)),
        ({"ids": (3, 4, 5), "other_model_input": (1, 1, 1)}, (3, 4, 5), DEFAULT_RANGE),
        ({}, DEFAULT_RANGE, DEFAULT_RANGE),
    ],
)
def test_one_dim_gives_the_same_sizes_in_the_plan_and_the_profile(
    model: Path, dims: dict[str, Range], seq: Range, img: Range
) -> None:
    model_io = read_onnx(model)
    assert isinstance(model_io, ModelIO)
    points, variables, _ = plan_points(config(CFG), model_io, dims)
    planned = {v.key: v.range for v in variables}
    assert planned == {"seq": seq, "W": img}
    _, profile = profile_for(model, dims)
    for (name, axis), key in AXES.items():
        low, opt, high = profile[name]
        assert (low[axis], opt[axis], high[axis]) == planned[key], (name, axis)
    for point in points:  # the engine accepts every point the plan runs
        for name, shape in point.shapes.items():
            low, _, high = profile[name]
            assert all(lo <= s <= hi for lo, s, hi in zip(low, shape, high, strict=True))


def test_the_profile_the_plan_agrees_with_builds(model: Path) -> None:
    parsed, profile = profile_for(model, {"seq": (2, 8, 16), "img.2": (4, 5, 6)})
    assert profile["img"] == ((1, 3, 4), (4, 3, 5), (8, 3, 6))
    result = build_engine(parsed, [profile])
    assert result.ok, result.errors
