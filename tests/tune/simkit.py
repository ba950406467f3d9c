"""Test support for the simulator: small traces served under a batcher config, read back as the
batches formed and when each request ran."""

from __future__ import annotations

from dataclasses import replace

from tritoncfg.tune.arrivals import Arrivals
from tritoncfg.tune.batcher import BatcherConfig, QueuePolicy
from tritoncfg.tune.engine import Outcome, simulate
from tritoncfg.tune.service import parse_service_ms

# a policy that only makes the queue non-plain: batches are formed when an instance is idle,
# as the worked examples of Triton's batcher docs assume ("queued when the batcher looks")
NO_PREFETCH = QueuePolicy(max_queue_size=1_000)


def trace(
    times_ms: list[float],
    sizes: list[int] | None = None,
    priorities: list[int] | None = None,
    timeouts_us: list[int] | None = None,
) -> Arrivals:
    return Arrivals([t * 1000.0 for t in times_ms], sizes, priorities, timeouts_us)


def serve(config: BatcherConfig, arrivals: Arrivals, service: str = "1:10") -> Outcome:
    return simulate(config, parse_service_ms(service), arrivals, seed=0)


def busy_then(times_ms: list[float], first_ms: float = 10.0) -> Arrivals:
    """One request at 0 that keeps the one instance busy for `first_ms` (the service time), then
    requests at `times_ms`, all queued when it frees up."""
    return trace([0.0, *times_ms])


def looked_at(config: BatcherConfig, queued: int) -> list[int]:
    """The batches formed from `queued` single-row requests that wait for a busy instance."""
    no_prefetch = replace(config, default_policy=NO_PREFETCH)
    return serve(no_prefetch, busy_then([0.1 * (i + 1) for i in range(queued)])).batches[1:]


def starts_ms(outcome: Outcome) -> list[float]:
    return [round(s / 1000.0, 3) for s in outcome.start]
