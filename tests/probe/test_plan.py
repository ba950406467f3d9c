"""The shape plan: batch sizes from the config, variable dims from --dim, the model file, a
TensorRT profile or the default, reshape, shape tensors, and ensembles through their wiring."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from google.protobuf import text_format

from tritoncfg.models.io import Dim, ModelIO, Profile, TensorInfo
from tritoncfg.probe.contract import TestPoint
from tritoncfg.probe.coverage import (
    BatchCoverage,
    left_out,
    parse_batch_sizes,
    ranges_text,
    swept_sizes,
)
from tritoncfg.probe.plan import DEFAULT_RANGE, ModelPlan, batch_sizes, parse_dim, plan_points
from tritoncfg.probe.runners import choose_runtime
from tritoncfg.probe.targets import plan_workspace
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import load


def config(text: str) -> ModelConfig:
    return text_format.Parse(f'name: "m"\nbackend: "onnxruntime"\n{text}', ModelConfig())


def model_io(*inputs: tuple[str, tuple[Dim, ...]], profiles: tuple[Profile, ...] = ()) -> ModelIO:
    tensors = tuple(TensorInfo(n, "TYPE_FP32", "float", s) for n, s in inputs)
    return ModelIO("onnx", Path("model.onnx"), tensors, (), profiles=profiles)


def shapes(points: list[TestPoint], name: str) -> list[tuple[int, ...]]:
    return [tuple(p.shapes[name]) for p in points]


DECLARED = BatchCoverage("declared")


def test_batch_sizes_gather_one_preferred_max_warmup_and_cuda_graph_sizes() -> None:
    notes: list[str] = []
    found = batch_sizes(
        config(
            "max_batch_size: 16\n"
            "dynamic_batching { preferred_batch_size: [ 4, 8, 32 ] }\n"
            'model_warmup [ { name: "w" batch_size: 2 inputs { key: "x" value { '
            "data_type: TYPE_FP32 dims: [ 3 ] zero_data: true } } } ]\n"
            "optimization { cuda { graphs: true graph_spec [ { batch_size: 12 } ] } }\n"
        ),
        notes,
        BatchCoverage("declared"),
    )
    assert found == {
        1: ("1",),
        2: ("warmup",),
        4: ("preferred",),
        8: ("preferred",),
        12: ("cuda_graph",),
        16: ("max_batch_size",),
    }
    assert notes == ["preferred batch size 32 is outside [1, 16]: not probed"]


def test_a_model_that_does_not_batch_has_one_point_without_a_batch_dim() -> None:
    points, variables, _ = plan_points(
        config('input [ { name: "x" data_type: TYPE_FP32 dims: [ 2, 3 ] } ]'), None, {}
    )
    assert [(p.batch_size, dict(p.shapes)) for p in points] == [(None, {"x": (2, 3)})]
    assert variables == []
    assert points[0].label == "b=- x=2x3"


def test_a_batching_model_with_every_listed_size_too_large_gets_no_unbatched_point() -> None:
    """`--batch-sizes 9` on max_batch_size 8 probes nothing (and says so), never a request
    without the batch dim, which Triton would not send to a batching model."""
    batching = config('max_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } ]')
    points, _, notes = plan_points(batching, None, {}, coverage=parse_batch_sizes("9"))
    assert points == []
    assert "--batch-sizes 9 above max_batch_size 8: not probed" in notes
    (point,) = plan_points(batching, None, {}, coverage=parse_batch_sizes("8,9"))[0]
    assert (point.batch_size, dict(point.shapes)) == (8, {"x": (8, 3)})


def test_dims_come_from_the_cli_before_the_model_and_the_default() -> None:
    cfg = config(
        "max_batch_size: 4\n"
        'input [ { name: "ids" data_type: TYPE_INT64 dims: [ -1 ] },'
        ' { name: "mask" data_type: TYPE_INT64 dims: [ -1 ] },'
        ' { name: "img" data_type: TYPE_FP32 dims: [ -1, -1 ] } ]'
    )
    io = model_io(("ids", ("N", "seq")), ("mask", ("N", "seq")), ("img", ("N", 3, None)))
    points, variables, notes = plan_points(cfg, io, {"seq": (1, 128, 512)}, coverage=DECLARED)
    by_key = {v.key: (v.range, v.source) for v in variables}
    assert by_key == {
        "seq": ((1, 128, 512), "--dim"),  # one variable for both inputs: they share "seq"
        "img.1": ((3, 3, 3), "model"),
        "img.2": (DEFAULT_RANGE, "default"),
    }
    assert "img.2" in notes[0] and "--dim img.2=" in notes[0]
    assert shapes(points, "ids") == [(1, 1), (1, 128), (1, 512), (4, 1), (4, 128), (4, 512)]
    assert shapes(points, "mask") == shapes(points, "ids")
    assert shapes(points, "img")[:3] == [(1, 3, 1), (1, 3, 16), (1, 3, 64)]
    assert [p.reasons for p in points[:3]] == [("1", "min"), ("1", "opt"), ("1", "max")]


def test_an_input_name_or_an_axis_can_be_given_on_the_cli() -> None:
    cfg = config('max_batch_size: 2\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ -1, -1 ] } ]')
    points, _, _ = plan_points(cfg, None, {"x": (5, 5, 5), "x.2": (7, 7, 7)})
    assert shapes(points, "x") == [(1, 5, 7), (2, 5, 7)]


def test_a_tensorrt_profile_sizes_the_dims_the_cli_leaves() -> None:
    cfg = config('max_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]')
    profile = Profile(0, {"x": ((1, 16), (4, 64), (8, 256))})
    points, variables, _ = plan_points(cfg, model_io(("x", (None, None)), profiles=(profile,)), {})
    assert [(v.range, v.source) for v in variables] == [((16, 64, 256), "profile")]
    assert shapes(points, "x")[:3] == [(1, 16), (1, 64), (1, 256)]


def test_a_reshaped_input_is_fed_to_the_model_at_the_reshaped_shape() -> None:
    cfg = config(
        "max_batch_size: 4\n"
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 6 ] reshape { shape: [ 2, 3 ] } },'
        ' { name: "t" data_type: TYPE_FP32 dims: [ -1 ] reshape { shape: [ -1, 1 ] } } ]'
    )
    points, _, _ = plan_points(cfg, None, {"t": (5, 5, 5)})
    last = points[-1]
    assert last.shapes["x"] == (4, 6) and last.model_shape("x") == (4, 2, 3)
    assert last.shapes["t"] == (4, 5) and last.model_shape("t") == (4, 5, 1)


def test_shape_tensor_values_come_from_the_profile() -> None:
    cfg = config(
        "max_batch_size: 0\n"
        'input [ { name: "s" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]'
    )
    profile = Profile(0, {}, values={"s": ((1, 1), (4, 8), (8, 16))})
    points, _, _ = plan_points(cfg, model_io(("s", (2,)), profiles=(profile,)), {})
    assert [dict(p.values) for p in points] == [{"s": (4, 8)}]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("seq=1:128:512", ("seq", (1, 128, 512))), ("x.1=7", ("x.1", (7, 7, 7)))],
)
def test_parse_dim(text: str, expected: tuple[str, tuple[int, int, int]]) -> None:
    assert parse_dim(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("seq", "expected NAME=min:opt:max"),
        ("seq=1:2", "must be SIZE or min:opt:max"),
        ("seq=8:4:16", "needs 1 <= min <= opt <= max"),
        ("seq=0", "needs 1 <= min"),
    ],
)
def test_parse_dim_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_dim(text)


def test_choose_runtime() -> None:
    assert choose_runtime("auto", Path("m.onnx")) == ("onnxruntime", None)
    assert choose_runtime("auto", Path("m.plan")) == ("tensorrt", None)
    assert choose_runtime("tensorrt", Path("m.onnx")) == ("tensorrt", None)
    runtime, why = choose_runtime("onnxruntime", Path("m.plan"))
    assert (
        runtime is None
        and why is not None
        and "ONNX Runtime cannot run m.plan (TensorRT runs it" in why
    )
    assert choose_runtime("auto", Path("model.pt2"))[0] is None


def test_a_plan_survives_pickling_for_the_worker_process() -> None:
    plan = ModelPlan("m", "/m", config("max_batch_size: 2"), runtime="onnxruntime")
    copy = pickle.loads(pickle.dumps(plan))
    assert copy.config == plan.config and copy.runtime == "onnxruntime"


def test_an_ensemble_is_planned_through_its_steps_with_the_wired_shapes(tmp_path: Path) -> None:
    from probe.probekit import identity_model

    root = tmp_path / "repo"
    (root / "ens" / "1").mkdir(parents=True)
    (root / "ens" / "config.pbtxt").write_text(
        'name: "ens"\nplatform: "ensemble"\nmax_batch_size: 2\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 5 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        'ensemble_scheduling { step [ { model_name: "step" model_version: -1 '
        'input_map { key: "x" value: "IN" } output_map { key: "x_out" value: "OUT" } } ] }\n'
    )
    (root / "step").mkdir()
    (root / "step" / "config.pbtxt").write_text(
        'name: "step"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        'output [ { name: "x_out" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
    )
    identity_model(root / "step" / "1" / "model.onnx", [("x", 1, ["N", "L"])])
    plans = {p.model: p for p in plan_workspace(load([root]), {})}
    step = plans["ens"].steps[0]
    assert [p.label for p in step.points] == ["step: b=1 x=1x5", "step: b=2 x=2x5"]
    assert [(v.key, v.source) for v in step.variables] == [("L", "wiring")]
    alone = plans["step"]  # probed on its own, the step runs its whole declared range
    assert [p.batch_size for p in alone.points] == [1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    declared = {p.model: p for p in plan_workspace(load([root]), {}, coverage=DECLARED)}
    assert [p.batch_size for p in declared["step"].points] == [1, 1, 1, 8, 8, 8]


def test_warmup_and_cuda_graph_shapes_are_tested_as_written() -> None:
    cfg = config(
        "max_batch_size: 4\n"
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        'model_warmup [ { name: "long" batch_size: 2 inputs { key: "x" value { '
        "data_type: TYPE_FP32 dims: [ 300 ] zero_data: true } } } ]\n"
        'optimization { cuda { graph_spec [ { batch_size: 4 input { key: "x" value { dim: [ 16 ] } } } ] } }\n'
    )
    points, _, _ = plan_points(cfg, None, {"x": (8, 16, 32)})
    by_shape = {tuple(p.shapes["x"]): p.reasons for p in points}
    assert by_shape[(3, 16)] == ("sweep", "opt")  # a size the config does not name: opt only
    assert (3, 8) not in by_shape and (3, 32) not in by_shape
    assert by_shape[(2, 300)] == ("warmup:long",)
    assert by_shape[(2, 16)] == ("warmup", "opt")
    # the graph spec's shape is the max_batch_size point at opt: one point, both reasons
    assert by_shape[(4, 16)] == ("max_batch_size", "cuda_graph", "opt")
    assert len(points) == 3 * 3 + 1 + 1  # 1, 2, 4 at min/opt/max, the warmup's shape, 3 at opt


def test_ensembles_that_name_each_other_are_planned_without_recursing(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for name, other in (("a", "b"), ("b", "a")):
        (root / name / "1").mkdir(parents=True)
        (root / name / "config.pbtxt").write_text(
            f'name: "{name}"\nplatform: "ensemble"\nmax_batch_size: 2\n'
            'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 5 ] } ]\n'
            'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 5 ] } ]\n'
            f'ensemble_scheduling {{ step [ {{ model_name: "{other}" model_version: -1 '
            'input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } } ] }\n'
        )
    plans = {p.model: p for p in plan_workspace(load([root]), {})}
    # lint refuses the cycle (TC521), so neither is planned through its steps
    assert plans["a"].steps == [] and plans["a"].fail is not None
    assert plans["a"].fail.startswith("lint finds errors (Triton would not load it): ")
    assert "TC521 this ensemble depends on itself (a -> ... -> b -> a)" in plans["a"].fail


def test_the_profile_an_instance_group_lists_sizes_the_dims() -> None:
    cfg = config(
        "max_batch_size: 8\n"
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        'instance_group [ { kind: KIND_GPU profile: [ "1" ] } ]'
    )
    profiles = (
        Profile(0, {"x": ((1, 16), (4, 64), (8, 256))}),
        Profile(1, {"x": ((1, 512), (4, 1024), (8, 2048))}),
    )
    _, variables, _ = plan_points(cfg, model_io(("x", (None, None)), profiles=profiles), {})
    assert [(v.range, v.source) for v in variables] == [((512, 1024, 2048), "profile")]


def test_by_default_every_size_the_batcher_can_send_runs_shape_points_at_declared_sizes() -> None:
    cfg = config(
        "max_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 4 ] }\n"
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]'
    )
    notes: list[str] = []
    assert batch_sizes(cfg, notes) == {
        1: ("1",),
        2: ("sweep",),
        3: ("sweep",),
        4: ("preferred",),
        5: ("sweep",),
        6: ("sweep",),
        7: ("sweep",),
        8: ("max_batch_size",),
    }
    points, _, _ = plan_points(cfg, None, {"x": (2, 4, 6)})
    per_batch = {
        b: sorted(p.shapes["x"][1] for p in points if p.batch_size == b) for b in range(1, 9)
    }
    assert per_batch[1] == per_batch[4] == per_batch[8] == [2, 4, 6]  # min, opt, max
    assert all(per_batch[b] == [4] for b in (2, 3, 5, 6, 7))  # opt only: linear cost
    assert len(points) == 3 * 3 + 5


def test_above_256_the_sweep_takes_1_to_64_powers_of_two_and_neighbours() -> None:
    assert swept_sizes(256) == list(range(1, 257))
    sizes = swept_sizes(1000)
    assert sizes == [*range(1, 66), 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000]
    assert left_out(1000, sizes) == [(66, 126), (130, 254), (258, 510), (514, 999)]
    assert left_out(8, range(1, 9)) == [] and left_out(8, [1, 8]) == [(2, 7)]
    assert left_out(2**31 - 1, [1]) == [(2, 2**31 - 1)]  # no walk over every size


def test_a_plan_that_leaves_sizes_out_says_which(tmp_path: Path) -> None:
    from probe.probekit import config_model, reshape_model

    root = tmp_path / "repo"
    config_model(
        root,
        "big",
        'name: "big"\nbackend: "onnxruntime"\nmax_batch_size: 300\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
    )
    reshape_model(root / "big" / "1" / "model.onnx", batch_one=False)
    (plan,) = plan_workspace(load([root]), {})
    assert plan.left_out == [(66, 126), (130, 254), (258, 299)]
    assert (
        "batch sizes left out: 66-126,130-254,258-299 (228 of the 300 the dynamic batcher can "
        "send; --batch-sizes 1-300 runs them all)"
    ) in plan.notes
    (listed,) = plan_workspace(load([root]), {}, coverage=parse_batch_sizes("1-3,400"))
    assert [p.batch_size for p in listed.points] == [1, 2, 3]
    assert "--batch-sizes 400 above max_batch_size 300: not probed" in listed.notes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("all", BatchCoverage("all")),
        ("Declared", BatchCoverage("declared")),
        ("1-4,8, 6", BatchCoverage("list", (1, 2, 3, 4, 6, 8))),
        ("16", BatchCoverage("list", (16,))),
    ],
)
def test_parse_batch_sizes(text: str, expected: BatchCoverage) -> None:
    assert parse_batch_sizes(text) == expected
    assert ranges_text([1, 2, 3, 4, 6, 8]) == "1-4,6,8"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("some", "expected all, declared, or sizes and ranges such as 1-32,48,64"),
        ("4-2", "4-2 needs 1 <= low <= high"),
        ("0", "0 needs 1 <= low <= high"),
        ("1,,2", "expected all, declared"),
    ],
)
def test_parse_batch_sizes_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_batch_sizes(text)
