"""The batcher simulator (`tritoncfg simulate`) against a real Triton: predicted vs measured.

Starts the Triton 2.51 that `tritoncfg verify` uses (nvidia-pytriton's, CPU, 127.0.0.1) with a
python-backend model whose `execute` sleeps 5 ms + 1 ms per row of the batch (the model.py is
written here into a temp repository; tritoncfg never imports it). For each configuration of
the grid it loads the model with that config, drives an open-loop Poisson load at a share of
the config's capacity (bench/triton_load.py), and reads each request's latency and Triton's own
counters (`nv_inference_count` / `nv_inference_exec_count`: the mean batch size;
`nv_inference_queue_duration_us`: the queue). The simulator then serves the same requests (the
client's actual send times, replayed as a trace) under the same config.pbtxt.

Calibration first, so the comparison is honest: bursts of 1, 2, 4, 8 and 16 requests give
Triton's compute time per batch size (the sleep plus what the python backend's stub adds): a
line whose slope the simulator uses, moved for each configuration to the mean compute time
Triton measured in its run (its batch statistics: a shared machine's speed drifts), and drawn
with the spread of the execute times the model reports. The curve carries the instance's
turnaround too: the time from one execute's start to the next one's, where the next batch was
already waiting, minus Triton's compute time (the backend releasing the requests and reporting
statistics, core handing over the next payload), from trains of batches run back to back in the
calibration and from each run's own back-to-back batches (the model reports when each execute
started, and its stub's pid). The client latency at batch 1 minus
Triton's own request time is `--overhead-ms` (HTTP, JSON, the client). Latency is compared as
the client saw it and as Triton counted it (its summary metrics). Targets: mean batch size
within 10%, throughput within 5%, p50 within 15%, p99 within 25%. Exit status 0 when every
target is met, 1 when one is missed, 2 when no server starts. The table as last measured, and
what it found, are in docs/tune.md (Validation against Triton 2.51).

    python bench/batcher_vs_triton.py [--grid full|reduced | --case N ...] [--tritonserver BIN]
                                      [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from triton_load import (
    Run,
    back_to_back,
    batch_stats,
    bursts,
    counters,
    difference,
    executions_since,
    open_loop,
    request_quantiles,
)

from tritoncfg.schema import ModelConfig
from tritoncfg.triton.locate import ServerNotFound, locate_server
from tritoncfg.triton.process import ServerOptions, ServerStartError, TritonServer
from tritoncfg.tune.arrivals import Arrivals
from tritoncfg.tune.batcher import from_model_config
from tritoncfg.tune.engine import simulate
from tritoncfg.tune.service import ServiceCurve, ServicePoint, point
from tritoncfg.tune.summary import Summary, latency_of, summarize

BASE_MS, ROW_MS = 5.0, 1.0  # what the model's execute sleeps: BASE_MS + ROW_MS x rows
# y: how long this execute took (ms), the rows of its batch, when it started (perf_counter s)
# and the stub's pid, for each row
MODEL_PY = f"""import os
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        start = time.perf_counter()
        inputs = [pb_utils.get_input_tensor_by_name(r, "x").as_numpy() for r in requests]
        rows = sum(x.shape[0] for x in inputs)
        time.sleep(({BASE_MS} + {ROW_MS} * rows) / 1000.0)
        took = (time.perf_counter() - start) * 1000.0
        took = np.array([[took, rows, start, os.getpid()]], dtype=np.float64)
        return [
            pb_utils.InferenceResponse([pb_utils.Tensor("y", np.repeat(took, x.shape[0], axis=0))])
            for x in inputs
        ]
