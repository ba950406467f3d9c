"""`--suggest`: dynamic-batching settings read off a model's measured curve.

The curve is the model's OK points that differ only in batch size (for several shape points per
batch size, the one at "opt", else the first). The rules (docs/probe.md):

- preferred_batch_size and max_queue_delay_microseconds: the rule `gen dynamic-batching
  --from-perf` applies too (tritoncfg/batch_rule.py): the smallest batch size reaching 90% of the
  best measured throughput and the best one, with `--latency-budget-ms` only sizes whose p99
  fits the budget, and the delay the budget leaves at the largest of them; none when nothing fits.
- instance count: with `--target-rps`, ceil(target / best throughput); without it, 2 when
  batching gains less than 1.5x throughput from batch 1 to the largest size (the runtime does
  not batch well, so concurrent instances are the way to use the hardware), else 1.
"""

from __future__ import annotations

import math
from dataclasses import field

from tritoncfg.batch_rule import Measured, pick
from tritoncfg.probe.contract import PointResult
from tritoncfg.probe.results import ModelResult
from tritoncfg.record import record

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
    chosen = pick([_measured(p) for p in points], budget_ms)
    found.why.extend(chosen.why)
    if chosen.best is None:
        return found
    found.preferred_batch_size = list(chosen.sizes)
    found.max_queue_delay_microseconds = chosen.delay_us
    if _only_max(found, result.max_batch_size):
        found.why.append(
            "that is max_batch_size, which Triton already prefers: no preferred_batch_size to write"
        )
    found.instance_count, why = _instances(points, chosen.best.throughput, target_rps)
    found.why.append(why)
    return found


def _instances(
    points: list[PointResult], best_rate: float, target_rps: float | None
) -> tuple[int, str]:
    if target_rps is not None:
        count = max(1, math.ceil(target_rps / best_rate))
        return (
            count,
            f"count {count}: {target_rps:,.{0 if float(target_rps).is_integer() else 1}f} infer/s "
            f"target / {best_rate:,.0f} per instance",
        )
    gain = _rate(points[-1]) / _rate(points[0])
    if len(points) > 1 and gain < FLAT:
        return 2, f"count 2: batching gains only {gain:.2f}x, so run instances side by side"
    return 1, f"count 1: batching gains {gain:.2f}x; one instance keeps the device busy"


def _measured(point: PointResult) -> Measured:
    p99 = (point.latency_ms or {}).get("p99")
    return Measured(_batch(point), _rate(point), None if p99 is None else p99 * 1000.0)


def _rate(point: PointResult) -> float:
    return point.throughput or 0.0


def _batch(point: PointResult) -> int:
    return point.point.batch_size or 1


def _only_max(suggestion: Suggestion, max_batch_size: int) -> bool:
    """Whether the one preferred size is max_batch_size, Triton's default preference
    (`NormalizeModelConfig`), which `gen dynamic-batching --from-perf` does not write either."""
    return suggestion.preferred_batch_size == [max_batch_size]


def render(suggestion: Suggestion, max_batch_size: int = 0) -> str:
    """The suggestion as a config snippet, as `tritoncfg fmt` writes it, after the reasons as
    comments."""
    from tritoncfg.complete.merge import render_message
    from tritoncfg.schema import ModelConfig

    lines = [f"# {suggestion.model}"] + [f"#   {why}" for why in suggestion.why]
    config = ModelConfig()
    if suggestion.preferred_batch_size:
        config.dynamic_batching.SetInParent()
        if not _only_max(suggestion, max_batch_size):
            config.dynamic_batching.preferred_batch_size.extend(suggestion.preferred_batch_size)
        if suggestion.max_queue_delay_microseconds is not None:
            delay = suggestion.max_queue_delay_microseconds
            config.dynamic_batching.max_queue_delay_microseconds = delay
    if suggestion.instance_count is not None:
        config.instance_group.add(count=suggestion.instance_count)
    snippet = render_message(config) if config.ListFields() else ""
    return "\n".join(lines) + "\n" + snippet


__all__ = ["Suggestion", "curve", "render", "suggest"]
