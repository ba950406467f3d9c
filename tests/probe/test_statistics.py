"""Statistics a user can act on: measurement windows until stable, percentiles only where the
samples make them one, the spread of the windows, and suggestions that repeat run after run.

`NoisyCostRunner` is a real runner (the `Runner` protocol probe drives) whose cost per batch size
is a fixed function, disturbed as a busy machine disturbs a measurement; it reports its own
latencies (`RunOutput.latencies_ms`, as a runner timing on the device does), drawn from a seeded
generator, so each run's noise differs and every run is the same wherever the tests run. (A
runner that slept instead flipped its suggestion under load: a sleep woken 3 ms late for the
whole of one point.) The ONNX Runtime tests at the end time a real session by the clock: they
assert invariants of each measurement, and compare measurements only between copies of a point
timed in turn (a window of each, round after round), which a change in the machine's speed
reaches alike."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import text_format

from tritoncfg.probe.contract import PointResult, ProbeSettings, RunOutput, TestPoint
from tritoncfg.probe.measure import STABLE_WINDOWS, measure
from tritoncfg.probe.results import ModelResult
from tritoncfg.probe.suggest import suggest
from tritoncfg.schema import ModelConfig

np = pytest.importorskip("numpy")

from tritoncfg.probe.execute import run_point  # noqa: E402

CONFIG = text_format.Parse(
    'name: "m"\nmax_batch_size: 8\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    ModelConfig(),
)


def windows_of(*figures: float) -> Iterator[list[float]]:
    """A run whose latency is `figures[0]` for the first window, then the next, ... (with
    window_ms 0 and runs 2, a window is exactly two runs), the last one repeated."""
    for figure in itertools.chain(figures, itertools.repeat(figures[-1])):
        yield [figure]
        yield [figure]


def test_windows_repeat_until_the_last_three_agree() -> None:
    settings = ProbeSettings(timed_runs=2, window_ms=0, stability_percentage=10, max_windows=10)
    runs = windows_of(5.0, 2.0, 1.04, 1.08, 1.0)
    found = measure(lambda: next(runs), settings, batch=4)
    assert found.stable and found.window_medians == [5.0, 2.0, 1.04, 1.08, 1.0]
    assert found.samples == [1.04, 1.04, 1.08, 1.08, 1.0, 1.0]  # the last three windows'
    assert found.spread_ms == (1.0, 5.0)  # every window's median
    assert found.throughput == pytest.approx(4 / 0.001)  # batch / the fastest window's median
    assert found.latency_ms["p50"] == 1.04 and found.latency_ms["p99"] is None


def test_windows_that_never_agree_stop_at_max_windows_unstable() -> None:
    settings = ProbeSettings(timed_runs=2, window_ms=0, stability_percentage=10, max_windows=6)
    runs = windows_of(1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0)
    found = measure(lambda: next(runs), settings, batch=1)
    assert not found.stable and len(found.window_medians) == 6
    assert found.cv == pytest.approx(1 / 3)  # pstdev 0.5 / mean 1.5
    wider = ProbeSettings(timed_runs=2, window_ms=0, stability_percentage=100, max_windows=6)
    runs = windows_of(1.0, 2.0, 1.0, 2.0)
    assert measure(lambda: next(runs), wider, batch=1).stable  # 2 / 1 is within 100%
    assert len(found.samples) == STABLE_WINDOWS * 2


def test_a_window_lasts_its_time_and_holds_its_runs() -> None:
    settings = ProbeSettings(timed_runs=1, window_ms=20, stability_percentage=1000, max_windows=3)
    started = time.perf_counter()
    found = measure(lambda: [0.01], settings, batch=1)
    assert time.perf_counter() - started >= 3 * 0.02
    assert len(found.samples) > 30  # many runs fill a 20 ms window of fast runs
    assert found.latency_ms["p99"] == 0.01


class NoisyCostRunner:
    """A runner whose batch costs a fixed time, 1 ms up to batch 4 and 2.5 ms above (so batch 4
    gives 4,000 infer/s, the best, and 8 gives 3,200), reported as it would be measured on a
    busy machine: every run within 2% of it; one run in 20 preempted (1 to 10 ms more), which
    moves a window's mean and not its median; and now and then a stretch of `STRETCH` runs, a
    window's worth, taken by other work (1.5x slower), which the three windows that must agree
    and the fastest window leave out. Other work that slows every window of a point would move
    any measurement: a stretch is followed by `QUIET` runs without one. The noise comes from
    `random.Random(seed)`."""

    name = "noisy"
    STRETCH = 20  # runs slowed together: with `WINDOWED`, one window's worth
    QUIET = 80  # runs after a stretch before the next can start
    SLOWER = 1.5

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.slow_left = self.quiet_left = 0

    def load(self, model_file: Path, config: Any) -> None:
        return None

    def run(self, point: TestPoint, inputs: Mapping[str, Any]) -> RunOutput:
        batch = point.batch_size or 1
        cost = (1.0 if batch <= 4 else 2.5) * self.random.uniform(0.98, 1.02)
        if self.slow_left:
            self.slow_left -= 1
            self.quiet_left = 0 if self.slow_left else self.QUIET
            cost *= self.SLOWER
        elif self.quiet_left:
            self.quiet_left -= 1
        elif self.random.random() < 0.02:
            self.slow_left = self.STRETCH
        if self.random.random() < 0.05:
            cost += self.random.uniform(1.0, 10.0)
        return RunOutput({"y": np.zeros((batch, 4), np.float32)}, latencies_ms=[cost])

    def describe(self) -> dict[str, Any]:
        return {"runtime": "noisy"}

    def close(self) -> None:
        return None


# windows of exactly 20 runs each (no time limit: `window.py` stops at `timed_runs` runs), so a
# window holds the same runs, and the same noise, wherever the test runs
WINDOWED = ProbeSettings(window_ms=0, timed_runs=20, warmup_runs=1)


def probed(runner: Any, settings: ProbeSettings) -> ModelResult:
    """Every batch size 1..8 of CONFIG through probe's own point loop (`run_point`)."""
    result = ModelResult("m", "/m", runner.name, 8)
    for batch in range(1, 9):
        point = TestPoint(batch, {"x": (batch, 4)}, reasons=("sweep",))
        inputs = {"x": np.ones((batch, 4), np.float32)}
        found: PointResult = run_point(runner, CONFIG, point, inputs, settings)
        assert found.status == "OK", found.reason
        result.points.append(found)
    return result