"""
IO = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP64 dims: [ 4 ] } ]\n'
)
# the first executes of a new stub are slow (tens of ms): warm it up before any counter
WARMUP = (
    'model_warmup [ { name: "warm" batch_size: 1 count: 5 inputs { key: "x" value {\n'
    "  data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } } } ]\n"
)
TARGETS = {
    "batch": 0.10,
    "throughput": 0.05,
    "p50": 0.15,
    "p99": 0.25,
    "triton_p50": 0.15,
    "triton_p99": 0.25,
}
SUMMARIES = "--metrics-config=summary_latencies=true"  # Triton's own latency quantiles
CALIBRATION_SIZES = (1, 2, 4, 8, 16)
CALIBRATION_ROUNDS = 12
# trains of batches run back to back: (size, batches per burst); the time from one's start to
# the next's minus Triton's compute time is the instance's turnaround
TRAINS = ((1, 12), (16, 3))
TRAIN_ROUNDS = 4
ENOUGH_PAIRS = 20  # back-to-back batches a run needs to measure its own turnaround


@dataclass(frozen=True)
class Case:
    max_batch_size: int
    batching: str | None  # the dynamic_batching block's body; None: no dynamic_batching
    instances: int
    load: float  # share of the config's capacity

    @property
    def label(self) -> str:
        if self.batching is None:
            scheme = "no dynamic_batching"
        else:
            scheme = f"{{ {self.batching} }}" if self.batching else "{ }"
            scheme = scheme.replace("preferred_batch_size: ", "pref ").replace(
                "max_queue_delay_microseconds: ", "delay "
            )
        return f"{scheme}, max {self.max_batch_size}, x{self.instances}, {self.load:.0%}"

    def config_text(self, name: str) -> str:
        text = f'name: "{name}"\nbackend: "python"\nmax_batch_size: {self.max_batch_size}\n{IO}'
        text += f"instance_group [ {{ count: {self.instances} kind: KIND_CPU }} ]\n{WARMUP}"
        if self.batching is not None:
            text += f"dynamic_batching {{ {self.batching} }}\n"
        return text


PREFERRED = "preferred_batch_size: [ 4, 8 ]"
GRID = (
    Case(8, None, 1, 0.5),
    Case(8, None, 2, 0.9),
    Case(8, "", 1, 0.5),
    Case(16, "", 1, 0.9),
    Case(8, "", 2, 0.9),
    Case(8, f"{PREFERRED} max_queue_delay_microseconds: 0", 1, 0.9),
    Case(8, f"{PREFERRED} max_queue_delay_microseconds: 500", 1, 0.5),
    Case(16, f"{PREFERRED} max_queue_delay_microseconds: 500", 2, 0.5),
    Case(16, f"{PREFERRED} max_queue_delay_microseconds: 2000", 1, 0.5),
    Case(8, f"{PREFERRED} max_queue_delay_microseconds: 2000", 1, 0.9),
)
REDUCED = (GRID[2], GRID[5], GRID[8])  # the slow test's grid: {}, delay 0 at 90%, delay 2000


@dataclass(frozen=True)
class Calibration:
    measured_ms: dict[int, float]  # Triton's mean compute time per batch size
    overhead_ms: float  # client latency at batch 1 minus Triton's request time
    turnaround_ms: dict[int, float]  # per batch size: back-to-back cycle minus compute

    def turnaround_line(self) -> tuple[float, float]:
        """ms at 0 rows, ms per row, through the trains' turnarounds."""
        (low, at_low), (high, at_high) = sorted(self.turnaround_ms.items())
        slope = (at_high - at_low) / (high - low)
        return at_low - slope * low, slope

    def line(self) -> tuple[float, float]:
        """The least-squares line through the measured means: ms at 0 rows, ms per row."""
        sizes, times = list(self.measured_ms), list(self.measured_ms.values())
        mean_b, mean_t = sum(sizes) / len(sizes), sum(times) / len(times)
        slope = sum((b - mean_b) * (t - mean_t) for b, t in zip(sizes, times, strict=True)) / sum(
            (b - mean_b) ** 2 for b in sizes
        )
        return mean_t - slope * mean_b, slope

    def curve(
        self,
        executed: dict[int, tuple[int, float]],
        jitter_ms: dict[float, float],
        turnaround_ms: tuple[float, float],
    ) -> ServiceCurve:
        """The line moved to the mean of the batches a run `executed` (size -> count, total µs:
        the shared machine is not as fast during a run as during the calibration), each size
        drawn with the run's `jitter_ms` (percentile -> ms from the mean); the instance's
        `turnaround_ms` after each batch (ms at 0 rows, ms per row)."""
        base, slope = self.line()
        count = sum(n for n, _ in executed.values())
        total_ms = sum(us for _, us in executed.values()) / 1000.0
        base = (total_ms - slope * sum(b * n for b, (n, _) in executed.items())) / count

        def points(base: float) -> list[ServicePoint]:
            return [
                point(b, {q: (base + slope * b + ms) * 1000.0 for q, ms in jitter_ms.items()})
                for b in self.measured_ms
            ]

        drift = ServiceCurve(points(base)).mean_us(1) / 1000.0 - (base + slope)
        turnaround_us = (turnaround_ms[0] * 1000.0, turnaround_ms[1] * 1000.0)
        return ServiceCurve(points(base - drift), "calibration", turnaround_us)  # mean on the line

    def describe(self) -> list[str]:
        measured = ", ".join(f"{b}:{ms:.2f}" for b, ms in self.measured_ms.items())
        slept = ", ".join(f"{b}:{BASE_MS + ROW_MS * b:.2f}" for b in self.measured_ms)
        base, slope = self.line()
        turnaround = ", ".join(f"{b}:{ms:.3f}" for b, ms in self.turnaround_ms.items())
        return [
            f"model sleeps (ms by batch)  {slept}",
            f"Triton computes (measured)  {measured}",
            f"service curve: {slope:.2f} ms x batch + {base:.2f} ms, moved to each run's mean "
            "compute (Triton's batch statistics), drawn with the spread of the run's execute "
            "times (the model reports them)",
            f"turnaround (ms by batch)    {turnaround}: an instance's cycle through batches run "
            "back to back minus Triton's compute time; each run measures its own when "
            f"{ENOUGH_PAIRS} of its batches ran back to back",
            f"--overhead-ms {self.overhead_ms:.2f}: client latency at batch 1 minus Triton's "
            "request time (HTTP, JSON, the Python client)",
        ]


