"""The search `tune` runs: the candidates, the ranking against the objective, why the winner
wins, and how the winner's instance count is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritoncfg.gen.change import GenError
from tritoncfg.gen.target import load_target
from tritoncfg.gen.tuned import instance_unit, tuned_change
from tritoncfg.text import parse
from tritoncfg.tune.batcher import BatcherConfig, QueuePolicy
from tritoncfg.tune.search import Objective, Space, Trial, capacity, search, why_first
from tritoncfg.tune.service import parse_service_ms
from tritoncfg.tune.summary import Latency, Summary

CURVE = parse_service_ms("1:1.0,8:2.0")


def test_capacity_is_the_fastest_rows_per_second_times_instances() -> None:
    assert capacity(BatcherConfig(8, instances=3), CURVE) == pytest.approx(3 * 8 / 0.002)
    assert capacity(BatcherConfig(8, dynamic=False), CURVE) == pytest.approx(1000)


def test_at_a_rate_the_fewest_instances_that_meet_the_objective_win() -> None:
    # 1,500 requests/s: one instance without batching (1 ms each) is overloaded; batching or
    # a second instance serves it
    base = BatcherConfig(8, dynamic=False)
    goal = Objective(5.0, 1500.0, requests=4000)
    trials = search(base, CURVE, Space(8, 2), goal)
    first = trials[0]
    assert first.meets and first.config.instances == 1 and first.config.dynamic
    assert first.summary.latency.p99_ms <= 5.0
    written = next(t for t in trials if t.written)
    assert not written.meets  # the config as written cannot keep up
    assert [t.meets for t in trials] == sorted((t.meets for t in trials), reverse=True)
    assert why_first(trials, goal).startswith(("p99 ", "the simplest of those within 2%"))


def _trial(p99_ms: float, config: BatcherConfig) -> Trial:
    latency = Latency(p99_ms, p99_ms, p99_ms, p99_ms)
    summary = Summary(100, 100, 0, 0, 1000.0, latency, latency, latency, {1: 100}, (0.5,))
    return Trial(config, summary, 1000.0, meets=True)


def test_why_first_says_noise_only_when_the_runner_up_is_close_or_better() -> None:
    goal = Objective(2.0, 1000.0, requests=2000)
    plain, delayed = BatcherConfig(8), BatcherConfig(4, preferred=(4,), delay_us=500)
    # #1 is better by 6%, beyond the 2% noise: it wins on p99, not as "the simplest"
    clear = why_first([_trial(1.162, plain), _trial(1.237, delayed)], goal)
    assert clear == "p99 1.162 ms vs 1.237 ms for #2, same instances"
    close = why_first([_trial(1.162, plain), _trial(1.170, delayed)], goal)
    assert close.startswith("the simplest of those within 2% of the best")
    promoted = why_first([_trial(1.170, plain), _trial(1.162, delayed)], goal)  # #2 was better
    assert promoted.endswith("#2 has p99 1.162 ms, #1 1.170 ms")


def test_the_candidates_keep_the_written_queue_policy() -> None:
    policy = QueuePolicy(max_queue_size=50)
    base = BatcherConfig(8, default_policy=policy, preserve_ordering=True)
    trials = search(base, CURVE, Space(8, 1), Objective(5.0, 1500.0, requests=1000))
    assert all(t.config.default_policy == policy and t.config.preserve_ordering for t in trials)


def test_no_trial_meeting_the_objective_is_said_so() -> None:
    goal = Objective(0.5, 1500.0, requests=1000)
    trials = search(BatcherConfig(8), CURVE, Space(8, 1), goal)
    assert not trials[0].meets
    assert (
        why_first(trials, goal) == "no configuration tried meets p99 <= 0.5 ms at 1,500 requests/s"
    )


def test_the_instance_count_is_written_per_device_of_the_one_group() -> None:
    text = 'name: "m"\nmax_batch_size: 8\ninstance_group [ { count: 1 kind: KIND_GPU gpus: [ 0, 1 ] } ]\n'
    parsed = parse(text)
    assert instance_unit(parsed.message, 1) == 2
    several = parse(text.replace("} ]", "}, { kind: KIND_CPU } ]"))
    assert instance_unit(several.message, 1) is None
    assert instance_unit(parse('name: "m"\n').message, 4) == 4


def test_a_count_the_groups_cannot_hold_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'name: "m"\nbackend: "python"\nmax_batch_size: 8\n'
        "instance_group [ { count: 1 kind: KIND_CPU }, { count: 1 kind: KIND_CPU } ]\n"
    )
    target = load_target(model)
    with pytest.raises(GenError, match="3 instances cannot be written as one group's count"):
        tuned_change(target, BatcherConfig(8, instances=3), 1, [])
    kept = tuned_change(target, BatcherConfig(8, instances=2, delay_us=300), 1, [])
    assert "max_queue_delay_microseconds: 300" in kept.after and kept.after.count("count: 1") == 2


@pytest.mark.parametrize(
    "curve",
    ["1:2,8:5", "1:2", "2:1,4:3,8:3.5", "1:5,16:4,32:3", "1:1,2:1.9,64:40", "4:2,8:1"],
)
def test_capacity_asks_only_the_sizes_that_can_be_best(curve: str) -> None:
    """Past the largest measured size the mean time is linear, so the best rows per second is
    at a measured size or at max_batch_size: the same answer as asking every size."""
    from tritoncfg.tune.search import capacity
    from tritoncfg.tune.service import parse_service_ms

    service = parse_service_ms(curve)
    for limit in (1, 3, 8, 50, 300):
        config = BatcherConfig(limit, instances=2)
        every = max(size / service.mean_us(size) for size in range(1, limit + 1)) * 1e6 * 2
        assert capacity(config, service) == pytest.approx(every, rel=1e-12), limit
    huge = BatcherConfig(100_000_000)  # answered at once
    assert capacity(huge, service) >= capacity(BatcherConfig(300), service)
