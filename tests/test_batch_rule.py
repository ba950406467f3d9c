"""One rule for preferred batch sizes (tritoncfg/batch_rule.py): `gen dynamic-batching
--from-perf` and `probe --suggest` give the same sizes and queue delay on the same throughput
table, whether gen reads it as a perf_analyzer CSV or as the probe report of those results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritoncfg.batch_rule import SHARE, Measured, pick
from tritoncfg.gen.perf import choose, read_perf
from tritoncfg.probe.contract import PointResult, TestPoint
from tritoncfg.probe.report import to_json
from tritoncfg.probe.results import ModelResult
from tritoncfg.probe.suggest import suggest

MAX_BATCH_SIZE = 16
# name -> (batch size, inferences/s, p99 ms) rows, latency budget (ms), sizes, queue delay (µs)
TABLES: dict[
    str, tuple[list[tuple[int, float, float]], float | None, tuple[int, ...], int | None]
] = {
    "the smallest size within 90% of the best, and the best": (
        [(1, 1000.0, 1.0), (2, 1900.0, 1.2), (4, 3700.0, 1.5), (8, 4000.0, 3.0)],
        None,
        (4, 8),
        None,
    ),
    "a budget leaves out the slow sizes and gives the delay": (
        [(1, 1000.0, 1.0), (2, 1900.0, 1.2), (4, 3700.0, 1.5), (8, 4000.0, 3.0)],
        2.0,
        (4,),
        500,
    ),
    "a plateau early in the curve does not end the search": (
        [(1, 100.0, 1.0), (2, 104.0, 1.1), (4, 300.0, 2.0), (16, 310.0, 4.0)],
        None,
        (4, 16),
        None,
    ),
    "the best alone when nothing smaller comes close": (
        [(1, 100.0, 1.0), (2, 190.0, 1.1), (4, 400.0, 1.4)],
        5.0,
        (4,),
        3600,
    ),
}


def probe_result(rows: list[tuple[int, float, float]]) -> ModelResult:
    found = ModelResult("m", "/repo/m", "onnxruntime", MAX_BATCH_SIZE)
    for batch, rate, p99 in rows:
        point = PointResult(TestPoint(batch, {"x": (batch, 4)}, reasons=("opt",)), "OK")
        point.throughput, point.latency_ms = rate, {"p50": p99 / 2, "p90": p99, "p99": p99}
        found.points.append(point)
    return found


def perf_csv(rows: list[tuple[int, float, float]], path: Path) -> Path:
    lines = ["Concurrency,Inferences/Second,p50 latency,p99 latency,Batch"]
    lines += [f"1,{rate},{round(p99 * 500)},{round(p99 * 1000)},{b}" for b, rate, p99 in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", TABLES)
def test_gen_and_probe_pick_the_same_sizes(name: str, tmp_path: Path) -> None:
    rows, budget, sizes, delay = TABLES[name]
    measured = [Measured(b, rate, p99 * 1000) for b, rate, p99 in rows]
    assert (pick(measured, budget).sizes, pick(measured, budget).delay_us) == (sizes, delay)

    suggestion = suggest(probe_result(rows), budget_ms=budget)
    assert suggestion is not None
    assert (suggestion.preferred_batch_size, suggestion.max_queue_delay_microseconds) == (
        list(sizes),
        delay,
    )

    report = tmp_path / "probe.json"
    report.write_text(json.dumps(to_json([probe_result(rows)])), encoding="utf-8")
    for source in (report, perf_csv(rows, tmp_path / "sweep.csv")):
        chosen = choose(read_perf(str(source), "m"), MAX_BATCH_SIZE, budget)
        assert (chosen.preferred, chosen.delay_us) == (sizes, delay), source.name
        assert set(pick(measured, budget).why) <= set(chosen.notes), source.name
    assert set(pick(measured, budget).why) <= set(suggestion.why)  # the same reasons


def test_the_rule_reads_a_curve_in_any_order_and_explains_itself() -> None:
    curve = [Measured(8, 4000.0, 3000.0), Measured(1, 1000.0, None), Measured(4, 3700.0, 1500.0)]
    found = pick(curve, 2.0)
    assert found.sizes == (4,) and found.delay_us == 500
    assert found.best == Measured(4, 3700.0, 1500.0)
    assert found.why[0] == "over the 2 ms budget: batch 8 (p99 3.000 ms)"
    assert SHARE * 4000.0 <= 3700.0  # unbudgeted, 4 is within 90% of 8: both are preferred
    assert pick(curve).sizes == (4, 8) and pick(curve).delay_us is None
    unknown = pick(curve, 0.5)  # batch 1 has no latency: it fits any budget
    assert (unknown.sizes, unknown.delay_us) == ((1,), 500)
    nothing = pick(curve[::2], 0.5)
    assert (nothing.sizes, nothing.delay_us, nothing.best) == ((), None, None)
    assert nothing.why == ("no batch size runs within the 0.5 ms budget (batch 4: p99 1.500 ms)",)
    assert pick([]).why == ("no batch size was measured",) and pick([]).sizes == ()
