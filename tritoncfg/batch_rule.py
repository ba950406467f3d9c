"""The rule that reads preferred batch sizes off a measured throughput curve when no latency
budget is given.

`gen dynamic-batching --from-perf` (docs/gen.md) and `probe --suggest` (docs/probe.md) both apply
it, so the same measurements give the same `preferred_batch_size` whichever command reads them:
the smallest size that reaches `SHARE` (90%) of the best measured throughput, and the best one
when it differs. Past that share, a larger batch buys little throughput for the time a request
waits for it to fill; a dip in a noisy curve does not end the walk. It sets no queue delay.

The sizes are drawn from the measured powers of two and the largest measured size: on a curve
measured at every size, neighbours such as 7 and 8 sit within the run-to-run noise of each other,
so a rule free to pick either flips between runs; 4, 8 and 16 are far enough apart that it does
not.

With a latency budget both commands take `tritoncfg tune`'s pick instead (tritoncfg/tune/advice.py):
a simulation of the batcher on the same curve, which sizes the queue delay against queueing too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tritoncfg.record import record

SHARE = 0.9  # share of the best throughput that makes a batch size worth preferring
RULE = (
    f"preferred sizes = the smallest batch size reaching {SHARE:.0%} of the best measured "
    "throughput, and the best one (of the powers of two and the largest size measured)"
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
    sizes: tuple[int, ...]  # ascending; () when nothing was measured
    best: Measured | None  # the best measured throughput
    why: tuple[str, ...]  # the reasoning, one line each


def pick(curve: Sequence[Measured]) -> Pick:
    """The preferred sizes for one point per batch size."""
    points = sorted(curve, key=lambda p: p.batch_size)
    if not points:
        return Pick((), None, ("no batch size was measured",))
    candidates = [p for p in points if _power_of_two(p.batch_size)]
    if points[-1] not in candidates:
        candidates.append(points[-1])
    best = max(candidates, key=lambda p: p.throughput)  # the smallest of equals
    knee = next(p for p in candidates if p.throughput >= SHARE * best.throughput)
    sizes = tuple(sorted({knee.batch_size, best.batch_size}))
    why = (
        f"preferred {list(sizes)}: batch {best.batch_size} gives the best "
        f"{best.throughput:,.1f} infer/s"
        + (
            f", batch {knee.batch_size} ({knee.throughput:,.1f}) reaches {SHARE:.0%} of it"
            if knee is not best
            else ""
        ),
    )
    return Pick(sizes, best, why)


def _power_of_two(size: int) -> bool:
    return size > 0 and size & (size - 1) == 0


def probe_spread(latency_ms: Mapping[str, float | None]) -> tuple[tuple[float, float], ...]:
    """A probe point's p50, p90 and p99 (ms) as `Measured.spread` (fraction, µs), the ones
    measured: how `probe --suggest` and `gen --from-perf` read a probe report alike."""
    return tuple(
        (fraction, float(ms) * 1000.0)
        for key, fraction in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))
        if (ms := latency_ms.get(key)) is not None
    )


def latency_text(latency_us: float | None, percentile: str) -> str:
    """`p95 1.200 ms`, named by the percentile measured."""
    return "latency unknown" if latency_us is None else f"{percentile} {latency_us / 1000:.3f} ms"
