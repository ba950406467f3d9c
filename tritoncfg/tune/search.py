"""The search `tritoncfg tune` runs: configurations tried by simulation, ranked against a p99
latency objective.

Candidates, in two rounds (each configuration is one simulation with the same arrivals and seed):
1. every max_batch_size (powers of two from 2, and the largest allowed) x instance count, with
   `dynamic_batching {}` (no delay, Triton's preferred `[max_batch_size]`), and the config as
   written;
2. around the three best of round 1: preferred sizes (none; one power of two below
   max_batch_size; it and max_batch_size) x queue delays (0 and 100 µs .. 10 ms below the
   objective).

With a rate (`--rate`), a configuration meets the objective when it serves every request (none
rejected or timed out, throughput within 2% of the offered rate) with p99 at or under it; those
rank first, by fewer instances, then lower p99. With `max_throughput`, each configuration is run
at the highest rate (a bisection between 0 and its capacity) at which it still meets the
objective; they rank by that throughput, then fewer instances, then lower p99.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from tritoncfg.record import record, replace
from tritoncfg.tune.arrivals import poisson
from tritoncfg.tune.batcher import BatcherConfig
from tritoncfg.tune.engine import simulate
from tritoncfg.tune.service import ServiceCurve
from tritoncfg.tune.summary import Summary, summarize

DELAYS_US = (100, 200, 500, 1_000, 2_000, 5_000, 10_000)
ROUND_TWO = 3  # configurations of round 1 searched around
BISECTIONS = 6  # rate steps of max_throughput
SERVED = 0.98  # share of the offered rate a configuration must serve
NOISE = 0.02  # a p99 difference below this share may be the draws, not the configuration


@record(frozen=True)
class Objective:
    slo_p99_ms: float
    rate: float | None  # None: the highest throughput
    requests: int = 10_000
    overhead_ms: float = 0.0
    seed: int = 0


@record(frozen=True)
class Trial:
    config: BatcherConfig
    summary: Summary
    rate: float  # the offered rate it ran at
    meets: bool
    written: bool = False  # the config as written


@record(frozen=True)
class Space:
    """What may change: max_batch_size up to `largest_batch`, instances in steps of
    `instance_step` up to `most_instances`."""

    largest_batch: int
    most_instances: int
    instance_step: int = 1
    # max_batch_size kept as written, dynamic batching on: what the suggestions write (advice.py)
    keep_batch: bool = False


MOST_INSTANCE_COUNTS = 64  # instance counts one search tries, at most (each a round of trials)


def instance_counts(space: Space) -> range:
    """The instance counts the first round tries."""
    return range(space.instance_step, space.most_instances + 1, space.instance_step)


def space_for(
    base: BatcherConfig,
    unit: int | None,
    rate: float | None,
    largest_batch: int | None = None,
    most_instances: int | None = None,
    keep_batch: bool = False,
) -> Space:
    """What `tune` searches by default: max_batch_size up to the written one, instances in steps
    of `unit` (the one group's devices; None: several groups, counts kept) up to 4 with a rate,
    else the written count."""
    largest = base.max_batch_size if keep_batch else (largest_batch or base.max_batch_size)
    if unit is None:
        return Space(largest, base.instances, base.instances, keep_batch)
    most = most_instances or (4 if rate is not None else base.instances)
    return Space(largest, max(most, unit), unit, keep_batch)


def search(base: BatcherConfig, curve: ServiceCurve, space: Space, goal: Objective) -> list[Trial]:
    """Every configuration tried, best first; of those with the same outcome only the first
    (simplest: shorter delay, smaller max_batch_size, fewer preferred sizes)."""
    if space.keep_batch and base.max_batch_size > 0:
        base = replace(base, dynamic=True)  # the suggestions write a dynamic_batching block
    run = _runner(curve, goal)
    first = [run(config) for config in _round_one(base, space)]
    first.append(replace(run(base), written=True))
    ranked = rank(first, goal, base)
    seen = {t.config for t in ranked}
    second = []
    for trial in ranked[:ROUND_TWO]:
        for config in _round_two(trial.config, goal) if trial.config.dynamic else ():
            if config not in seen:
                seen.add(config)
                second.append(run(config))
    return distinct(rank(ranked + second, goal, base))


def distinct(trials: list[Trial]) -> list[Trial]:
    """The first (simplest) of each group of trials with the same outcome."""
    seen = set()
    kept = []
    for trial in trials:
        outcome = (trial.config.instances, repr(trial.summary))
        if outcome not in seen:
            seen.add(outcome)
            kept.append(trial)
    return kept


def rank(trials: list[Trial], goal: Objective, base: BatcherConfig | None = None) -> list[Trial]:
    """Best first (module docstring); `base`: the config as written, whose max_batch_size is
    kept among equals."""
    written = base.max_batch_size if base is not None else 0

    def key(trial: Trial) -> tuple[float, ...]:
        config = trial.config
        p99 = round(trial.summary.latency.p99_ms, 3)
        simpler = _simplicity(config, written)  # equal outcomes: the simplest first
        if not trial.meets:  # the closest to the objective first
            return (1, p99, config.instances, *simpler)
        if goal.rate is not None:
            return (0, config.instances, p99, *simpler)
        return (0, -round(trial.summary.throughput), config.instances, p99, *simpler)

    return _simplest_first(sorted(trials, key=key), goal, written)


def _simplest_first(ranked: list[Trial], goal: Objective, written: int) -> list[Trial]:
    """The simplest of the trials within noise of the best moved to the front: a gap that
    another seed could reverse does not justify a longer delay or more preferred sizes."""
    if not ranked or not ranked[0].meets:
        return ranked
    best = ranked[0]
    close = [t for t in ranked if t.meets and _within_noise(t, best, goal)]
    simplest = min(close, key=lambda t: _simplicity(t.config, written))
    return [simplest, *(t for t in ranked if t is not simplest)]


def _within_noise(trial: Trial, best: Trial, goal: Objective) -> bool:
    if trial.config.instances != best.config.instances:
        return False
    if goal.rate is None:
        return trial.summary.throughput >= best.summary.throughput * (1 - NOISE)
    return trial.summary.latency.p99_ms <= best.summary.latency.p99_ms * (1 + NOISE)


def _simplicity(config: BatcherConfig, written: int) -> tuple[int, int, bool, int]:
    """No delay, no preferred sizes, the max_batch_size as written, then the smaller one."""
    limit = config.max_batch_size
    return (config.delay_us, len(config.preferred), limit != written, limit)


def _round_one(base: BatcherConfig, space: Space) -> Iterator[BatcherConfig]:
    batching = base.max_batch_size > 0
    limits = _sizes(space.largest_batch) if batching else [0]
    if space.keep_batch:
        limits = [base.max_batch_size]
    for instances in instance_counts(space):
        for limit in limits:
            yield replace(
                base,
                max_batch_size=limit,
                instances=instances,
                dynamic=batching,
                preferred=(),
                delay_us=0,
            )


def _round_two(config: BatcherConfig, goal: Objective) -> Iterator[BatcherConfig]:
    limit = config.max_batch_size
    smaller = [s for s in _sizes(limit) if s < limit]
    preferred_sets = [(), *((s,) for s in smaller), *((s, limit) for s in smaller)]
    delays = [0, *(d for d in DELAYS_US if d < goal.slo_p99_ms * 1000.0)]
    for preferred in preferred_sets:
        for delay in delays:
            yield replace(config, preferred=preferred, delay_us=delay)


def _sizes(largest: int) -> list[int]:
    """Powers of two from 2 below `largest`, and `largest`."""
    sizes = []
    size = 2
    while size < largest:
        sizes.append(size)
        size *= 2
    return [*sizes, largest] if largest >= 1 else []


def _runner(curve: ServiceCurve, goal: Objective) -> Callable[[BatcherConfig], Trial]:
    def at(config: BatcherConfig, rate: float) -> Trial:
        arrivals = poisson(rate, goal.requests, random.Random(goal.seed))
        summary = summarize(simulate(config, curve, arrivals, goal.seed), goal.overhead_ms)
        return Trial(config, summary, rate, _meets(summary, rate, goal))

    def run(config: BatcherConfig) -> Trial:
        if goal.rate is not None:
            return at(config, goal.rate)
        return _highest(config, curve, at)

    return run


def _meets(summary: Summary, rate: float, goal: Objective) -> bool:
    return (
        summary.served == summary.requests
        and summary.throughput >= SERVED * rate  # requests of one row: rows = requests
        and summary.latency.p99_ms <= goal.slo_p99_ms
    )


def _highest(
    config: BatcherConfig, curve: ServiceCurve, at: Callable[[BatcherConfig, float], Trial]
) -> Trial:
    """The trial at the highest rate that meets the objective (or the lowest tried)."""
    low, high = 0.0, capacity(config, curve)
    best = None
    for _ in range(BISECTIONS):
        rate = (low + high) / 2
        trial = at(config, rate)
        if trial.meets:
            low, best = rate, trial
        else:
            high = rate
    return best or at(config, high / 2)


def capacity(config: BatcherConfig, curve: ServiceCurve) -> float:
    """Requests per second the instances serve at best: the fastest rows per second of a batch
    up to max_batch_size, times the instance count. Past the largest measured size the mean time
    is linear in the size (service.py), so rows per second is monotone there: that stretch is
    asked at its two ends only."""
    limit = config.batch_limit if config.dynamic else 1
    measured = curve.sizes[-1]
    sizes: list[int] = [*range(1, min(limit, measured) + 1), *([limit] if limit > measured else [])]
    best: float = max(size / curve.mean_us(size) for size in sizes)
    return best * 1e6 * config.instances


def why_first(trials: list[Trial], goal: Objective) -> str:
    """One line: why the first trial ranks above the second."""
    if not trials:
        return "nothing was tried"
    first = trials[0]
    if not first.meets:
        return f"no configuration tried meets p99 <= {goal.slo_p99_ms:g} ms" + (
            f" at {goal.rate:,g} requests/s" if goal.rate is not None else ""
        )
    if len(trials) == 1:
        return "the only configuration tried"
    second = trials[1]
    a, b = first.summary, second.summary
    if not second.meets:
        return f"#2 misses the objective (p99 {b.latency.p99_ms:.3f} ms)"
    if goal.rate is None and not _within_noise(second, first, goal):
        return f"{a.throughput:,.0f} infer/s within the objective vs {b.throughput:,.0f} for #2"
    if first.config.instances != second.config.instances:
        return f"{first.config.instances} instance(s) where #2 needs {second.config.instances}"
    # the simplicity rule decided it: #2 is as good within noise, or better (#1 was moved up
    # past it); when #1 is simply better and #2 not close, the plain comparison below says so
    second_better = (
        b.throughput > a.throughput if goal.rate is None else b.latency.p99_ms < a.latency.p99_ms
    )
    if second_better or _within_noise(second, first, goal):
        if goal.rate is None:
            shown = f"#2 serves {b.throughput:,.0f} infer/s, #1 {a.throughput:,.0f}"
        else:
            shown = f"#2 has p99 {b.latency.p99_ms:.3f} ms, #1 {a.latency.p99_ms:.3f} ms"
        return (
            f"the simplest of those within {NOISE:.0%} of the best (a gap that small is noise "
            f"at {goal.requests:,} requests): {shown}"
        )
    return f"p99 {a.latency.p99_ms:.3f} ms vs {b.latency.p99_ms:.3f} ms for #2, same instances"


__all__ = [
    "Objective",
    "Space",
    "Trial",
    "capacity",
    "distinct",
    "rank",
    "search",
    "space_for",
    "why_first",
]
