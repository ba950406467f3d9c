"""Priority levels, queue policies (capacity, timeouts, override, DELAY), preserve_ordering and
instances, each pinned by a small trace (`scheduler_utils.cc`, `dynamic_batch_scheduler.cc`)."""

from __future__ import annotations

import random

from tune.simkit import serve, starts_ms, trace

from tritoncfg.record import replace
from tritoncfg.tune.arrivals import poisson
from tritoncfg.tune.batcher import DELAY, BatcherConfig, QueuePolicy
from tritoncfg.tune.engine import OK, QUEUE_FULL, TIMED_OUT, simulate
from tritoncfg.tune.service import parse_service_ms
from tritoncfg.tune.summary import summarize


def test_a_higher_priority_level_is_served_first() -> None:
    # M = 2; while the first batch (2 rows) runs, level 2 queues a and b, then level 1 c and d
    config = BatcherConfig(2, priority_levels=2, default_priority_level=2)
    outcome = serve(config, trace([0, 1, 2, 3, 4], [2, 1, 1, 1, 1], priorities=[1, 2, 2, 1, 1]))
    assert outcome.batches == [2, 2, 2]
    assert starts_ms(outcome) == [0, 20, 20, 10, 10]


def test_priority_zero_or_out_of_range_takes_the_default_level() -> None:
    config = BatcherConfig(2, priority_levels=2, default_priority_level=1)
    outcome = serve(config, trace([0, 1, 2, 3, 4], [2, 1, 1, 1, 1], priorities=[1, 2, 2, 0, 9]))
    assert starts_ms(outcome) == [0, 20, 20, 10, 10]


def test_a_full_queue_rejects() -> None:
    config = BatcherConfig(1, default_policy=QueuePolicy(max_queue_size=2))
    outcome = serve(config, trace([0, 1, 2, 3, 4]))  # the first runs; 2 wait; 2 rejected
    assert outcome.status == [OK, OK, OK, QUEUE_FULL, QUEUE_FULL]
    assert outcome.batches == [1, 1, 1]


def test_a_request_past_its_queue_timeout_is_rejected_when_the_batcher_reaches_it() -> None:
    config = BatcherConfig(1, default_policy=QueuePolicy(default_timeout_us=5_000))
    outcome = serve(config, trace([0, 1, 6]))  # at 10 ms: the 1 ms one waited 9 ms, over 5
    assert outcome.status == [OK, TIMED_OUT, OK]
    assert starts_ms(outcome) == [0, -0.001, 10]


def test_an_override_may_shorten_the_timeout_never_lengthen_it() -> None:
    policy = QueuePolicy(default_timeout_us=20_000, allow_timeout_override=True)
    outcome = serve(
        BatcherConfig(1, default_policy=policy), trace([0, 1, 2], timeouts_us=[0, 3_000, 50_000])
    )
    assert outcome.status == [OK, TIMED_OUT, OK]


def test_a_request_timeout_is_ignored_when_the_policy_has_none() -> None:
    # `PolicyQueue::Enqueue` takes the request's timeout only when shorter than the default: a
    # default of 0 (none) is never longer
    policy = QueuePolicy(allow_timeout_override=True)
    outcome = serve(BatcherConfig(1, default_policy=policy), trace([0, 1], timeouts_us=[0, 1_000]))
    assert outcome.status == [OK, OK]


def test_delay_action_serves_an_expired_request_after_the_unexpired_ones() -> None:
    policy = QueuePolicy(timeout_action=DELAY, default_timeout_us=5_000)
    outcome = serve(BatcherConfig(1, default_policy=policy), trace([0, 1, 6, 7]))
    # at 10 ms the 1 ms request has expired: it goes behind the 6 ms one, which has not; at
    # 20 ms the 7 ms one has expired too, and joins the delayed requests after the 1 ms one
    assert outcome.status == [OK] * 4
    assert starts_ms(outcome) == [0, 20, 10, 30]


def test_preserve_ordering_holds_a_response_for_the_ones_before_it() -> None:
    # two instances; an 8-row request takes 10 ms, the 1-row one after it 1 ms
    config = BatcherConfig(8, instances=2)
    arrivals = trace([0, 0.1], sizes=[8, 1])
    plain = serve(config, arrivals, service="1:1,8:10")
    assert [round(d / 1000, 3) for d in plain.done] == [10, 1.1]
    ordered = serve(BatcherConfig(8, instances=2, preserve_ordering=True), arrivals, "1:1,8:10")
    assert [round(d / 1000, 3) for d in ordered.done] == [10, 10]


def test_instances_take_batches_as_they_free_up() -> None:
    outcome = serve(BatcherConfig(1, instances=3, dynamic=False), trace([0, 0, 0, 0, 1]))
    assert starts_ms(outcome) == [0, 0, 0, 10, 10]
    assert sorted(round(b / 1000) for b in outcome.busy) == [10, 20, 20]


