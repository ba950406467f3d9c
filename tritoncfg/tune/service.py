"""Service time of one batch, per batch size, from a measured curve.

Each measured size gives its latency percentiles (a probe report's p50/p90/p99, a perf_analyzer
CSV's p50..p99, or one fixed time). A draw is the inverse of a piecewise-linear distribution
through them: the known percentiles as measured, the tails reaching as far beyond p50 and p99 as
p90 is from them (p50 - (p90 - p50) at 0, p99 + (p99 - p90) at 1); one known value is a fixed
time. Between measured sizes each percentile is interpolated linearly in the batch size; past
the largest it goes on along the last two sizes' slope (never falling), below the smallest along
the first two (never under a tenth of the smallest size's time); one measured size serves every
size.

A curve may also carry the instance's **turnaround**: time per batch after its responses have left
and before the instance takes the next batch (the backend releasing the requests and reporting
statistics, core handing the instance its next payload), as `base + per row x rows` µs. It delays
the next batch, never the responses; a curve measured in-process has none.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

from tritoncfg.batch_rule import Measured
from tritoncfg.record import record
from tritoncfg.tune.batcher import SimulationInputError

GRID = (0.0, 0.5, 0.9, 0.99, 1.0)  # the percentiles a draw interpolates between
Quantiles = tuple[float, float, float, float, float]  # µs at GRID


@record(frozen=True)
class ServicePoint:
    batch_size: int
    quantiles: Quantiles  # µs at GRID


def point(batch_size: int, percentiles_us: Mapping[float, float]) -> ServicePoint:
    """A measured size from its known percentiles (0.5, 0.9, 0.99, ... -> µs)."""
    known = sorted((q, v) for q, v in percentiles_us.items() if v is not None)
    if not known:
        raise SimulationInputError(f"batch {batch_size}: no latency measured")
    if len(known) == 1:
        value = known[0][1]
        return ServicePoint(batch_size, (value, value, value, value, value))
    values = dict(known)
    p50 = values.get(0.5, known[0][1])
    p99 = values.get(0.99, known[-1][1])
    p90 = values.get(0.9, (p50 + p99) / 2)
    anchors = {0.0: max(0.0, p50 - (p90 - p50)), 0.5: p50, 0.9: p90, 0.99: p99}
    anchors[1.0] = p99 + max(0.0, p99 - p90)
    return ServicePoint(batch_size, tuple(anchors[q] for q in GRID))  # type: ignore[arg-type]


class ServiceCurve:
    """Measured points by batch size; `time_at(b)` is the interpolated quantile table."""

    def __init__(
        self,
        points: Sequence[ServicePoint],
        source: str = "",
        turnaround_us: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        if not points:
            raise SimulationInputError(f"{source or 'service curve'}: no batch size measured")
        by_size = {p.batch_size: p for p in points}
        self.points = [by_size[b] for b in sorted(by_size)]
        self.source = source
        self.turnaround_us = turnaround_us  # µs at 0 rows, µs per row

    def turnaround(self, batch_size: int) -> float:
        """µs the instance stays busy after a batch of `batch_size` has answered."""
        base, per_row = self.turnaround_us
        return max(0.0, base + per_row * batch_size)

    @property
    def sizes(self) -> list[int]:
        return [p.batch_size for p in self.points]

    def time_at(self, batch_size: int) -> Quantiles:
        points = self.points
        if len(points) == 1:
            return points[0].quantiles
        low, high = points[-2], points[-1]  # past the largest size: along the last slope
        for pair in pairwise(points):
            if batch_size <= pair[1].batch_size:
                low, high = pair
                break
        span = high.batch_size - low.batch_size
        share = (batch_size - low.batch_size) / span
        floor = points[0].quantiles
        values = []
        for index, (a, b) in enumerate(zip(low.quantiles, high.quantiles, strict=True)):
            value = a + (b - a) * share
            if batch_size > high.batch_size:
                value = max(value, b)  # past the largest size: never faster than it
            values.append(max(value, floor[index] * 0.1))
        return tuple(values)  # type: ignore[return-value]

    def mean_us(self, batch_size: int) -> float:
        """The mean of a draw at `batch_size` (the area under the piecewise-linear quantiles)."""
        q = self.time_at(batch_size)
        return sum((GRID[i + 1] - GRID[i]) * (q[i] + q[i + 1]) / 2 for i in range(len(GRID) - 1))

    def sampler(self, largest: int, rng: random.Random) -> Callable[[int], float]:
        """A function batch size -> one drawn service time (µs), for sizes up to `largest`."""
        tables = [self.time_at(max(1, b)) for b in range(largest + 1)]
        if all(t[0] == t[-1] for t in tables):
            fixed = [t[0] for t in tables]
            return fixed.__getitem__
        draw = rng.random

        def sample(batch_size: int) -> float:
            q = tables[batch_size]
            u = draw()
            if u < 0.5:
                return q[0] + (q[1] - q[0]) * u * 2.0
            if u < 0.9:
                return q[1] + (q[2] - q[1]) * (u - 0.5) * 2.5
            if u < 0.99:
                return q[2] + (q[3] - q[2]) * (u - 0.9) * (1 / 0.09)
            return q[3] + (q[4] - q[3]) * (u - 0.99) * 100.0

        return sample


def parse_service_ms(text: str) -> ServiceCurve:
    """`--service-ms '1:2.0,8:3.1,32:7.9'`: batch size : milliseconds, fixed times."""
    points = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        size, colon, ms = part.partition(":")
        try:
            batch, value = int(size), float(ms)
        except ValueError:
            batch, value = 0, -1.0
        if not colon or batch < 1 or not value > 0:
            raise SimulationInputError(
                f"--service-ms expects BATCH:MS pairs such as '1:2.0,8:3.1', got {part!r}"
            )
        points.append(point(batch, {0.5: value * 1000.0}))
    return ServiceCurve(points, "--service-ms")


def from_measured(points: Sequence[Measured], source: str) -> ServiceCurve:
    """The curve of measured batch sizes (a probe report's points, a perf_analyzer sweep, as
    `tritoncfg/gen/perf.py` reads them): each size's latency percentiles; a size measured
    without latency takes batch size / throughput as its fixed time."""
    curve = []
    for measured in points:
        if measured.spread:
            curve.append(point(measured.batch_size, dict(measured.spread)))
        elif measured.latency_us is not None:
            curve.append(point(measured.batch_size, {0.5: measured.latency_us}))
        elif measured.throughput > 0:
            fixed = measured.batch_size / measured.throughput * 1e6
            curve.append(point(measured.batch_size, {0.5: fixed}))
    return ServiceCurve(curve, source)
