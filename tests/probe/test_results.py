"""The pure parts above the runners: output checks, percentiles, statuses, exit codes and
suggestions, on results built here."""

from __future__ import annotations

import re

import pytest
from google.protobuf import text_format

from tritoncfg.api import format_text as fmt_text
from tritoncfg.probe.contract import (
    EXIT_CANNOT_RUN,
    EXIT_FAIL,
    EXIT_OK,
    PointResult,
    Status,
    TestPoint,
)
from tritoncfg.probe.measure import latencies, tail
from tritoncfg.probe.report import exit_status
from tritoncfg.probe.results import ModelResult, Reach, reach
from tritoncfg.probe.suggest import applied, curve, render, snippet, suggest
from tritoncfg.schema import ModelConfig
from tritoncfg.text import parse

np = pytest.importorskip("numpy")

from tritoncfg.probe.execute import check_outputs  # noqa: E402
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


def test_percentiles_are_nearest_rank_and_named_only_with_enough_samples() -> None:
    values = [float(v) for v in range(1, 101)]
    found = latencies(values)
    assert [found[q] for q in ("p50", "p90", "p95", "p99")] == [50.0, 90.0, 95.0, 99.0]
    assert tail(found, 100) == ("p99", 99.0)
    few = latencies([float(v) for v in range(1, 41)])  # 40 samples: no p99, p95 is one
    assert few["p99"] is None and few["p95"] == 38.0 and few["max"] == 40.0
    assert tail(few, 40) == ("p95", 38.0)
    one = latencies([3.0])
    assert one["p50"] is None and tail(one, 1) == ("max of 1", 3.0)
    nine = latencies([float(v) for v in range(1, 10)])  # p50 is one, p90 not yet
    assert nine["p50"] == 5.0 and tail(nine, 9) == ("max of 9", 9.0)


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
            point.latency_ms = {"p50": p99 / 2, "p90": p99, "p95": p99, "p99": p99, "max": p99}
            point.samples, point.stable, point.cv = 100, True, 0.01
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
BASE = text_format.Parse(
    'name: "m"\nmax_batch_size: 8\n'
    "instance_group [ { kind: KIND_CPU count: 3 } ]\n"
    "dynamic_batching { preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 100 }",
    ModelConfig(),
)


def test_suggest_prefers_the_knee_and_the_best_batch_size() -> None:
    found = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)))
    assert found is not None
    assert found.preferred_batch_size == [4, 8]  # 3700 >= 90% of 4000
    assert found.max_queue_delay_microseconds is None and found.instance_count == 1
    text = render(found, snippet(applied(found, BASE)))
    assert "preferred_batch_size: [ 4, 8 ]" in text and "    count: 1\n" in text
    assert fmt_text(text) == text  # the snippet is what `tritoncfg fmt` writes
    assert parse(text).ok


def test_a_suggestion_of_max_batch_size_alone_writes_no_preferred_size() -> None:
    """Triton already prefers max_batch_size (`NormalizeModelConfig`): as `gen dynamic-batching
    --from-perf`, the snippet leaves it out and says why."""
    found = suggest(result((1, "OK", 100.0, 1.0), (8, "OK", 1000.0, 2.0)))  # max_batch_size 8
    assert found is not None and found.preferred_batch_size == [8]
    text = render(found, snippet(applied(found, ModelConfig(max_batch_size=8))))
    assert "which Triton already prefers" in text
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines == [
        "instance_group [",
        "  {",
        "    count: 1",
        "  }",
        "]",
        "dynamic_batching { }",
    ]
    assert fmt_text(text) == text


def test_a_latency_budget_gives_tunes_pick_with_its_prediction() -> None:
    """With a budget the suggestion is the simulation's (tritoncfg/tune/advice.py): at the
    highest load within 2 ms, batch 4 without a delay, not the old rule's 500 µs (2 ms minus
    batch 4's p99), and the instance count as written (no rate: only the load is searched)."""
    found = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)), budget_ms=2.0, config=BASE)
    assert found is not None and found.prediction is not None
    assert found.instance_count == 3 and found.prediction["p99_ms"] <= 2.0
    assert found.prediction["rate_given"] is None and found.prediction["requests"] == 2_000
    plain = ModelConfig(max_batch_size=8)
    alone = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)), budget_ms=2.0, config=plain)
    assert alone is not None
    assert (alone.preferred_batch_size, alone.max_queue_delay_microseconds) == ([4], 0)
    assert alone.why[2].startswith("predicted at the highest load within the budget, ")


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
    assert over.why[1].endswith(": no configuration tried meets p99 <= 1 ms")


