"""The pure parts above the runners: output checks, percentiles, statuses, exit codes and
suggestions, on results built here."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from tritoncfg.api import format as fmt_text
from tritoncfg.probe.contract import (
    EXIT_CANNOT_RUN,
    EXIT_FAIL,
    EXIT_OK,
    PointResult,
    Status,
    TestPoint,
)
from tritoncfg.probe.report import exit_status
from tritoncfg.probe.results import ModelResult
from tritoncfg.probe.suggest import curve, render, suggest
from tritoncfg.schema import ModelConfig
from tritoncfg.text import parse

np = pytest.importorskip("numpy")

from tritoncfg.probe.execute import check_outputs, percentile  # noqa: E402
from tritoncfg.probe.inputs import make_input  # noqa: E402

CONFIG = text_format.Parse(
    'name: "m"\nmax_batch_size: 8\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] },'
    ' { name: "z" data_type: TYPE_INT64 dims: [ -1 ] reshape { shape: [ 1, -1 ] } } ]',
    ModelConfig(),
)
POINT = TestPoint(2, {"x": (2, 4)})


def test_outputs_that_match_the_config_pass() -> None:
    outputs = {"y": np.zeros((2, 4), np.float32), "z": np.zeros((2, 1, 7), np.int64)}
    assert check_outputs(CONFIG, POINT, outputs) is None


@pytest.mark.parametrize(
    ("outputs", "reason"),
    [
        ({"z": np.zeros((2, 1, 7), np.int64)}, "the model returns no output 'y' (it returns: z)"),
        (
            {"y": np.zeros((2, 4), np.float64), "z": np.zeros((2, 1, 7), np.int64)},
            "output 'y' is TYPE_FP64, the config declares TYPE_FP32",
        ),
        (
            {"y": np.zeros((1, 4), np.float32), "z": np.zeros((2, 1, 7), np.int64)},
            "output 'y' has shape [1, 4], the config declares 2x4 at this point",
        ),
        (
            {"y": np.zeros((2, 4), np.float32), "z": np.zeros((2, 7), np.int64)},
            "output 'z' has shape [2, 7], the config declares 2x1xN at this point",
        ),
    ],
)
def test_outputs_that_break_the_config_fail_with_the_reason(
    outputs: dict[str, object], reason: str
) -> None:
    assert check_outputs(CONFIG, POINT, outputs) == reason  # type: ignore[arg-type]


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert [percentile(values, q) for q in ("p50", "p90", "p99")] == [50.0, 90.0, 99.0]
    assert percentile([3.0], "p99") == 3.0


def test_generated_inputs_are_seeded_typed_and_in_range() -> None:
    first = make_input("x", "TYPE_FP16", (2, 3), seed=1)
    assert first.dtype == np.float16 and first.shape == (2, 3)
    assert np.array_equal(first, make_input("x", "TYPE_FP16", (2, 3), seed=1))
    assert not np.array_equal(first, make_input("x", "TYPE_FP16", (2, 3), seed=2))
    assert ((first >= 0) & (first < 1)).all()
    ints = make_input("ids", "TYPE_INT32", (50,), seed=0)
    assert ints.dtype == np.int32 and set(ints.tolist()) <= {0, 1}
    assert make_input("s", "TYPE_STRING", (2,), seed=0).dtype == object


def result(*points: tuple[int, Status, float, float], model: str = "m") -> ModelResult:
    found = ModelResult(model, "/m", "onnxruntime", 8)
    for batch, status, throughput, p99 in points:
        point = PointResult(TestPoint(batch, {"x": (batch, 4)}, reasons=("opt",)), status)
        if status == "OK":
            point.throughput = throughput
            point.latency_ms = {"p50": p99 / 2, "p90": p99, "p99": p99}
        found.points.append(point)
    return found


def test_a_model_is_as_bad_as_its_worst_point_and_the_exit_status_follows() -> None:
    ok = result((1, "OK", 10.0, 1.0))
    failed = result((1, "OK", 10.0, 1.0), (2, "FAIL", 0, 0))
    skipped = result((1, "SKIP", 0, 0))
    assert (ok.status, failed.status, skipped.status) == ("OK", "FAIL", "SKIP")
    assert exit_status([ok, skipped]) == EXIT_OK
    assert exit_status([ok, failed]) == EXIT_FAIL
    unavailable = result((1, "SKIP", 0, 0))
    unavailable.unavailable = True
    assert exit_status([ok, unavailable]) == EXIT_CANNOT_RUN
    assert exit_status([failed, unavailable]) == EXIT_FAIL


CURVE = ((1, 1000.0, 1.0), (2, 1900.0, 1.2), (4, 3700.0, 1.5), (8, 4000.0, 3.0))


def test_suggest_prefers_the_knee_and_the_best_batch_size() -> None:
    found = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)))
    assert found is not None
    assert found.preferred_batch_size == [4, 8]  # 3700 >= 90% of 4000
    assert found.max_queue_delay_microseconds is None and found.instance_count == 1
    text = render(found, 8)
    assert "preferred_batch_size: [ 4, 8 ]" in text and "    count: 1\n" in text
    assert fmt_text(text) == text  # the snippet is what `tritoncfg fmt` writes
    assert parse(text).ok


def test_a_suggestion_of_max_batch_size_alone_writes_no_preferred_size() -> None:
    """Triton already prefers max_batch_size (`NormalizeModelConfig`): as `gen dynamic-batching
    --from-perf`, the snippet leaves it out and says why."""
    found = suggest(result((1, "OK", 100.0, 1.0), (8, "OK", 1000.0, 2.0)))  # max_batch_size 8
    assert found is not None and found.preferred_batch_size == [8]
    text = render(found, 8)
    assert "which Triton already prefers" in text
    snippet = [line for line in text.splitlines() if not line.startswith("#")]
    assert snippet == [
        "instance_group [",
        "  {",
        "    count: 1",
        "  }",
        "]",
        "dynamic_batching { }",
    ]
    assert fmt_text(text) == text


def test_a_latency_budget_bounds_the_sizes_and_gives_the_queue_delay() -> None:
    found = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)), budget_ms=2.0)
    assert found is not None
    assert found.preferred_batch_size == [4]  # batch 8's p99 3 ms is over the budget
    assert found.max_queue_delay_microseconds == 500  # 2.0 ms - 1.5 ms


def test_a_target_rate_sizes_the_instance_count_and_a_flat_curve_asks_for_two() -> None:
    found = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)), target_rps=10000)
    assert found is not None and found.instance_count == 3  # ceil(10000 / 4000)
    assert "count 3: 10,000 infer/s target / 4,000 per instance" in found.why
    flat = suggest(result((1, "OK", 1000.0, 1.0), (8, "OK", 1200.0, 8.0)))
    assert flat is not None and flat.instance_count == 2


def test_the_curve_takes_ok_points_only_and_nothing_to_suggest_from_is_none() -> None:
    mixed = result((1, "OK", 1000.0, 1.0), (4, "FAIL", 0, 0))
    assert [p.point.batch_size for p in curve(mixed)] == [1]
    assert suggest(result((1, "FAIL", 0, 0))) is None
    over = suggest(result((1, "OK", 1000.0, 5.0)), budget_ms=1.0)
    assert over is not None and over.preferred_batch_size == []
    assert "no batch size runs within the 1 ms budget" in over.why[0]
