"""Load for bench/batcher_vs_triton.py: an open-loop Poisson client on the KServe v2 REST API
(plain asyncio HTTP/1.1, one keep-alive connection per request in flight: no client library, so
the client's own cost is as small as Python allows), and Triton's Prometheus counters.

Open loop: requests are sent at their planned times whether or not earlier ones have answered,
bounded by a request count, a duration and the number in flight (past it a request waits for a
connection, and the run says how many did: the load then stops being open).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import time
import urllib.request
from dataclasses import dataclass, field

MAX_IN_FLIGHT = 256
BODY = json.dumps(
    {"inputs": [{"name": "x", "shape": [1, 1], "datatype": "FP32", "data": [1.0]}]}
).encode()


class LoadError(Exception):
    """A request Triton failed, or a connection that broke."""


@dataclass(frozen=True)
class Execute:
    """One `execute` of the model, as it reports it in each response (its y)."""

    pid: int  # the stub process: one per instance
    start: float  # perf_counter seconds (CLOCK_MONOTONIC: the client's clock too)
    took_ms: float
    rows: int

    @property
    def end(self) -> float:
        return self.start + self.took_ms / 1000.0


@dataclass
class Run:
    """Each request's send and response times (perf_counter seconds), in send order, and the
    execute that served it."""

    sends: list[float] = field(default_factory=list)
    dones: list[float] = field(default_factory=list)
    served_by: dict[int, Execute] = field(default_factory=dict)  # request index -> its execute
    held: int = 0  # requests that waited for a connection (MAX_IN_FLIGHT in flight)
    late_ms: float = 0.0  # the most a send fell behind its planned time

    @property
    def executes(self) -> set[Execute]:
        return set(self.served_by.values())

    @property
    def latencies_ms(self) -> list[float]:
        return [(d - s) * 1000.0 for s, d in zip(self.sends, self.dones, strict=True)]

    @property
    def span(self) -> float:
        """Seconds from the first send to the last response."""
        return max(self.dones) - min(self.sends) if self.sends else 0.0

    @property
    def throughput(self) -> float:
        """Requests (rows) per second over the span."""
        return len(self.sends) / self.span if self.span > 0 else 0.0

    def arrivals_us(self) -> list[float]:
        """Send times from the first, µs, ascending: the trace the simulator replays."""
        first = min(self.sends)
        return sorted((s - first) * 1e6 for s in self.sends)


class _Pool:
    """Keep-alive connections to one Triton, each carrying one request at a time."""

    def __init__(self, host: str, port: int, model: str) -> None:
        self.host, self.port = host, port
        head = (
            f"POST /v2/models/{model}/infer HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(BODY)}\r\n\r\n"
        )
        self.request = head.encode() + BODY
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.slots = asyncio.Semaphore(MAX_IN_FLIGHT)

    async def infer(self, run: Run, index: int) -> None:
        async with self.slots:
            reader, writer = self.idle.pop() if self.idle else await self._connect()
            run.sends[index] = time.perf_counter()
            writer.write(self.request)
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            run.dones[index] = time.perf_counter()
            if b" 200 " not in status:
                raise LoadError(f"{status.decode(errors='replace').strip()}: {body[:200]!r}")
            took, rows, start, pid = json.loads(body)["outputs"][0]["data"][:4]
            run.served_by[index] = Execute(int(pid), start, took, int(rows))
            self.idle.append((reader, writer))

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.host, self.port)

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()


async def _drive(
    host: str, port: int, model: str, rate: float, count: int, duration: float, seed: int
) -> Run:
    rng = random.Random(seed)
    planned: list[float] = []
    moment = 0.0
    while len(planned) < count:
        moment += rng.expovariate(rate)
        if moment > duration:
            break
        planned.append(moment)
    run = Run([0.0] * len(planned), [0.0] * len(planned))
    pool = _Pool(host, port, model)
    tasks = []
    origin = time.perf_counter()
    try:
        for index, at in enumerate(planned):
            ahead = origin + at - time.perf_counter()
            if ahead > 0:
                await asyncio.sleep(ahead)
            run.late_ms = max(run.late_ms, (time.perf_counter() - origin - at) * 1000.0)
            run.held += pool.slots.locked()
            tasks.append(asyncio.ensure_future(pool.infer(run, index)))
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        pool.close()
    return run


def open_loop(url: str, model: str, rate: float, count: int, duration: float, seed: int = 0) -> Run:
    """Poisson requests at `rate` per second to `model` at `url` (`http://127.0.0.1:PORT`), at
    most `count` of them and none planned after `duration` seconds."""
    host, _, port = url.removeprefix("http://").partition(":")
    return asyncio.run(_drive(host, int(port), model, rate, count, duration, seed))


async def _burst(url: str, model: str, size: int, rounds: int, gap: float) -> Run:
    """`rounds` bursts of `size` requests sent together, each after the last has answered."""
    host, _, port = url.removeprefix("http://").partition(":")
    pool = _Pool(host, int(port), model)
    run = Run([0.0] * (size * rounds), [0.0] * (size * rounds))
    try:
        for start in range(0, size * rounds, size):
            await asyncio.gather(*(pool.infer(run, start + i) for i in range(size)))
            await asyncio.sleep(gap)
    finally:
        pool.close()
    return run


def bursts(url: str, model: str, size: int, rounds: int, gap: float = 0.005) -> Run:
    return asyncio.run(_burst(url, model, size, rounds, gap))


_SAMPLE = re.compile(r'^(nv_inference_\w+)\{model="([^"]+)",version="[^"]*"\} (\S+)$')


def counters(metrics_url: str, model: str) -> dict[str, float]:
    """Triton's `nv_inference_*` counters of `model` (summed over its versions)."""
    with urllib.request.urlopen(metrics_url, timeout=10) as response:
        text = response.read().decode()
    found: dict[str, float] = {}
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match and match.group(2) == model:
            found[match.group(1)] = found.get(match.group(1), 0.0) + float(match.group(3))
    return found