def test_every_request_is_accounted_for_under_random_policies() -> None:
    """Random traces and settings: each request is served once (its batch within
    max_batch_size, never before it arrived) or rejected or timed out; the loop ends."""
    import random

    from tritoncfg.tune.arrivals import Arrivals

    rng = random.Random(11)
    for _ in range(40):
        levels = rng.choice([0, 0, 2, 3])
        policy = QueuePolicy(
            rng.choice([0, DELAY]),
            rng.choice([0, 0, 2_000, 20_000]),
            rng.random() < 0.3,
            rng.choice([0, 0, 5]),
        )
        limit = rng.choice([0, 1, 4, 8])
        config = BatcherConfig(
            limit,
            instances=rng.choice([1, 2, 3]),
            dynamic=rng.random() < 0.9,
            preferred=tuple(sorted({rng.randint(1, limit) for _ in range(2)})) if limit else (),
            delay_us=rng.choice([0, 500, 3_000]),
            preserve_ordering=rng.random() < 0.2 and levels < 2 and policy.timeout_action != DELAY,
            priority_levels=levels,
            default_priority_level=levels,
            default_policy=policy,
        )
        n = 300
        times = sorted(rng.uniform(0, 300_000) for _ in range(n))
        arrivals = Arrivals(
            times,
            [rng.randint(1, max(1, limit)) for _ in range(n)],
            [rng.randint(0, levels + 1) for _ in range(n)],
            [rng.choice([0, 1_000, 50_000]) for _ in range(n)],
        )
        outcome = serve(config, arrivals, service="1:1,8:3")
        served = [i for i, s in enumerate(outcome.status) if s == OK]
        assert sum(outcome.batches) == sum(arrivals.sizes[i] for i in served), config  # type: ignore[index]
        assert all(outcome.start[i] >= times[i] for i in served)
        assert all(rows <= config.batch_limit for rows in outcome.batches) or not config.dynamic
        assert all(outcome.done[i] >= outcome.start[i] for i in served)
        assert all(outcome.start[i] == -1 for i, s in enumerate(outcome.status) if s != OK)


def test_an_instance_merges_the_payload_behind_once_it_has_waited_the_delay() -> None:
    """instance_queue.cc: InstanceQueue::Dequeue. The instance is busy until 12 ms; the batcher
    hands over 6 (3.0 to 3.5 ms: it grew past the largest preferred size) and then 2 (a preferred
    size). Taking the 6 at 12 ms, the instance finds the 2 older than the 2 ms delay and runs
    both as one batch of 8. With a 10 ms delay the 1 (3.7 ms) is 9.3 ms old when the instance
    (busy from 3 ms: the first request waited for a second) takes the 6 at 13 ms: apart."""
    arrivals = trace([0, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7])
    merged = serve(BatcherConfig(8, preferred=(2, 4), delay_us=2_000), arrivals)
    assert merged.batches == [1, 8]
    assert starts_ms(merged) == [2.0] + [12.0] * 8
    younger = serve(BatcherConfig(8, preferred=(2, 4), delay_us=10_000), arrivals)
    assert younger.batches == [2, 6, 1]


def test_a_payload_found_too_big_to_merge_stops_growing() -> None:
    """The payload behind the one taken is marked executing before the size check: with
    preferred [4, 8] and max 8, the 4 (4.0 to 4.3 ms) behind the 8 taken at 12 ms is older than
    the delay and cannot join it, so it stops growing. The request at 4.4 ms, handed over after
    it, has waited past the delay when the instance takes the 4 at 22 ms and joins it (5);
    the requests from 12.5 ms form a batch of their own instead of filling the 4 up to 8."""
    times = [0, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7, 4.0, 4.1, 4.2, 4.3, 4.4]
    outcome = serve(
        BatcherConfig(8, preferred=(4, 8), delay_us=2_000), trace([*times, 12.5, 12.6, 12.7, 12.8])
    )
    assert outcome.batches == [1, 8, 5, 4]
    assert starts_ms(outcome)[-5:] == [22.0, 32.0, 32.0, 32.0, 32.0]


def test_instances_beyond_one_per_request_are_not_simulated() -> None:
    """A config's count of millions simulates as fast as one per request, with the same
    outcome: at most one instance per request is ever busy; the others are reported idle."""
    from tritoncfg.tune.summary import text_lines

    arrivals = poisson(5_000.0, 300, random.Random(3))
    curve = parse_service_ms("1:2,8:5")
    enough = summarize(simulate(BatcherConfig(8, instances=300), curve, arrivals))
    huge = summarize(simulate(BatcherConfig(8, instances=100_000_000), curve, arrivals))
    assert enough.unused_instances == 0 and huge.unused_instances == 100_000_000 - 300
    assert replace(huge, unused_instances=0) == enough
    assert max(huge.utilisation) > 0  # it served them
    (line,) = [line for line in text_lines(huge, "m") if line.startswith("instance utilisation")]
    assert line.endswith(
        " over 300 instances and 99,999,700 more at 0% (more instances than requests)"
    )
    assert huge.as_dict()["unused_instances"] == 99_999_700


def test_a_max_batch_size_above_every_row_sent_simulates_as_fast() -> None:
    """Its batches are those of a limit of every row sent (no batch holds more), the same draws."""
    arrivals = poisson(20_000.0, 300, random.Random(5))
    curve = parse_service_ms("1:0.2,8:0.5,64:2")
    every_row = summarize(simulate(BatcherConfig(300, delay_us=500), curve, arrivals))
    huge = summarize(simulate(BatcherConfig(100_000_000, delay_us=500), curve, arrivals))
    assert huge == every_row and max(huge.batches) > 8  # it did batch