def _write_model(repository: Path, name: str, config: str) -> None:
    version = repository / name / "1"
    version.mkdir(parents=True, exist_ok=True)
    (version / "model.py").write_text(MODEL_PY, encoding="utf-8")
    (repository / name / "config.pbtxt").write_text(config, encoding="utf-8")


def _compute_us(delta: dict[str, float]) -> float:
    return sum(
        delta.get(f"nv_inference_compute_{part}_duration_us", 0.0)
        for part in ("input", "infer", "output")
    )


def calibrate(server: TritonServer, repository: Path) -> Calibration:
    """Bursts of each size, batched whole (preferred [16], a 30 ms delay): compute per size;
    the spread of the batch-1 latencies around their mean; trains of batches of 1 (without
    dynamic batching) and 16 run back to back: the turnaround."""
    batching = "preferred_batch_size: [ 16 ] max_queue_delay_microseconds: 30000"
    models = {1: Case(16, None, 1, 0), 16: Case(16, batching, 1, 0)}
    for size, case in models.items():
        _write_model(repository, f"calibration{size}", case.config_text(f"calibration{size}"))
        server.http.load(f"calibration{size}")
    metrics = server.metrics_url or ""
    turnaround = {}
    for size, batches in TRAINS:
        name = f"calibration{size}"
        before = counters(metrics, name)
        run = bursts(server.url, name, size * batches, TRAIN_ROUNDS)
        delta = difference(counters(metrics, name), before)
        compute_ms = _compute_us(delta) / delta["nv_inference_count"] / 1000.0  # per request
        turnaround[size] = _turnaround_ms(run, {size: compute_ms}) or 0.0
    server.http.unload("calibration1")
    service: dict[int, float] = {}
    overhead = 0.0
    for size in CALIBRATION_SIZES:
        rounds = CALIBRATION_ROUNDS * (5 if size == 1 else 1)
        before = counters(metrics, "calibration16")
        run = bursts(server.url, "calibration16", size, rounds)
        delta = difference(counters(metrics, "calibration16"), before)
        if delta["nv_inference_exec_count"] != rounds:
            print(f"note: bursts of {size} ran as {delta['nv_inference_exec_count']:.0f} batches")
        service[size] = _compute_us(delta) / delta["nv_inference_count"] / 1000.0
        if size == 1:
            triton_ms = delta["nv_inference_request_duration_us"] / delta["nv_inference_count"]
            overhead = sum(run.latencies_ms) / len(run.latencies_ms) - triton_ms / 1000.0
    server.http.unload("calibration16")
    return Calibration(service, max(0.0, overhead), turnaround)


def _turnaround_ms(
    run: Run, compute_ms: dict[int, float], delay_us: float = 0.0, least: int = 1
) -> float | None:
    """The mean time from an execute's start to the next one's on the same instance, when that
    one was waiting, minus Triton's mean compute time at the first one's size (`compute_ms`);
    None with fewer than `least` such pairs."""
    pairs = [(e, cycle) for e, cycle in back_to_back(run, delay_us) if e.rows in compute_ms]
    if len(pairs) < least:
        return None
    return sum(cycle * 1000.0 - compute_ms[e.rows] for e, cycle in pairs) / len(pairs)


def _run_turnaround(
    run: Run, executed: dict[int, tuple[int, float]], case: Case, calibration: Calibration
) -> tuple[tuple[float, float], str]:
    """The calibration's turnaround line, moved to what the run measured where enough of its
    batches ran back to back."""
    base, slope = calibration.turnaround_line()
    compute_ms = {b: total / n / 1000.0 for b, (n, total) in executed.items()}
    delay = _delay_us(case)
    pairs = [e for e, _ in back_to_back(run, delay) if e.rows in compute_ms]
    found = _turnaround_ms(run, compute_ms, delay, ENOUGH_PAIRS)
    if found is None:
        return (base, slope), "calibration"
    mean_rows = sum(e.rows for e in pairs) / len(pairs)
    return (found - slope * mean_rows, slope), f"run ({len(pairs)} pairs)"


