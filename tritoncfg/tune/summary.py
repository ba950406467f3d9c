"""What a simulation shows: throughput, latency percentiles split into queue and compute, batch
sizes, instance utilisation, rejected and timed-out requests.

Latency is end to end as a client sees it: `overhead_ms` (what in-process timing does not see:
network, (de)serialization) + queue (arrival to its batch's start) + compute (the batch's service
time) + the wait for earlier responses under `preserve_ordering`. Percentiles are nearest-rank
over the requests served. The span is from the first arrival to the last response; throughput
counts rows (inferences, as Triton's `nv_inference_count` does) per second of it.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from tritoncfg.record import record
from tritoncfg.tune.engine import OK, QUEUE_FULL, TIMED_OUT, Outcome

PERCENTILES = (50, 90, 99)


@record(frozen=True)
class Latency:
    mean_ms: float
    p50_ms: float
    p90_ms: float
    p99_ms: float

    def as_dict(self) -> dict[str, float]:
        return {
            "mean": round(self.mean_ms, 4),
            "p50": round(self.p50_ms, 4),
            "p90": round(self.p90_ms, 4),
            "p99": round(self.p99_ms, 4),
        }


SHOWN_INSTANCES = 16  # the text shows each instance's utilisation up to this many


@record(frozen=True)
class Summary:
    requests: int
    served: int
    rejected: int  # max_queue_size
    timed_out: int
    throughput: float  # rows per second
    latency: Latency
    queue: Latency
    compute: Latency
    batches: dict[int, int]  # rows -> batches executed
    utilisation: tuple[float, ...]  # per instance, 0..1 (those that could be busy)
    # instances beyond one per request, never busy: not simulated, 0% each
    unused_instances: int = 0

    @property
    def mean_batch(self) -> float:
        count = sum(self.batches.values())
        return sum(size * n for size, n in self.batches.items()) / count if count else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "served": self.served,
            "rejected": self.rejected,
            "timed_out": self.timed_out,
            "throughput": round(self.throughput, 3),
            "latency_ms": self.latency.as_dict(),
            "queue_ms": self.queue.as_dict(),
            "compute_ms": self.compute.as_dict(),
            "mean_batch": round(self.mean_batch, 4),
            "batches": {str(size): n for size, n in sorted(self.batches.items())},
            "utilisation": [round(u, 4) for u in self.utilisation],
            "unused_instances": self.unused_instances,
        }


def summarize(outcome: Outcome, overhead_ms: float = 0.0) -> Summary:
    times = outcome.arrivals.times
    sizes = outcome.arrivals.sizes
    served = [i for i, status in enumerate(outcome.status) if status == OK]
    start, done = outcome.start, outcome.done
    overhead_us = overhead_ms * 1000.0
    total = [done[i] - times[i] + overhead_us for i in served]
    queue = [start[i] - times[i] for i in served]
    compute = [done[i] - start[i] for i in served]
    span_us = (max(done, default=0.0) - times[0]) if times else 0.0
    rows = sum(sizes[i] for i in served) if sizes else len(served)
    return Summary(
        requests=len(times),
        served=len(served),
        rejected=outcome.status.count(QUEUE_FULL),
        timed_out=outcome.status.count(TIMED_OUT),
        throughput=rows / (span_us / 1e6) if span_us > 0 else 0.0,
        latency=latency_of(total),
        queue=latency_of(queue),
        compute=latency_of(compute),
        batches=dict(Counter(outcome.batches)),
        utilisation=tuple(b / span_us if span_us > 0 else 0.0 for b in outcome.busy),
        unused_instances=outcome.config.instances - len(outcome.busy),
    )


def latency_of(values_us: list[float]) -> Latency:
    """Mean and nearest-rank percentiles (ms) of times in µs."""
    if not values_us:
        return Latency(0.0, 0.0, 0.0, 0.0)
    ordered = sorted(values_us)
    n = len(ordered)

    def rank(p: int) -> float:
        return ordered[max(0, math.ceil(p / 100 * n) - 1)] / 1000.0

    return Latency(sum(ordered) / n / 1000.0, rank(50), rank(90), rank(99))


def text_lines(summary: Summary, title: str) -> list[str]:
    """The summary as plain lines (the CLI lays them out)."""
    lines = [title]
    lines.append(
        f"requests {summary.requests:,}: served {summary.served:,}, rejected (queue full) "
        f"{summary.rejected:,}, timed out {summary.timed_out:,}"
    )
    lines.append(f"throughput {summary.throughput:,.1f} infer/s")
    header = f"{'latency ms':<12}{'mean':>10}{'p50':>10}{'p90':>10}{'p99':>10}"
    lines.append(header)
    for name, value in (
        ("total", summary.latency),
        ("queue", summary.queue),
        ("compute", summary.compute),
    ):
        lines.append(
            f"{name:<12}{value.mean_ms:>10.3f}{value.p50_ms:>10.3f}"
            f"{value.p90_ms:>10.3f}{value.p99_ms:>10.3f}"
        )
    executed = sum(summary.batches.values())
    lines.append(f"batches {executed:,}, mean size {summary.mean_batch:.2f}")
    for size, count in sorted(summary.batches.items()):
        share = count / executed if executed else 0.0
        lines.append(f"  {size:>5} {count:>10,} {share:>7.1%} {'#' * round(share * 40)}".rstrip())
    shares = summary.utilisation
    if len(shares) > SHOWN_INSTANCES:  # a line of hundreds of percentages says nothing
        busy = (
            f"mean {sum(shares) / len(shares):.0%}, least {min(shares):.0%}, most"
            f" {max(shares):.0%} over {len(shares):,} instances"
        )
    else:
        busy = ", ".join(f"{u:.0%}" for u in shares)
    if summary.unused_instances:
        busy += f" and {summary.unused_instances:,} more at 0% (more instances than requests)"
    lines.append(f"instance utilisation: {busy}")
    return lines
