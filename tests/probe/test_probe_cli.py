"""`tritoncfg probe` end to end: real ONNX models, real ONNX Runtime, real worker processes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from clikit import run

pytest.importorskip("onnxruntime")
jsonschema = pytest.importorskip("jsonschema")

from probe.probekit import (  # noqa: E402
    FAST,
    config_model,
    examples_built,
    identity_model,
    models,
    reshape_repository,
    rows,
    validated,
)


@pytest.fixture(scope="module")
def example_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return examples_built(tmp_path_factory.mktemp("examples") / "model_repository")


@pytest.fixture(scope="module")
def reshape_twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reshape_repository(tmp_path_factory.mktemp("twins") / "repo")


def test_the_example_repository_runs_at_every_declared_point(example_repository: Path) -> None:
    done = run("probe", str(example_repository))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for label in (f"b={b} features={b}x16" for b in range(1, 9)):  # every size 1..8
        assert label in out
    assert "batch sizes: runs at 1-8" in out
    assert "python backend: tritoncfg never imports or runs model.py" in out
    assert "classifier: b=8 features=8x16" in out  # the ensemble, through its ONNX step
    assert "Traceback" not in done.stderr


def test_the_example_repository_as_json_follows_the_schema(example_repository: Path) -> None:
    done = run("probe", str(example_repository), "--format", "json", *FAST)
    assert done.returncode == 0, done.stderr
    document = validated(done.stdout)
    found = models(document)
    classifier = found["classifier"]
    assert classifier["runner"] == "onnxruntime" and classifier["status"] == "OK"
    assert rows(classifier) == [(f"b={b} features={b}x16", "OK") for b in range(1, 9)]
    assert classifier["runs_up_to"] == 8 and classifier["first_failure"] is None
    assert classifier["batch_sizes_left_out"] == []
    point = classifier["points"][7]
    assert point["batch_size"] == 8 and point["shapes"] == {"features": [8, 16]}
    assert point["output_shapes"] == {"probabilities": [8, 4]}
    assert point["output_dtypes"] == {"probabilities": "TYPE_FP32"}
    latency = point["latency_ms"]
    assert point["throughput"] > 0 and point["samples"] == 3  # --runs 1, 3 windows of one run
    assert latency["p99"] is None and latency["p90"] is None  # 3 samples: neither is one
    assert 0 < latency["p50"] <= latency["max"]
    assert point["stability"]["windows"] == 3
    assert point["first_run_ms"] > 0
    assert classifier["runtime"]["providers"][-1] == "CPUExecutionProvider"
    assert found["preprocess"]["status"] == "SKIP" and found["preprocess"]["points"] == []
    pipeline = found["classification_pipeline"]
    assert pipeline["runner"] == "ensemble"
    assert list(pipeline["runtime"]) == ["classifier"]
    assert [(p["step"], p["status"]) for p in pipeline["points"]] == [
        ("preprocess", "SKIP"),
        *[("classifier", "OK")] * 8,
        ("postprocess", "SKIP"),
    ]  # the ensemble sends every batch size up to its max_batch_size 8
    assert document["summary"]["exit_status"] == 0


def test_a_constant_batch_one_reshape_fails_where_its_healthy_twin_passes(
    reshape_twins: Path,
) -> None:
    lint = run("lint", str(reshape_twins))
    assert lint.returncode == 0 and "All checks passed (2 models" in lint.stdout, lint.stdout
    done = run("probe", str(reshape_twins), "--format", "json", "--batch-sizes", "declared", *FAST)
    assert done.returncode == 1, done.stderr
    found = models(validated(done.stdout))
    assert rows(found["healthy"]) == [("b=1 x=1x4", "OK"), ("b=4 x=4x4", "OK"), ("b=8 x=8x4", "OK")]
    assert rows(found["broken"]) == [
        ("b=1 x=1x4", "OK"),
        ("b=4 x=4x4", "FAIL"),
        ("b=8 x=8x4", "FAIL"),
    ]
    assert found["broken"]["batch_sizes_left_out"] == [[2, 3], [5, 7]]
    reason = found["broken"]["points"][2]["reason"]
    assert "The input tensor cannot be reshaped to the requested shape" in reason  # ORT's words
    assert "Input shape:{8,4}, requested shape:{1,4}" in reason
    assert found["broken"]["status"] == "FAIL"


def test_the_table_names_the_failing_point(reshape_twins: Path) -> None:
    done = run("probe", str(reshape_twins / "broken"), *FAST)
    assert done.returncode == 1
    failing = [line for line in done.stdout.splitlines() if "FAIL" in line and "b=" in line]
    assert failing and failing[0].lstrip().startswith("b=2 x=2x4"), done.stdout
    assert "7 FAIL" in done.stdout
    assert "batch sizes: runs at 1; fails from 2: [ONNXRuntimeError]" in done.stdout
    assert "onnxruntime" not in done.stderr  # ORT's message is on the row, not logged again


def test_plan_only_prints_the_points_and_runs_nothing(example_repository: Path) -> None:
    done = run("probe", str(example_repository / "classifier"), "--plan-only")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "classifier: onnxruntime (model.onnx), 8 points",
        "  b=1 features=1x16  [1]",
        "  b=2 features=2x16  [sweep]",
        "  b=3 features=3x16  [sweep]",
        "  b=4 features=4x16  [preferred]",
        "  b=5 features=5x16  [sweep]",
        "  b=6 features=6x16  [sweep]",
        "  b=7 features=7x16  [sweep]",
        "  b=8 features=8x16  [preferred, max_batch_size]",
    ]
    declared = run(
        "probe", str(example_repository / "classifier"), "--plan-only", "--batch-sizes", "declared"
    )
    assert declared.stdout.splitlines()[0] == "classifier: onnxruntime (model.onnx), 3 points"
    assert declared.stdout.splitlines()[-1] == (
        "  note: batch sizes left out: 2-3,5-7 (5 of the 8 the dynamic batcher can send; "
        "--batch-sizes 1-8 runs them all)"
    )


def test_generated_inputs_cover_strings_bools_and_ints(tmp_path: Path) -> None:
    from probe.probekit import TensorProto

    root = tmp_path / "repo"
    config_model(
        root,
        "typed",
        'backend: "onnxruntime"\nmax_batch_size: 2\n'
        'input [ { name: "s" data_type: TYPE_STRING dims: [ 3 ] },'
        ' { name: "b" data_type: TYPE_BOOL dims: [ 3 ] },'
        ' { name: "i" data_type: TYPE_INT64 dims: [ 3 ] } ]\n'
        'output [ { name: "s_out" data_type: TYPE_STRING dims: [ 3 ] },'
        ' { name: "b_out" data_type: TYPE_BOOL dims: [ 3 ] },'
        ' { name: "i_out" data_type: TYPE_INT64 dims: [ 3 ] } ]\n',
    )
    identity_model(
        root / "typed" / "1" / "model.onnx",
        [
            ("s", TensorProto.STRING, ["N", 3]),
            ("b", TensorProto.BOOL, ["N", 3]),
            ("i", TensorProto.INT64, ["N", 3]),
        ],
    )
    done = run("probe", str(root), "--format", "json", *FAST)
    assert done.returncode == 0, done.stdout + done.stderr
    point = models(validated(done.stdout))["typed"]["points"][-1]
    assert point["output_dtypes"] == {
        "s_out": "TYPE_STRING",
        "b_out": "TYPE_BOOL",
        "i_out": "TYPE_INT64",
    }
    assert point["output_shapes"] == {"s_out": [2, 3], "b_out": [2, 3], "i_out": [2, 3]}


def test_real_inputs_from_data_dir(reshape_twins: Path, tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    (tmp_path / "data" / "healthy").mkdir(parents=True)
    np.save(tmp_path / "data" / "healthy" / "x.npy", np.arange(4, dtype=np.float64))  # cast
    data = ("--data-dir", str(tmp_path / "data"))
    done = run("probe", str(reshape_twins / "healthy"), *data, "-f", "json", *FAST)
    assert done.returncode == 0, done.stderr
    points = models(validated(done.stdout))["healthy"]["points"]
    assert [p["inputs"] for p in points] == ["data-dir"] * 8


def test_a_runner_that_cannot_run_here_exits_3_with_the_reason(reshape_twins: Path) -> None:
    done = run("probe", str(reshape_twins / "healthy"), "--runtime", "tensorrt", "-f", "json")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "cannot run here" in done.stderr
    document = validated(done.stdout)
    assert {p["status"] for p in document["models"][0]["points"]} == {"SKIP"}


def test_output_is_written_atomically_and_matches_stdout(
    reshape_twins: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "probe.json"
    target.parent.mkdir()
    done = run("probe", str(reshape_twins / "healthy"), "-o", str(target), *FAST)
    assert done.returncode == 0
    written = validated(target.read_text())
    assert rows(written["models"][0]) == [(f"b={b} x={b}x4", "OK") for b in range(1, 9)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--dim", "x=8:4:2"), "needs 1 <= min <= opt <= max"),
        (("--shard", "3/2"), "expected I/N with 0 <= I < N"),
        (("--output", "."), ".: is a directory; --output names the JSON report's file"),
        (("--latency-budget-ms", "5"), "--latency-budget-ms is an option of --suggest"),
        (("--target-rps", "10"), "--target-rps is an option of --suggest: give --suggest too"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    reshape_twins: Path, args: tuple[str, ...], message: str
) -> None:
    done = run("probe", str(reshape_twins), *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_shards_split_the_models(reshape_twins: Path) -> None:
    first = run("probe", str(reshape_twins), "--plan-only", "--shard", "0/2")
    second = run("probe", str(reshape_twins), "--plan-only", "--shard", "1/2")
    assert first.stdout.startswith("broken:") and second.stdout.startswith("healthy:")
    assert "healthy" not in first.stdout and "broken" not in second.stdout


def test_suggest_reads_the_measured_curve(reshape_twins: Path) -> None:
    args = ("probe", str(reshape_twins / "healthy"), "--suggest", *FAST)
    args += ("--stability-percentage", "100000")  # 3 runs a point: count every point stable
    table = run(*args, "--latency-budget-ms", "1000")
    assert table.returncode == 0, table.stderr
    assert "dynamic_batching {" in table.stdout
    # the delay tune picked (0 and 100 us are within noise of each other on this model) is the
    # one the snippet writes: 0 is proto3's default, so it is left out there
    (delay,) = re.findall(
        r"preferred \[[\d, ]*\], max_queue_delay_microseconds (\d+),", table.stdout
    )
    written = f"max_queue_delay_microseconds: {delay}\n" in table.stdout
    assert written == (int(delay) > 0), table.stdout
    # with a budget: tune's pick, with what it predicts at the load it assumed (docs/tune.md)
    assert "#   predicted at the highest load within the budget, " in table.stdout
    budgeted = validated(run(*args, "--latency-budget-ms", "1000", "-f", "json").stdout)
    (picked,) = budgeted["suggestions"]
    assert picked["prediction"]["p99_ms"] <= 1000 and picked["prediction"]["rate_given"] is None
    document = validated(run(*args, "--target-rps", "1", "-f", "json").stdout)
    (suggestion,) = document["suggestions"]
    assert suggestion["model"] == "healthy" and suggestion["instance_count"] == 1
    assert set(suggestion["preferred_batch_size"]) <= set(range(1, 9))
    assert suggestion["preferred_batch_size"]


def test_a_model_onnx_runtime_cannot_load_fails_every_point_with_its_message(
    tmp_path: Path,
) -> None:
    from models.onnxkit import FLOAT, make_onnx

    root = tmp_path / "repo"
    config_model(
        root,
        "opaque",
        'backend: "onnxruntime"\nmax_batch_size: 2\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
    )
    make_onnx(
        root / "opaque" / "1" / "model.onnx", [("x", FLOAT, ["N", 4])], [("y", FLOAT, ["N", 4])]
    )
    done = run("probe", str(root), "-f", "json")
    assert done.returncode == 1, done.stderr
    model = models(validated(done.stdout))["opaque"]
    assert [p["status"] for p in model["points"]] == ["FAIL", "FAIL"]
    reason = model["points"][0]["reason"]
    assert reason.startswith("ONNX Runtime cannot load model.onnx: ")
    assert "Opaque" in reason  # ORT's own words about the unknown op


def test_sequence_control_inputs_are_fed_as_triton_adds_them(tmp_path: Path) -> None:
    from probe.probekit import TensorProto

    root = tmp_path / "repo"
    config_model(
        root,
        "seq",
        'backend: "onnxruntime"\nmax_batch_size: 2\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "x_out" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'sequence_batching { control_input [ { name: "START" control [ { '
        "kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ] }\n",
    )
    identity_model(
        root / "seq" / "1" / "model.onnx",
        [("x", TensorProto.FLOAT, ["N", 4]), ("START", TensorProto.INT32, ["N", 1])],
    )
    done = run("probe", str(root), "-f", "json", *FAST)
    assert done.returncode == 0, done.stdout + done.stderr
    points = models(validated(done.stdout))["seq"]["points"]
    assert [p["shapes"] for p in points] == [
        {"x": [1, 4], "START": [1, 1]},
        {"x": [2, 4], "START": [2, 1]},
    ]
    assert points[1]["output_dtypes"]["START_out"] == "TYPE_INT32"


def test_an_ensemble_step_gets_what_the_step_before_it_returned(tmp_path: Path) -> None:
    from probe.probekit import TensorProto

    root = tmp_path / "repo"
    for name, tensor in (("first", "a"), ("second", "b")):
        config_model(
            root,
            name,
            f'backend: "onnxruntime"\nmax_batch_size: 4\n'
            f'input [ {{ name: "{tensor}" data_type: TYPE_FP32 dims: [ 3 ] }} ]\n'
            f'output [ {{ name: "{tensor}_out" data_type: TYPE_FP32 dims: [ 3 ] }} ]\n',
        )
        identity_model(root / name / "1" / "model.onnx", [(tensor, TensorProto.FLOAT, ["N", 3])])
    (
        config_model(
            root,
            "pipe",
            'platform: "ensemble"\nmax_batch_size: 4\n'
            'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 3 ] } ]\n'
            'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 3 ] } ]\n'
            "ensemble_scheduling { step [\n"
            ' { model_name: "first" model_version: -1 input_map { key: "a" value: "IN" }'
            ' output_map { key: "a_out" value: "MID" } },\n'
            ' { model_name: "second" model_version: -1 input_map { key: "b" value: "MID" }'
            ' output_map { key: "b_out" value: "OUT" } } ] }\n',
        )
        / "1"
    ).mkdir()
    done = run("probe", str(root / "pipe"), "-f", "json", *FAST)
    assert done.returncode == 0, done.stdout + done.stderr
    points = models(validated(done.stdout))["pipe"]["points"]
    assert [(p["label"], p["inputs"]) for p in points] == [
        *[(f"first: b={b} a={b}x3", "generated") for b in range(1, 5)],
        *[(f"second: b={b} b={b}x3", "wiring") for b in range(1, 5)],
    ]


def test_a_model_without_a_config_runs_as_triton_completes_it(tmp_path: Path) -> None:
    from probe.probekit import reshape_model

    reshape_model(tmp_path / "repo" / "bare" / "1" / "model.onnx", batch_one=False)
    done = run("probe", str(tmp_path / "repo"), "-f", "json", *FAST)
    assert done.returncode == 0, done.stdout + done.stderr
    model = models(validated(done.stdout))["bare"]
    # the ONNX Runtime backend's auto-complete: batching, max_batch_size 4 by default
    assert model["max_batch_size"] == 4
    assert rows(model) == [(f"b={b} x={b}x4", "OK") for b in range(1, 5)]


def test_the_summary_counts_the_models_skipped_whole(example_repository: Path) -> None:
    """A model skipped before any point (python models) has no point to count: the summary
    counts it apart, so its untested shapes do not vanish from the totals."""
    done = run("probe", str(example_repository), "--format", "json", *FAST)
    assert done.returncode == 0, done.stderr
    document = validated(done.stdout)
    whole = [m["model"] for m in document["models"] if m["status"] == "SKIP" and not m["points"]]
    assert "preprocess" in whole
    summary = document["summary"]
    assert summary["models_skipped"] == len(whole) and summary["models_failed"] == 0
    table = run("probe", str(example_repository), *FAST)
    assert f"({len(whole)} skipped whole): " in table.stdout.splitlines()[-1], table.stdout


def test_a_single_point_plan_says_point(tmp_path: Path) -> None:
    from onnx import TensorProto

    model = config_model(
        tmp_path / "repo",
        "one",
        'backend: "onnxruntime"\nmax_batch_size: 0\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "x_out" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
    )
    identity_model(model / "1" / "model.onnx", [("x", TensorProto.FLOAT, [4])])
    done = run("probe", str(model), "--plan-only")
    assert done.returncode == 0, done.stderr
    assert "one: onnxruntime (model.onnx), 1 point\n" in done.stdout


def test_a_dim_no_model_has_is_a_usage_error(tmp_path: Path) -> None:
    """`--dim` names an input, INPUT.AXIS or a symbolic dim; one that no variable dim of the
    models goes by (a typo, or a fixed input) stops probe before it runs anything."""
    config_model(
        tmp_path,
        "var",
        'name: "var"\nbackend: "onnxruntime"\nmax_batch_size: 4\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        'output [ { name: "x_out" data_type: TYPE_FP32 dims: [ -1 ] } ]\n',
    )
    (tmp_path / "var" / "1").mkdir()
    identity_model(tmp_path / "var" / "1" / "model.onnx", [("x", 1, ["N", "L"])])
    used = run("probe", str(tmp_path / "var"), "--plan-only", "--dim", "x=2:3:5")
    assert used.returncode == 0, used.stderr
    assert "x=1x5" in used.stdout  # the range was read: x's -1 dim at its max
    for name in ("nothere", "x.2"):
        typo = run("probe", str(tmp_path / "var"), "--plan-only", "--dim", f"{name}=2:3:5")
        assert typo.returncode == 2, typo.stdout
        assert f"--dim {name}: no variable (-1) dim of the models probed" in typo.stderr


def test_batch_sizes_above_max_leave_the_model_skipped_not_ok(reshape_twins: Path) -> None:
    done = run("probe", str(reshape_twins / "healthy"), "--batch-sizes", "9", "-f", "json", *FAST)
    assert done.returncode == 0, done.stderr
    (model,) = validated(done.stdout)["models"]
    assert (model["status"], model["points"]) == ("SKIP", [])
    assert model["reason"] == "nothing to probe: no test point (see the notes)"
    assert "--batch-sizes 9 above max_batch_size 8: not probed" in model["notes"]