def test_the_snippet_keeps_the_fields_it_does_not_change() -> None:
    """kind and a queue delay the suggestion does not set stay as written."""
    found = suggest(result(*((b, "OK", t, p) for b, t, p in CURVE)))
    assert found is not None
    text = snippet(applied(found, BASE))
    assert "kind: KIND_CPU" in text and "count: 1" in text and "count: 3" not in text
    assert "max_queue_delay_microseconds: 100" in text
    assert "preferred_batch_size: [ 4, 8 ]" in text and "[ 2 ]" not in text
    with_budget = suggest(
        result(*((b, "OK", t, p) for b, t, p in CURVE)), budget_ms=2.0, config=BASE
    )
    assert with_budget is not None and with_budget.max_queue_delay_microseconds is not None
    delay = with_budget.max_queue_delay_microseconds
    written = re.search(r"max_queue_delay_microseconds: (\d+)", snippet(applied(with_budget, BASE)))
    assert (
        int(written[1]) if written else 0
    ) == delay  # the 100 replaced; 0 (the default) left out


def test_unstable_points_are_left_out_of_the_curve_and_the_reasons_say_so() -> None:
    measured = result(*((b, "OK", t, p) for b, t, p in CURVE))
    measured.points[-1].stable, measured.points[-1].cv = False, 0.2  # batch 8: 4,000 infer/s
    assert [p.point.batch_size for p in curve(measured)] == [1, 2, 4]
    found = suggest(measured)
    assert found is not None and found.preferred_batch_size == [4]  # 8 would be best
    assert found.why[0] == (
        "curve: 4 batch sizes measured, 3 stable (window cv 1.0%-1.0%); "
        "left out as unstable: batch 8 (cv 20.0%)"
    )


def test_a_tail_latency_from_few_samples_is_named_for_what_it_is() -> None:
    measured = result((1, "OK", 1000.0, 1.0), (8, "OK", 4000.0, 3.0))
    for point in measured.points:  # 9 timed runs: the max is all there is above p50
        point.samples = 9
        assert point.latency_ms is not None
        point.latency_ms.update(p90=None, p95=None, p99=None)
    measured.points[0].latency_ms = {**latencies([1.0]), "max": 1.0}  # one run: its max alone
    measured.points[0].samples = 1
    found = suggest(measured)
    assert found is not None and found.preferred_batch_size == [8]
    assert found.why[1] == "preferred [8]: batch 8 gives the best 4,000.0 infer/s"
    from tritoncfg.probe.suggest import _measured

    named = [_measured(p) for p in curve(measured)]  # the tail each time is drawn from
    assert [(m.percentile, m.latency_us) for m in named] == [
        ("max of 1", 1000.0),
        ("max of 9", 3000.0),
    ]


def test_the_batch_reach_is_the_run_from_1_and_the_first_failure() -> None:
    odd = ModelResult("m", "/m", "onnxruntime", 8)
    for batch in range(1, 9):
        status: Status = "FAIL" if batch % 2 and batch > 1 else "OK"
        why = f"cannot reshape {batch}" if status == "FAIL" else None
        odd.points.append(PointResult(TestPoint(batch, {"x": (batch, 4)}), status, why))
    found = reach(odd)
    assert found == Reach(2, 3, "cannot reshape 3")
    assert found.text == "runs at 1-2; fails from 3: cannot reshape 3"
    healthy = result(*((b, "OK", 1.0, 1.0) for b in range(1, 9)))
    assert reach(healthy) == Reach(8, None, None) and reach(healthy).text == "runs at 1-8"  # type: ignore[union-attr]
    broken = result((1, "FAIL", 0, 0), (2, "OK", 1.0, 1.0))
    assert reach(broken) == Reach(None, 1, None)
    assert reach(ModelResult("m", "/m", None, 0)) is None
