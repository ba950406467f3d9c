"""`--suggest`: dynamic-batching settings read off a model's measured curve.

The curve is the model's OK points that differ only in batch size (for several shape points per
batch size, the one at "opt", else the first). The rules (docs/probe.md):

- preferred_batch_size: the smallest batch size that reaches 90% of the best measured
  throughput, and the best one when it differs; with `--latency-budget-ms`, only sizes whose
  p99 latency fits the budget.
- max_queue_delay_microseconds (needs `--latency-budget-ms`): the budget minus the p99 latency
  at the largest suggested preferred size, so a request that waits the whole delay and then
  runs in the largest batch still meets the budget; none when nothing fits.
- instance count: with `--target-rps`, ceil(target / best throughput); without it, 2 when
  batching gains less than 1.5x throughput from batch 1 to the largest size (the runtime does
  not batch well, so concurrent instances are the way to use the hardware), else 1.
"""

from __future__ import annotations

import math
from dataclasses import field

from tritoncfg.probe.contract import PointResult
from tritoncfg.probe.results import ModelResult
from tritoncfg.record import record

KNEE = 0.9  # share of the best throughput that makes a batch size worth preferring
FLAT = 1.5  # batching gains below this from batch 1 to the largest size: a flat curve


@record
class Suggestion:
    model: str
    preferred_batch_size: list[int] = field(default_factory=list)
    max_queue_delay_microseconds: int | None = None
    instance_count: int | None = None
    why: list[str] = field(default_factory=list)


def curve(result: ModelResult) -> list[PointResult]:
    """One OK point per batch size (at "opt" when there are several), by batch size."""
    chosen: dict[int, PointResult] = {}
    for point in result.points:
        batch = point.point.batch_size
        if point.status != "OK" or batch is None or point.throughput is None:
            continue
        at_opt = "opt" in point.point.reasons
        if batch not in chosen or (at_opt and "opt" not in chosen[batch].point.reasons):
            chosen[batch] = point
    return [chosen[b] for b in sorted(chosen)]


def suggest(
    result: ModelResult, budget_ms: float | None = None, target_rps: float | None = None
) -> Suggestion | None:
    """The suggestion for one model, None when fewer than one batching point was measured."""
    points = curve(result)
    if not points:
        return None
    found = Suggestion(result.model)
    fitting = [p for p in points if budget_ms is None or _p99(p) <= budget_ms]
    if not fitting:
        found.why.append(
            f"no batch size meets the {budget_ms:g} ms budget (p99 at batch "
            f"{points[0].point.batch_size}: {_p99(points[0]):.3f} ms)"
        )
        return found
    best = max(fitting, key=_rate)
    knee = next(p for p in fitting if _rate(p) >= KNEE * _rate(best))
    sizes = sorted({_batch(knee), _batch(best)})
    found.preferred_batch_size = sizes
    found.why.append(
        f"preferred {sizes}: batch {_batch(best)} gives the best {_rate(best):,.0f} inf/s"
        + (
            f", batch {_batch(knee)} reaches {KNEE:.0%} of it"
            if _batch(knee) != _batch(best)
            else ""
        )
    )
    if budget_ms is not None:
        largest = next(p for p in fitting if _batch(p) == sizes[-1])
        found.max_queue_delay_microseconds = int((budget_ms - _p99(largest)) * 1000)
        found.why.append(
            f"max_queue_delay_microseconds {found.max_queue_delay_microseconds}: the "
            f"{budget_ms:g} ms budget minus p99 {_p99(largest):.3f} ms at batch {sizes[-1]}"
        )
    found.instance_count, why = _instances(points, best, target_rps)
    found.why.append(why)
    return found


def _instances(
    points: list[PointResult], best: PointResult, target_rps: float | None
) -> tuple[int, str]:
    if target_rps is not None:
        count = max(1, math.ceil(target_rps / _rate(best)))
        return (
            count,
            f"count {count}: {target_rps:g} inf/s target / {_rate(best):,.0f} per instance",
        )
    gain = _rate(points[-1]) / _rate(points[0])
    if len(points) > 1 and gain < FLAT:
        return 2, f"count 2: batching gains only {gain:.2f}x, so run instances side by side"
    return 1, f"count 1: batching gains {gain:.2f}x; one instance keeps the device busy"


def _rate(point: PointResult) -> float:
    return point.throughput or 0.0


def _p99(point: PointResult) -> float:
    return (point.latency_ms or {}).get("p99", 0.0)


def _batch(point: PointResult) -> int:
    return point.point.batch_size or 1


def render(suggestion: Suggestion) -> str:
    """The suggestion as a config snippet with the reasons as comments."""
    lines = [f"# {suggestion.model}"] + [f"#   {why}" for why in suggestion.why]
    if suggestion.preferred_batch_size:
        lines.append("dynamic_batching {")
        lines.append(f"  preferred_batch_size: {suggestion.preferred_batch_size}")
        if suggestion.max_queue_delay_microseconds is not None:
            lines.append(
                f"  max_queue_delay_microseconds: {suggestion.max_queue_delay_microseconds}"
            )
        lines.append("}")
    if suggestion.instance_count is not None:
        lines.append(f"instance_group [ {{ count: {suggestion.instance_count} }} ]")
    return "\n".join(lines) + "\n"


__all__ = ["Suggestion", "curve", "render", "suggest"]
