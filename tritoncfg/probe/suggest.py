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
from tritoncfg.probe.measure import tail
from tritoncfg.probe.results import ModelResult
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig

FLAT = 1.5  # batching gains below this from batch 1 to the largest size: a flat curve


@record
class Suggestion:
    model: str
    preferred_batch_size: list[int] = field(default_factory=list)
    max_queue_delay_microseconds: int | None = None
    instance_count: int | None = None
    why: list[str] = field(default_factory=list)


def curve(result: ModelResult) -> list[PointResult]:
    """One OK point per batch size (at "opt" when there are several), by batch size; a point
    whose windows never agreed (unstable) is left out."""
    chosen: dict[int, PointResult] = {}
    for point in _measured_points(result):
        batch = point.point.batch_size
        assert batch is not None
        at_opt = "opt" in point.point.reasons
        if batch not in chosen or (at_opt and "opt" not in chosen[batch].point.reasons):
            chosen[batch] = point
    return [chosen[b] for b in sorted(chosen) if chosen[b].stable is not False]


def _measured_points(result: ModelResult) -> list[PointResult]:
    return [
        p
        for p in result.points
        if p.status == "OK" and p.point.batch_size is not None and p.throughput is not None
    ]


def stability(result: ModelResult) -> str:
    """How stable the measured curve was: `curve: 8 batch sizes measured, 7 stable (window cv
    0.4%-3.1%); left out as unstable: batch 6 (cv 14.2%)`."""
    by_size: dict[int, PointResult] = {}
    for point in _measured_points(result):
        size = point.point.batch_size or 1
        if size not in by_size or "opt" in point.point.reasons:
            by_size[size] = point
    kept = [p for p in by_size.values() if p.stable is not False]
    dropped = [p for p in by_size.values() if p.stable is False]
    cvs = [p.cv for p in kept if p.cv is not None]
    shown = f" (window cv {min(cvs):.1%}-{max(cvs):.1%})" if cvs else ""
    text = f"curve: {len(by_size)} batch sizes measured, {len(kept)} stable{shown}"
    if dropped:
        text += "; left out as unstable: " + ", ".join(
            f"batch {p.point.batch_size} (cv {p.cv or 0:.1%})" for p in dropped
        )
    return text


def suggest(
    result: ModelResult, budget_ms: float | None = None, target_rps: float | None = None
) -> Suggestion | None:
    """The suggestion for one model, None when fewer than one batching point was measured."""
    points = curve(result)
    if not _measured_points(result):
        return None
    found = Suggestion(result.model, why=[stability(result)])
    if not points:
        found.why.append(
            "no stable batch size to suggest from (a quieter machine, or a larger --window-ms, "
            "--max-windows or --stability-percentage)"
        )
        return found
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
    name, value = tail(point.latency_ms or {}, point.samples)
    return Measured(_batch(point), _rate(point), None if value is None else value * 1000.0, name)


def _rate(point: PointResult) -> float:
    return point.throughput or 0.0


def _batch(point: PointResult) -> int:
    return point.point.batch_size or 1


def _only_max(suggestion: Suggestion, max_batch_size: int) -> bool:
    """Whether the one preferred size is max_batch_size, Triton's default preference
    (`NormalizeModelConfig`), which `gen dynamic-batching --from-perf` does not write either."""
    return suggestion.preferred_batch_size == [max_batch_size]


def applied(suggestion: Suggestion, base: ModelConfig) -> ModelConfig:
    """`base` (the model's config as written) with the suggestion set: the preferred sizes (none
    when that is max_batch_size alone) and queue delay into its `dynamic_batching`, the count
    into its one instance group; every other field, `kind` and a delay not suggested
    included, kept as it is. With several instance groups the count is not set (`why` says)."""
    config = ModelConfig()
    config.CopyFrom(base)
    if suggestion.preferred_batch_size:
        batching = config.dynamic_batching
        batching.SetInParent()
        del batching.preferred_batch_size[:]
        if not _only_max(suggestion, base.max_batch_size):
            batching.preferred_batch_size.extend(suggestion.preferred_batch_size)
        if suggestion.max_queue_delay_microseconds is not None:
            batching.max_queue_delay_microseconds = suggestion.max_queue_delay_microseconds
    if suggestion.instance_count is not None:
        if not config.instance_group:
            config.instance_group.add(count=suggestion.instance_count)
        elif len(config.instance_group) == 1:
            config.instance_group[0].count = suggestion.instance_count
        else:
            suggestion.why.append("several instance groups: their counts are left as written")
    return config


def snippet(config: ModelConfig) -> str:
    """The fields --suggest sets, from `applied`'s config, as `tritoncfg fmt` writes them."""
    from tritoncfg.complete.merge import render_message

    part = ModelConfig()
    part.instance_group.extend(config.instance_group)
    if config.HasField("dynamic_batching"):
        part.dynamic_batching.CopyFrom(config.dynamic_batching)
    return render_message(part) if part.ListFields() else ""


def render(suggestion: Suggestion, text: str | None) -> str:
    """The reasons as comments, then the snippet `text` (None: no snippet)."""
    lines = [f"# {suggestion.model}"] + [f"#   {why}" for why in suggestion.why]
    return "\n".join(lines) + "\n" + (text or "")


__all__ = ["Suggestion", "applied", "curve", "render", "snippet", "stability", "suggest"]