_QUANTILE = re.compile(
    r'^nv_inference_request_summary_us\{model="([^"]+)",version="[^"]*",quantile="([\d.]+)"\} (\S+)$'
)


def request_quantiles(metrics_url: str, model: str) -> dict[float, float]:
    """Triton's own request latency (receipt to response, ms) at each quantile of its summary
    (`--metrics-config=summary_latencies=true`); empty when it keeps none."""
    with urllib.request.urlopen(metrics_url, timeout=10) as response:
        text = response.read().decode()
    found = {}
    for line in text.splitlines():
        match = _QUANTILE.match(line)
        if match and match.group(1) == model:
            found[float(match.group(2))] = float(match.group(3)) / 1000.0
    return found


def batch_stats(url: str, model: str) -> dict[int, tuple[int, float]]:
    """Triton's statistics extension: executions and their total compute time (µs) by batch size."""
    with urllib.request.urlopen(f"{url}/v2/models/{model}/stats", timeout=10) as response:
        found = json.loads(response.read())
    totals: dict[int, tuple[int, float]] = {}
    for entry in found["model_stats"][0]["batch_stats"]:
        parts = [entry[f"compute_{part}"] for part in ("input", "infer", "output")]
        totals[entry["batch_size"]] = (parts[1]["count"], sum(p["ns"] for p in parts) / 1000.0)
    return totals


def executions_since(
    after: dict[int, tuple[int, float]], before: dict[int, tuple[int, float]]
) -> dict[int, tuple[int, float]]:
    """The batches executed between two `batch_stats` readings, by size."""
    found = {}
    for size, (count, total) in after.items():
        was_count, was_total = before.get(size, (0, 0.0))
        if count > was_count:
            found[size] = (count - was_count, total - was_total)
    return found


def back_to_back(run: Run, delay_us: float = 0.0) -> list[tuple[Execute, float]]:
    """Each execute an instance (a stub process) ran with its next batch already waiting, and
    the time from its start to the next one's (s): every request of the next batch was sent
    over a millisecond before it ended, and the first of them over `delay_us` before that (so
    the batcher had formed it)."""
    batches: dict[Execute, list[int]] = {}
    for index, execute in run.served_by.items():
        batches.setdefault(execute, []).append(index)
    by_instance: dict[int, list[Execute]] = {}
    for execute in sorted(batches, key=lambda e: e.start):
        by_instance.setdefault(execute.pid, []).append(execute)
    found = []
    for executes in by_instance.values():
        for first, after in itertools.pairwise(executes):
            sent = [run.sends[i] for i in batches[after]]
            if max(sent) < first.end - 1e-3 and min(sent) < first.end - 1e-3 - delay_us / 1e6:
                found.append((first, after.start - first.start))
    return found


def difference(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {name: value - before.get(name, 0.0) for name, value in after.items()}
