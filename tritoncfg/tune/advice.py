"""The one pick behind `probe --suggest --latency-budget-ms` and `gen dynamic-batching --from-perf
--latency-budget-ms`: `tune`'s search (search.py) over a measured curve, so the three commands
never disagree on the same curve, objective and load.

Two differences from `tune`'s defaults, both because the suggestions must be quick and write
only what their commands own: max_batch_size is kept as written (`tune --keep-max-batch-size`),
and each configuration is simulated with `REQUESTS` requests instead of 10,000 (`tune
--requests 2000`), so a suggestion takes a second or two. With a rate the instance count is
searched up to 4 (in steps of the one instance group's devices); without one, the highest load
within the budget is found at the written count.
"""

from __future__ import annotations

from collections.abc import Sequence

from tritoncfg.batch_rule import Measured
from tritoncfg.record import record
from tritoncfg.tune.batcher import BatcherConfig
from tritoncfg.tune.search import Objective, Trial, search, space_for, why_first
from tritoncfg.tune.service import from_measured

REQUESTS = 2_000  # simulated requests per configuration of a suggestion (tune's default: 10,000)
IN_PROCESS = (
    "the measured times are in-process: network and (de)serialization are not in them "
    "(`tritoncfg tune --overhead-ms` adds them)"
)


@record(frozen=True)
class Advice:
    winner: Trial
    rate: float | None  # the load asked for; None: the highest within the objective
    why: tuple[str, ...]

    @property
    def meets(self) -> bool:
        return self.winner.meets

    @property
    def config(self) -> BatcherConfig:
        return self.winner.config

    @property
    def preferred(self) -> tuple[int, ...]:
        """The preferred sizes after Triton's normalization (`[max_batch_size]` for none)."""
        return tuple(sorted(self.config.preferred_sizes)) if self.config.dynamic else ()

    def prediction(self) -> dict[str, float | int | None]:
        summary = self.winner.summary
        return {
            "rate": round(self.winner.rate, 3),
            "rate_given": self.rate,
            "throughput": round(summary.throughput, 3),
            "p99_ms": round(summary.latency.p99_ms, 4),
            "requests": summary.requests,
        }


def advise(
    measured: Sequence[Measured],
    base: BatcherConfig,
    slo_p99_ms: float,
    rate: float | None = None,
    unit: int | None = 1,
    requests: int = REQUESTS,
) -> Advice:
    """The configuration `tune --keep-max-batch-size --requests REQUESTS` picks for `base` (the
    config as written) on the curve `measured`, p99 at or under `slo_p99_ms`, at `rate` requests
    per second (None: the highest rate); SimulationInputError when no point has a time."""
    curve = from_measured(measured, "the measured curve")
    goal = Objective(slo_p99_ms, rate, requests)
    trials = search(base, curve, space_for(base, unit, rate, keep_batch=True), goal)
    winner = trials[0]
    return Advice(winner, rate, tuple(_why(winner, goal, why_first(trials, goal))))


def _why(winner: Trial, goal: Objective, ranked: str) -> list[str]:
    config, summary = winner.config, winner.summary
    searched = (
        f"simulated as `tritoncfg tune` searches (max_batch_size {config.max_batch_size} kept, "
        f"{goal.requests:,} requests per configuration)"
    )
    if not winner.meets:
        return [f"{searched}: {ranked}", IN_PROCESS]
    load = (
        f"at {goal.rate:,g} requests/s"
        if goal.rate is not None
        else f"at the highest load within the budget, {winner.rate:,.0f} requests/s"
    )
    return [
        f"{searched}: {config.describe()}",
        f"predicted {load}: {summary.throughput:,.1f} infer/s, p99 {summary.latency.p99_ms:.3f} "
        f"ms (budget {goal.slo_p99_ms:g} ms), mean batch {summary.mean_batch:.2f}",
        f"why: {ranked}",
        IN_PROCESS,
    ]


__all__ = ["IN_PROCESS", "REQUESTS", "Advice", "advise"]