def disturbed(runs: list[ModelResult]) -> None:
    """The noise reached the statistics: the runs' figures differ, some window was slowed by a
    stretch (its median 1.4x the point's fastest) and some mean moved by preempted runs."""
    means = {tuple((p.latency_ms or {}).get("mean") for p in run.points) for run in runs}
    assert len(means) == len(runs), means
    points = [p for run in runs for p in run.points]
    assert any(p.spread_ms and p.spread_ms[1] >= 1.4 * p.spread_ms[0] for p in points)
    assert any(
        p.latency_ms and (p.latency_ms["mean"] or 0) >= 1.1 * (p.latency_ms["p50"] or 0)
        for p in points
    )


def test_a_fixed_cost_runner_gives_the_same_suggestion_three_times() -> None:
    runs = [probed(NoisyCostRunner(seed), WINDOWED) for seed in (1, 2, 3)]
    disturbed(runs)
    chosen = []
    for run in runs:
        found = suggest(run)
        assert found is not None
        assert found.why[0].startswith("curve: 8 batch sizes measured, ")
        chosen.append((found.preferred_batch_size, found.instance_count))
    assert chosen == [([4], 1)] * 3, chosen


def test_the_spread_covers_the_run_to_run_variation() -> None:
    """Three whole runs of the fixed-cost runner, each with its own noise: each run's median
    latency at a batch size lies within the spread (min..max of the window medians) each other
    run reports, widened by the stability tolerance it was measured to."""
    runs = [probed(NoisyCostRunner(seed), WINDOWED) for seed in (4, 5, 6)]
    disturbed(runs)
    tolerance = WINDOWED.stability_percentage / 100
    for index in range(8):
        points = [run.points[index] for run in runs]
        for reported, other in itertools.permutations(points, 2):
            assert reported.spread_ms is not None and other.latency_ms is not None
            low, high = reported.spread_ms
            median = other.latency_ms["p50"]
            assert median is not None
            assert low * (1 - tolerance) <= median <= high * (1 + tolerance), (
                f"b={index + 1}: {median} outside {low}..{high}",
                [(p.spread_ms, (p.latency_ms or {}).get("p50")) for p in points],
            )


