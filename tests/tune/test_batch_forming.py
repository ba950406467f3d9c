"""Each rule of Triton's batch forming (`dynamic_batch_scheduler.cc: GetDynamicBatch`), pinned by
the batches a small trace forms. Service time is 10 ms at every size unless a test says."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tune.simkit import NO_PREFETCH, looked_at, serve, starts_ms, trace

from tritoncfg.tune.batcher import BatcherConfig

M16 = BatcherConfig(16)


def test_without_dynamic_batching_every_request_is_its_own_batch() -> None:
    outcome = serve(BatcherConfig(16, dynamic=False), trace([0, 0, 0, 1]))
    assert outcome.batches == [1, 1, 1, 1]
    assert starts_ms(outcome) == [0, 10, 20, 30]


@pytest.mark.parametrize(
    ("preferred", "queued", "batches"),
    [
        ((), 6, [6]),  # none (-> [16]): everything queued
        ((), 20, [16, 4]),  # up to max_batch_size, then the rest
        ((4, 8), 6, [4, 2]),  # the largest preferred size reachable, not "wait for 8"
        ((4, 8), 12, [8, 4]),
    ],
)
def test_the_cut_is_the_largest_preferred_size_queued_now(
    preferred: tuple[int, ...], queued: int, batches: list[int]
) -> None:
    assert looked_at(replace(M16, preferred=preferred), queued) == batches


def test_requests_of_several_rows_fall_back_to_the_cut_before_the_largest_preferred() -> None:
    # three requests of 3 rows, preferred [4, 8]: totals 3, 6, 9 never hit 4 or 8; the walk
    # marks 6, the total before the one that passes 8
    config = BatcherConfig(16, preferred=(4, 8), default_policy=NO_PREFETCH)
    outcome = serve(config, trace([0, 0.1, 0.2, 0.3], sizes=[1, 3, 3, 3]))
    assert outcome.batches == [1, 6, 3]


def test_a_delay_waits_for_the_oldest_request_then_sends_what_is_queued() -> None:
    config = BatcherConfig(16, preferred=(4, 8), delay_us=1000)
    outcome = serve(config, trace([0, 0.1, 0.2]))
    assert outcome.batches == [3]
    assert starts_ms(outcome) == [1.0, 1.0, 1.0]


def test_a_delay_is_cut_short_when_a_preferred_size_becomes_formable() -> None:
    config = BatcherConfig(16, preferred=(4, 8), delay_us=1000)
    outcome = serve(config, trace([0, 0.1, 0.2, 0.5]))
    assert outcome.batches == [4]
    assert starts_ms(outcome) == [0.5] * 4


def test_within_the_delay_a_preferred_size_is_sent_and_the_rest_wait() -> None:
    config = BatcherConfig(16, preferred=(4, 8), delay_us=1000)
    outcome = serve(config, trace([0, 0, 0, 0, 0, 0]))  # 6 at once: 4 now, 2 when it frees up
    assert outcome.batches == [4, 2]


def test_once_the_delay_expired_the_whole_walked_prefix_goes_up_to_max_batch_size() -> None:
    # 12 queued while the instance is busy 10 ms, all older than the 1 ms delay when it frees
    # up (the first request, of 8 rows, is sent at once): the cut at 8 is ignored, 12 go together
    config = BatcherConfig(16, preferred=(4, 8), delay_us=1000, default_policy=NO_PREFETCH)
    outcome = serve(config, trace([0.1 * i for i in range(13)], sizes=[8] + [1] * 12))
    assert outcome.batches == [8, 12]


def test_a_handed_over_payload_grows_while_it_waits_for_an_instance() -> None:
    # a plain queue lets the batcher hand a batch over before an instance is free (prefetch);
    # it takes later arrivals while it waits, ignoring the delay, and past the largest
    # preferred size once it reached it (the fallback cut is empty there)
    # (the first request, of 4 rows, is sent at once; the second after the 1 ms delay)
    config = BatcherConfig(8, preferred=(4,), delay_us=1000)
    outcome = serve(config, trace([0, 0.1, 1.5, 2.0, 2.5, 3.0], sizes=[4, 1, 1, 1, 1, 1]))
    assert outcome.batches == [4, 5]
    assert starts_ms(outcome) == [0] + [10] * 5


def test_an_arrival_short_of_the_next_preferred_size_does_not_wake_the_batcher() -> None:
    # core's Enqueue wakes the batcher for an arrival only when the queue reaches the next
    # preferred size of its last wait (4 here): the request at 2 ms finds the batch of one sent
    # at 1.5 ms waiting for the busy instance but does not join it; it waits until the
    # instance takes that batch (Triton 2.51 queues so: bench/batcher_vs_triton.py)
    config = BatcherConfig(8, preferred=(4, 8), delay_us=500)
    outcome = serve(config, trace([0, 1, 2]))
    assert outcome.batches == [1, 1, 1]
    assert starts_ms(outcome) == [0.5, 10.5, 20.5]
    # four queued do wake it: they join the waiting batch
    outcome = serve(config, trace([0, 1, 2, 2.1, 2.2, 2.3]))
    assert outcome.batches == [1, 5]
    assert starts_ms(outcome) == [0.5] + [10.5] * 5


def test_a_plain_queue_forms_batches_before_an_instance_is_free() -> None:
    # preferred [4, 8], no delay, the instance busy: with a plain queue (prefetch) the waiting
    # payload is cut at 4 as soon as 4 are queued; a queue with a policy waits for the instance
    # and then finds 8
    config = BatcherConfig(8, preferred=(4, 8))
    arrivals = trace([0.1 * i for i in range(9)], sizes=[8] + [1] * 8)
    assert config.prefetching
    assert serve(config, arrivals).batches == [8, 4, 4]
    assert serve(replace(config, default_policy=NO_PREFETCH), arrivals).batches == [8, 8]


def test_max_batch_size_zero_runs_one_request_at_a_time() -> None:
    outcome = serve(BatcherConfig(0), trace([0, 0.1, 0.2, 0.3]))
    assert outcome.batches == [1, 1, 1, 1]