def _delay_us(case: Case) -> float:
    if not case.batching or "max_queue_delay_microseconds" not in case.batching:
        return 0.0
    return float(case.batching.rsplit(" ", 1)[-1])


def _jitter(run: Run) -> dict[float, float]:
    """p50, p90, p99 of how much longer than its sleep each batch's execute took, from the mean
    (the stub waking late on a busy machine): one sample per batch."""
    late = [e.took_ms - (BASE_MS + ROW_MS * e.rows) for e in run.executes]
    spread = latency_of([ms * 1000.0 for ms in late])
    return {
        q: value - spread.mean_ms
        for q, value in ((0.5, spread.p50_ms), (0.9, spread.p90_ms), (0.99, spread.p99_ms))
    }


def _capacity(config: ModelConfig, calibration: Calibration) -> float:
    """Rows per second the instances serve with every batch as large as the batcher forms."""
    batcher = from_model_config(config)
    largest = batcher.batch_limit if batcher.dynamic else 1
    base, slope = calibration.line()
    return batcher.instances * largest / ((base + slope * largest) / 1000.0)


def measure(
    server: TritonServer, repository: Path, case: Case, calibration: Calibration, index: int
) -> dict[str, Any]:
    """One case: Triton under the load, then the simulator on the same requests."""
    name = f"case{index}"
    text = case.config_text(name)
    config = text_format.Parse(text, ModelConfig())
    rate = case.load * _capacity(config, calibration)
    _write_model(repository, name, text)
    server.http.load(name)  # its model_warmup runs first, outside every counter
    metrics = server.metrics_url or ""
    before, executed = counters(metrics, name), batch_stats(server.url, name)
    run = open_loop(server.url, name, rate, 4000, min(8.0, max(3.0, 800 / rate)), seed=index)
    delta = difference(counters(metrics, name), before)
    executed = executions_since(batch_stats(server.url, name), executed)
    quantiles = request_quantiles(metrics, name)
    server.http.unload(name)
    turnaround, measured_by = _run_turnaround(run, executed, case, calibration)
    curve = calibration.curve(executed, _jitter(run), turnaround)
    outcome = simulate(from_model_config(config), curve, Arrivals(run.arrivals_us()), seed=index)
    measured = _measured(run, delta, executed, quantiles, case.instances)
    server_side = summarize(outcome)
    simulated = _simulated(summarize(outcome, calibration.overhead_ms), server_side)
    # like Triton's busy time, the compute alone (the instances' turnaround left out)
    turned_us = sum(curve.turnaround(b) for b in outcome.batches)
    span_us = max(outcome.done) - outcome.arrivals.times[0]
    simulated["busy"] -= turned_us / span_us / len(outcome.busy)
    return {
        "case": case.label,
        "config": asdict(case),
        "rate": rate,
        "requests": len(run.sends),
        "held": run.held,
        "late_ms": run.late_ms,
        "service_ms": {b: curve.mean_us(b) / 1000.0 for b in (1, case.max_batch_size)},
        "turnaround_ms": {b: curve.turnaround(b) / 1000.0 for b in (1, case.max_batch_size)},
        "turnaround_from": measured_by,
        "curve": {  # what the simulator was given, to simulate the run again
            "line_ms": calibration.line(),
            "executed": executed,
            "jitter_ms": _jitter(run),
            "turnaround_ms": turnaround,
            "overhead_ms": calibration.overhead_ms,
        },
        "arrivals_us": run.arrivals_us(),
        "seed": index,
        "measured": measured,
        "simulated": simulated,
        "batches": {  # rows -> batches executed
            "measured": {size: count for size, (count, _) in sorted(executed.items())},
            "simulated": dict(sorted(Counter(outcome.batches).items())),
        },
        "missed": [
            key
            for key, bound in TARGETS.items()
            if abs(simulated[key] - measured[key]) > bound * measured[key]
        ],
    }


def _measured(
    run: Run,
    delta: dict[str, float],
    executed: dict[int, tuple[int, float]],
    quantiles: dict[float, float],
    instances: int,
) -> dict[str, float]:
    """What the client saw, and what Triton counted."""
    latency = latency_of([ms * 1000.0 for ms in run.latencies_ms])
    return {
        "batch": delta["nv_inference_count"] / delta["nv_inference_exec_count"],
        "throughput": run.throughput,
        "p50": latency.p50_ms,
        "p99": latency.p99_ms,
        "triton_p50": quantiles.get(0.5, 0.0),
        "triton_p99": quantiles.get(0.99, 0.0),
        "queue": delta["nv_inference_queue_duration_us"]
        / delta["nv_inference_request_success"]
        / 1000.0,
        "busy": sum(us for _, us in executed.values()) / 1e6 / run.span / instances,
    }


