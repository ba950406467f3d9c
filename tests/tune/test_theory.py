"""Where queueing theory is exact, the simulator agrees with it."""

from __future__ import annotations

import random

import pytest

from tritoncfg.tune.arrivals import constant, poisson
from tritoncfg.tune.batcher import BatcherConfig
from tritoncfg.tune.engine import simulate
from tritoncfg.tune.service import parse_service_ms
from tritoncfg.tune.summary import summarize

SERVICE_MS = 2.0


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_one_instance_without_batching_is_pollaczek_khinchine(load: float) -> None:
    """M/D/1: mean latency s + rho * s / (2 (1 - rho)) over 200,000 Poisson requests."""
    rate = load / SERVICE_MS * 1000.0
    arrivals = poisson(rate, 200_000, random.Random(7))
    outcome = simulate(
        BatcherConfig(0, dynamic=False), parse_service_ms(f"1:{SERVICE_MS}"), arrivals
    )
    summary = summarize(outcome)
    expected = SERVICE_MS + load * SERVICE_MS / (2 * (1 - load))
    assert summary.served == 200_000
    assert summary.latency.mean_ms == pytest.approx(expected, rel=0.03)
    assert summary.compute.mean_ms == pytest.approx(SERVICE_MS)
    assert summary.utilisation[0] == pytest.approx(load, rel=0.02)


def test_a_constant_rate_below_capacity_never_queues() -> None:
    outcome = simulate(
        BatcherConfig(0, dynamic=False), parse_service_ms("1:2"), constant(400.0, 1_000)
    )
    summary = summarize(outcome)
    assert summary.queue.p99_ms == 0.0 and summary.latency.p99_ms == pytest.approx(2.0)


def test_the_same_seed_gives_the_same_run_and_another_seed_another() -> None:
    curve = parse_service_ms("1:2.0,8:3.1,32:7.9")
    config = BatcherConfig(32, instances=2, preferred=(8, 16), delay_us=500)

    def run(seed: int) -> dict[str, object]:
        arrivals = poisson(4000.0, 20_000, random.Random(seed))
        return summarize(simulate(config, curve, arrivals, seed)).as_dict()

    assert run(3) == run(3)
    assert run(3) != run(4)


@pytest.mark.parametrize(
    "config",
    [
        BatcherConfig(32, instances=2, preferred=(8, 16), delay_us=500),
        BatcherConfig(16, delay_us=2000),
        BatcherConfig(8, preferred=(2, 4, 8)),
    ],
    ids=str,
)
def test_the_arithmetic_walk_forms_the_batches_the_request_by_request_walk_forms(
    config: BatcherConfig,
) -> None:
    """Requests of one row take the shortcut walk; saying each is one row takes the full one."""
    curve = parse_service_ms("1:2.0,8:3.1,32:7.9")
    arrivals = poisson(3000.0, 20_000, random.Random(5))
    shortcut = simulate(config, curve, arrivals, 1)
    arrivals.sizes = [1] * len(arrivals)
    walked = simulate(config, curve, arrivals, 1)
    assert len(set(shortcut.batches)) > 3
    assert shortcut.batches == walked.batches
    assert shortcut.done == walked.done
