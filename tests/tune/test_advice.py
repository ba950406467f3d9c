"""One pick for a latency budget (tritoncfg/tune/advice.py): `probe --suggest --latency-budget-ms`,
`gen dynamic-batching --from-perf --latency-budget-ms` and `tune --keep-max-batch-size` run the
same search on the same curve, so they give the same preferred sizes and queue delay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run

from tritoncfg.probe.contract import PointResult, TestPoint
from tritoncfg.probe.report import to_json
from tritoncfg.probe.results import ModelResult
from tritoncfg.probe.suggest import suggest
from tritoncfg.text import parse
from tritoncfg.tune.advice import REQUESTS

CONFIG = """name: "m"
backend: "python"
max_batch_size: 16
input [
  {
    name: "X"
    data_type: TYPE_FP32
    dims: [ 4 ]
  }
]
output [
  {
    name: "Y"
    data_type: TYPE_FP32
    dims: [ 4 ]
  }
]
instance_group [
  {
    count: 1
    kind: KIND_CPU
  }
]
"""
# (batch size, inferences/s, p99 ms): the model, in-process p99 0.017 ms at batch 1
FAST = [(1, 60_000.0, 0.017), (2, 110_000.0, 0.019), (4, 190_000.0, 0.022), (16, 400_000.0, 0.042)]
# a model of milliseconds, whose batch of 16 alone takes most of a 10 ms budget
SLOW = [(1, 500.0, 2.2), (4, 1_600.0, 2.7), (8, 2_500.0, 3.5), (16, 3_000.0, 5.8)]


def _result(rows: list[tuple[int, float, float]]) -> ModelResult:
    found = ModelResult("m", "/repo/m", "python", 16)
    for batch, rate, p99 in rows:
        point = PointResult(TestPoint(batch, {"X": (batch, 4)}, reasons=("opt",)), "OK")
        point.throughput, point.samples = rate, 200
        point.latency_ms = {"p50": p99 * 0.8, "p90": p99 * 0.9, "p99": p99, "max": p99}
        point.stable = True
        found.points.append(point)
    return found


def _model(tmp_path: Path, rows: list[tuple[int, float, float]]) -> tuple[Path, Path]:
    model = tmp_path / "repo" / "m"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("# never imported by tritoncfg\n")
    (model / "config.pbtxt").write_text(CONFIG)
    report = tmp_path / "probe.json"
    report.write_text(json.dumps(to_json([_result(rows)])))
    return model, report


def _gen(model: Path, report: Path, budget: float, *more: str) -> tuple[list[int], int, str]:
    done = run(
        "gen", "dynamic-batching", str(model), "--from-perf", str(report),
        "--latency-budget-ms", f"{budget:g}", *more, "--write",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    block = parse((model / "config.pbtxt").read_text()).message.dynamic_batching
    return list(block.preferred_batch_size) or [16], block.max_queue_delay_microseconds, done.stderr


@pytest.mark.parametrize(
    ("rows", "budget", "rate"), [(FAST, 1.0, None), (SLOW, 10.0, 2_000.0)], ids=["fast", "slow"]
)
def test_probe_gen_and_tune_pick_the_same_sizes_and_delay(
    rows: list[tuple[int, float, float]], budget: float, rate: float | None, tmp_path: Path
) -> None:
    model, report = _model(tmp_path, rows)
    load = () if rate is None else ("--rate", f"{rate:g}")
    tuned = run(
        "tune", str(model), "--slo-p99-ms", f"{budget:g}", *(load or ("--max-throughput",)),
        "--from-perf", str(report), "--keep-max-batch-size", "--requests", str(REQUESTS),
        "-f", "json",
    )  # fmt: skip
    assert tuned.returncode == 0, tuned.stderr
    winner = json.loads(tuned.stdout)["trials"][0]
    assert winner["meets"] and winner["max_batch_size"] == 16  # kept as written
    expected = (winner["preferred_batch_size"], winner["max_queue_delay_microseconds"])

    found = suggest(_result(rows), budget, rate, parse(CONFIG).message)
    assert found is not None and found.prediction is not None
    assert (found.preferred_batch_size, found.max_queue_delay_microseconds) == expected
    assert found.instance_count == winner["instances"]
    assert found.prediction["p99_ms"] == pytest.approx(winner["latency_ms"]["p99"], abs=1e-3)

    sizes, delay, notes = _gen(model, report, budget, *load)
    assert (sizes, delay) == expected
    assert f"{REQUESTS:,} requests per configuration" in notes


def test_a_fast_model_does_not_spend_a_1_ms_budget_on_queueing(tmp_path: Path) -> None:
    """The issue's case: the rule of a budget (budget minus the largest size's p99) wrote a
    queue delay of 983 µs for p99 0.017 ms (here 958: 1 ms - 0.042 ms at batch 16), spending the
    whole budget on queueing; the simulation needs a fraction of it at most."""
    model, report = _model(tmp_path, FAST)
    _, delay, notes = _gen(model, report, 1.0)
    assert delay < 500
    assert "predicted at the highest load within the budget" in notes
    assert "infer/s, p99 0.0" in notes  # well within the budget
    assert "network and (de)serialization are not in them" in notes


def test_the_prediction_is_printed_with_the_load_it_assumed() -> None:
    found = suggest(_result(SLOW), 10.0, 2_000.0, parse(CONFIG).message)
    assert found is not None and found.prediction is not None
    assert found.prediction["rate_given"] == 2_000.0 and found.prediction["p99_ms"] <= 10.0
    assert any(w.startswith("predicted at 2,000 requests/s: ") for w in found.why)
    assert found.why[0].startswith("curve: 4 batch sizes measured, 4 stable")


def test_a_budget_no_configuration_meets_writes_nothing(tmp_path: Path) -> None:
    model, report = _model(tmp_path, FAST)
    done = run(
        "gen", "dynamic-batching", str(model), "--from-perf", str(report),
        "--latency-budget-ms", "0.01", "--write",
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "no configuration tried meets p99 <= 0.01 ms; nothing written" in done.stderr
    assert (model / "config.pbtxt").read_text() == CONFIG
    found = suggest(_result(FAST), 0.01, None, parse(CONFIG).message)
    assert found is not None and found.preferred_batch_size == [] and found.prediction is None
    assert any("no configuration tried meets p99 <= 0.01 ms" in w for w in found.why)


def test_rate_needs_a_budget(tmp_path: Path) -> None:
    model, report = _model(tmp_path, FAST)
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(report), "--rate", "10")
    assert done.returncode == 2
    assert "--rate needs --latency-budget-ms" in done.stderr


def test_the_suggestions_search_with_dynamic_batching_on() -> None:
    """A config without dynamic_batching: the written scheduler (each request its own batch) is
    not a pick the suggestions could write, so they search with batching on. Here batching
    alone costs p99 (batch 2 is slower than batch 1's p99), yet the pick is a batcher."""
    from tritoncfg.batch_rule import Measured
    from tritoncfg.tune.advice import advise
    from tritoncfg.tune.batcher import BatcherConfig

    curve = [Measured(b, t, p * 1000, "p99", ((0.5, p * 500), (0.99, p * 1000))) for b, t, p in (
        (1, 1000.0, 1.0), (2, 1900.0, 1.2), (4, 3700.0, 1.5), (8, 4000.0, 3.0)
    )]  # fmt: skip
    found = advise(curve, BatcherConfig(8, dynamic=False), 2.0)
    assert found.meets and found.config.dynamic and found.preferred == (4,)
