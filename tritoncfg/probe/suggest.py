"""`--suggest`: dynamic-batching settings read off a model's measured curve.

The curve is the model's OK points that differ only in batch size (for several shape points per
batch size, the one at "opt", else the first). The rules (docs/probe.md):

- with `--latency-budget-ms`: the pick of `tritoncfg tune`'s search (tritoncfg/tune/advice.py,
  which `gen dynamic-batching --from-perf --latency-budget-ms` makes too): preferred sizes, queue
  delay and instance count simulated on the curve at `--target-rps` (else the highest load within
  the budget), printed with the throughput and p99 it predicts;
- without a budget, preferred_batch_size by the rule `gen dynamic-batching --from-perf` applies
  too (tritoncfg/batch_rule.py): the smallest batch size reaching 90% of the best measured
  throughput and the best one; instance count: with `--target-rps`, ceil(target / best
  throughput); without it, 2 when batching gains less than 1.5x throughput from batch 1 to the
  largest size (the runtime does not batch well, so concurrent instances are the way to use the
  hardware), else 1.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from tritoncfg.batch_rule import Measured, pick, probe_spread
from tritoncfg.probe.contract import PointResult
from tritoncfg.probe.measure import tail
from tritoncfg.probe.results import ModelResult
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig

if TYPE_CHECKING:
    from tritoncfg.tune.advice import Advice

FLAT = 1.5  # batching gains below this from batch 1 to the largest size: a flat curve


@record
class Suggestion:
    model: str
    preferred_batch_size: list[int] = field(default_factory=list)
    max_queue_delay_microseconds: int | None = None
    instance_count: int | None = None
    why: list[str] = field(default_factory=list)
    # with a budget: what the simulation predicts (advice.py: Advice.prediction)
    prediction: dict[str, float | int | None] | None = None


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
    result: ModelResult,
    budget_ms: float | None = None,
    target_rps: float | None = None,
    config: ModelConfig | None = None,
) -> Suggestion | None:
    """The suggestion for one model, None when fewer than one batching point was measured;
    `config`: the model's config as written (the simulation's starting point)."""
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
    if budget_ms is not None:
        return _simulated(found, points, result, budget_ms, target_rps, config)
    chosen = pick([_measured(p) for p in points])
    found.why.extend(chosen.why)
    if chosen.best is None:
        return found
    found.preferred_batch_size = list(chosen.sizes)
    if _only_max(found, result.max_batch_size):
        found.why.append(
            "that is max_batch_size, which Triton already prefers: no preferred_batch_size to write"
        )
    found.instance_count, why = _instances(points, chosen.best.throughput, target_rps)
    found.why.append(why)
    return found


def _simulated(
    found: Suggestion,
    points: list[PointResult],
    result: ModelResult,
    budget_ms: float,
    target_rps: float | None,
    config: ModelConfig | None,
) -> Suggestion:
    """The pick `tune`'s search makes on the curve (tritoncfg/tune/advice.py)."""
    from tritoncfg.tune.advice import advise
    from tritoncfg.tune.batcher import (
        BatcherConfig,
        SimulationInputError,
        from_model_config,
        instance_unit,
    )

    try:
        unit = None if config is None else instance_unit(config, 1)
        base = BatcherConfig(result.max_batch_size)
        if config is not None:
            base = from_model_config(config)
        advice = advise([_measured(p) for p in points], base, budget_ms, target_rps, unit)
    except SimulationInputError as exc:  # a scheduler the simulator does not model
        found.why.append(f"nothing simulated: {exc}")
        return found
    found.why.extend(advice.why)
    if advice.meets:
        _take(found, advice, unit, result.max_batch_size)
    return found


def _take(found: Suggestion, advice: Advice, unit: int | None, max_batch_size: int) -> None:
    found.preferred_batch_size = list(advice.preferred)
    found.max_queue_delay_microseconds = advice.config.delay_us
    found.prediction = advice.prediction()
    if unit is not None:
        found.instance_count = advice.config.instances // unit
    if _only_max(found, max_batch_size):
        found.why.append(
            "that is max_batch_size, which Triton already prefers: no preferred_batch_size to write"
        )


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
    """The point as `gen --from-perf` reads it from the report (gen/perf.py: _probe_point)."""
    latency = point.latency_ms or {}
    name, value = tail(latency, point.samples)
    tail_us = None if value is None else value * 1000.0
    return Measured(_batch(point), _rate(point), tail_us, name, probe_spread(latency))


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
