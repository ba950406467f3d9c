"""The one rule that reads preferred batch sizes and a queue delay off a measured throughput curve.

`gen dynamic-batching --from-perf` (docs/gen.md) and `probe --suggest` (docs/probe.md) both apply
it, so the same measurements give the same `preferred_batch_size` whichever command reads them:

- the sizes that count: every measured batch size, or with a latency budget only those whose
  latency (the p99 of one batch, without queueing, or the highest percentile measured) fits the
  budget; a size without a measured
  latency fits any budget;
- preferred sizes: the smallest size that reaches `SHARE` (90%) of the best throughput among
  them, and the best one when it differs. Past that share, a larger batch buys little throughput
  for the time a request waits for it to fill; a dip in a noisy curve does not end the walk;
- queue delay (budget only): the budget minus the latency at the largest preferred size, so a
  request that waits the whole delay and then runs in that batch still meets the budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from tritoncfg.record import record

SHARE = 0.9  # share of the best throughput that makes a batch size worth preferring
RULE = (
    f"preferred sizes = the smallest batch size reaching {SHARE:.0%} of the best measured "
    "throughput, and the best one"
)


@record(frozen=True)
class Measured:
    batch_size: int
    throughput: float  # inferences per second
    latency_us: float | None  # one batch's p99 (or the highest percentile measured); None: unknown
    percentile: str = "p99"  # which latency `latency_us` is: p99, p95, p90, p50 or avg
    # every latency percentile measured with it, (fraction, µs) ascending: the spread the
    # batcher simulator (tritoncfg/tune) draws service times from; () when only one is known
    spread: tuple[tuple[float, float], ...] = ()


@record(frozen=True)
class Pick:
    sizes: tuple[int, ...]  # ascending; () when no size fits the budget
    delay_us: int | None  # with a budget only
    best: Measured | None  # the best throughput among the sizes that count
    why: tuple[str, ...]  # the reasoning, one line each


def pick(curve: Sequence[Measured], budget_ms: float | None = None) -> Pick:
    """The preferred sizes (and, with `budget_ms`, the queue delay) for one point per batch size."""
    points = sorted(curve, key=lambda p: p.batch_size)
    budget_us = None if budget_ms is None else budget_ms * 1000.0
    fitting = [p for p in points if budget_us is None or _latency(p) <= budget_us]
    if not points:
        return Pick((), None, None, ("no batch size was measured",))
    if not fitting:
        first = points[0]
        shown = f" (batch {first.batch_size}: {_ms(first)})"
        return Pick(
            (), None, None, (f"no batch size runs within the {budget_ms:g} ms budget{shown}",)
        )
    best = max(fitting, key=lambda p: p.throughput)  # the smallest of equals
    knee = next(p for p in fitting if p.throughput >= SHARE * best.throughput)
    sizes = tuple(sorted({knee.batch_size, best.batch_size}))
    over = [f"batch {p.batch_size} ({_ms(p)})" for p in points if p not in fitting]
    why = [f"over the {budget_ms:g} ms budget: {', '.join(over)}"] if over else []
    why += [
        f"preferred {list(sizes)}: batch {best.batch_size} gives the best "
        f"{best.throughput:,.1f} infer/s"
        + (
            f", batch {knee.batch_size} ({knee.throughput:,.1f}) reaches {SHARE:.0%} of it"
            if knee is not best
            else ""
        )
    ]
    delay = None
    if budget_us is not None:
        largest = best if best.batch_size > knee.batch_size else knee
        delay = max(0, round(budget_us - _latency(largest)))
        why.append(
            f"max_queue_delay_microseconds {delay}: the {budget_ms:g} ms budget minus "
            f"{_ms(largest)} at batch {largest.batch_size}"
        )
    return Pick(sizes, delay, best, tuple(why))


def _latency(point: Measured) -> float:
    return point.latency_us or 0.0


def _ms(point: Measured) -> str:
    return latency_text(point.latency_us, point.percentile)


def latency_text(latency_us: float | None, percentile: str) -> str:
    """`p95 1.200 ms`, named by the percentile measured."""
    return "latency unknown" if latency_us is None else f"{percentile} {latency_us / 1000:.3f} ms"