def mlp_model(path: Path, w1: Any, w2: Any) -> Path:
    """x [N, 4] -> MatMul w1 -> Relu -> MatMul w2 -> y [N, 4] (tens of us a batch), written to
    `path` with onnx.helper."""
    from probe.probekit import helper, write_model

    def dense(name: str, weights: Any) -> Any:
        return helper.make_tensor(name, 1, list(weights.shape), weights.ravel())

    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h1"]),
            helper.make_node("Relu", ["h1"], ["a1"]),
            helper.make_node("MatMul", ["a1", "w2"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", 1, ["N", 4])],
        [helper.make_tensor_value_info("y", 1, ["N", 4])],
        initializer=[dense("w1", w1), dense("w2", w2)],
    )
    written: Path = write_model(path, graph)
    return written


def test_onnx_runtime_points_report_their_windows_spread(tmp_path: Path) -> None:
    """A real ONNX Runtime session: every point is timed in windows, and its spread and
    coefficient of variation describe those windows (the figure lies within the spread)."""
    from tritoncfg.probe.runners.onnxruntime import OnnxRuntimeRunner

    rng = np.random.default_rng(0)
    model = mlp_model(tmp_path / "model.onnx", rng.random((4, 512)), rng.random((512, 4)))
    settings = ProbeSettings(window_ms=10, timed_runs=3, threads=1)
    runner = OnnxRuntimeRunner(settings)
    runner.load(model, CONFIG)
    result = probed(runner, settings)
    runner.close()
    for point in result.points:
        assert point.spread_ms is not None and point.latency_ms is not None
        assert point.windows >= STABLE_WINDOWS and point.samples >= STABLE_WINDOWS * 3
        low, high = point.spread_ms
        median = point.latency_ms["p50"]
        assert median is not None and 0 < low <= median <= high
        # the coefficient of variation of values in [low, high] is at most (high - low) / low
        # (plus the rounding of the spread to 0.1 us)
        assert point.cv is not None and 0 <= point.cv <= (high - low + 0.0002) / low
        assert point.stable is not None


def test_on_onnx_runtime_the_spread_covers_another_runs_figure(tmp_path: Path) -> None:
    """A real ONNX Runtime session, each batch size 1..8 probed three times over, timed in turn
    the way probe times a model's points (`time_in_turn`: one window of each, round after
    round): each run's median at a batch size lies within the spread every other run of it
    reports, widened by the stability tolerance the windows were measured to."""
    from tritoncfg.probe.execute import Timing, checked, time_in_turn
    from tritoncfg.probe.measure import Windows
    from tritoncfg.probe.runners.onnxruntime import OnnxRuntimeRunner

    model = mlp_model(tmp_path / "model.onnx", np.full((4, 256), 0.01), np.full((256, 4), 0.01))
    settings = ProbeSettings(window_ms=10, timed_runs=3, threads=1)
    runner = OnnxRuntimeRunner(settings)
    runner.load(model, CONFIG)
    timings = []
    for batch in range(1, 9):
        point = TestPoint(batch, {"x": (batch, 4)}, reasons=("sweep",))
        inputs = {"x": np.ones((batch, 4), np.float32)}
        for _ in range(3):
            found = checked(runner, CONFIG, point, inputs, settings)
            assert found.status == "OK", found.reason
            timing = Timing(len(timings), point, inputs, found, Windows(settings, batch))
            timings.append(timing)
    sent: list[int] = []
    time_in_turn(runner, timings, settings, lambda kind, i: kind == "point" and sent.append(i[0]))
    runner.close()
    assert sorted(sent) == list(range(24))  # every point's result sent, once
    assert len({t.result.windows for t in timings}) == 1  # the points stopped together
    tolerance = settings.stability_percentage / 100
    for batch in range(1, 9):
        runs = [t.result for t in timings if t.point.batch_size == batch]
        for reported, other in itertools.permutations(runs, 2):
            assert reported.windows is not None and reported.windows >= STABLE_WINDOWS
            assert reported.spread_ms is not None and other.latency_ms is not None
            low, high = reported.spread_ms
            median = other.latency_ms["p50"]
            assert median is not None
            assert low * (1 - tolerance) <= median <= high * (1 + tolerance), (
                f"b={batch}: {median} outside {low}..{high}",
                [(p.spread_ms, (p.latency_ms or {}).get("p50"), p.stable) for p in runs],
            )