def _simulated(client: Summary, server: Summary) -> dict[str, float]:
    """The same from the simulation: latency with --overhead-ms (client) and without (Triton)."""
    return {
        "batch": client.mean_batch,
        "throughput": client.throughput,
        "p50": client.latency.p50_ms,
        "p99": client.latency.p99_ms,
        "triton_p50": server.latency.p50_ms,
        "triton_p99": server.latency.p99_ms,
        "queue": client.queue.mean_ms,
        "busy": sum(client.utilisation) / len(client.utilisation),
    }


COLUMNS = (  # key, header, format
    ("batch", "batch", "{:.2f}"),
    ("throughput", "infer/s", "{:.0f}"),
    ("p50", "p50 ms", "{:.1f}"),
    ("p99", "p99 ms", "{:.1f}"),
    ("triton_p50", "Triton p50", "{:.1f}"),
    ("triton_p99", "Triton p99", "{:.1f}"),
    ("queue", "queue ms", "{:.2f}"),
    ("busy", "busy", "{:.0%}"),
)


def table(rows: list[dict[str, Any]]) -> list[str]:
    """simulated / measured, side by side, and the targets missed."""
    head = f"{'configuration':<45}{'req/s':>6}" + "".join(f"{h:>15}" for _, h, _ in COLUMNS)
    lines = [head + "  missed"]
    for row in rows:
        sim, real = row["simulated"], row["measured"]
        cells = [f"{row['case']:<45}{row['rate']:>6.0f}"]
        for key, _, shape in COLUMNS:
            cells.append(f"{shape.format(sim[key])} / {shape.format(real[key])}".rjust(15))
        cells.append(f"  {', '.join(row['missed']) or '-'}")
        lines.append("".join(cells))
    return lines


def run_grid(server: TritonServer, repository: Path, grid: tuple[Case, ...]) -> dict[str, Any]:
    calibration = calibrate(server, repository)
    for line in calibration.describe():
        print(line)
    rows = []
    for index, case in enumerate(grid):
        rows.append(measure(server, repository, case, calibration, index))
        service = ", ".join(f"{b}:{ms:.2f}" for b, ms in rows[-1]["service_ms"].items())
        turned = ", ".join(f"{b}:{ms:.3f}" for b, ms in rows[-1]["turnaround_ms"].items())
        print(
            f"  {rows[-1]['case']}: {rows[-1]['requests']} requests, service ms {service}, "
            f"turnaround ms {turned} (from the {rows[-1]['turnaround_from']})"
        )
    return {"calibration": asdict(calibration), "targets": TARGETS, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", choices=("full", "reduced"), default="full")
    parser.add_argument(
        "--case",
        type=int,
        action="append",
        metavar="N",
        help="only the grid's Nth configuration (1 to 10, the table's order; repeatable)",
    )
    parser.add_argument(
        "--tritonserver", type=Path, help="the server (default: as verify finds it)"
    )
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    try:
        distribution = locate_server(args.tritonserver)
    except ServerNotFound as exc:
        print(f"batcher_vs_triton: {exc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="batcher-vs-triton-") as temp:
        work = Path(temp)
        repository = work / "repository"
        repository.mkdir()
        try:
            options = ServerOptions(metrics=True, extra_args=(SUMMARIES,))
            server = TritonServer.start(distribution, repository, work, options)
        except ServerStartError as exc:
            print(f"batcher_vs_triton: no Triton server started: {exc}", file=sys.stderr)
            return 2
        with server:
            grid = GRID if args.grid == "full" else REDUCED
            if args.case:
                grid = tuple(GRID[n - 1] for n in args.case)
            result = run_grid(server, repository, grid)
    print(
        "simulated / measured: the simulator served the same requests (the client's send times) "
        "under the same config.pbtxt; p50, p99: the client's latency (simulated: + "
        "--overhead-ms); Triton p50, p99: Triton's own request time (its summary metrics; "
        "simulated: queue + compute). Targets: "
        + ", ".join(f"{key} {bound:.0%}" for key, bound in TARGETS.items())
    )
    for line in table(result["rows"]):
        print(line)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 1 if any(row["missed"] for row in result["rows"]) else 0


if __name__ == "__main__":
    sys.exit(main())
