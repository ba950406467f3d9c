"""The event loop: Triton core's dynamic batcher feeding N model instances.

What is simulated, each step as core does it (core's `src/`, read at 73aad7c):

- `dynamic_batch_scheduler.cc: Enqueue`: without `dynamic_batching` each request is its own
  payload, straight to the rate limiter's queue; with it, the request joins the queue of its
  priority level, or is rejected when that level holds `max_queue_size` requests
  (`scheduler_utils.cc: PolicyQueue::Enqueue`, which also sets its deadline: the policy's
  timeout, or the request's own when `allow_timeout_override` and it is shorter and non-zero).
- `BatcherThread`: a batch is formed only while a payload slot is free
  (`rate_limiter.cc: PayloadSlotAvailable`): with a plain queue (one level, no timeout, no
  capacity) while fewer than 2 x instances payloads wait for an instance, otherwise only when an
  instance is idle. A payload handed over keeps growing while it waits, until it is saturated
  or an instance takes it (the payload is then stale and a new one is started).
- `GetDynamicBatch`: the walk and the decision, mirrored in forming.py.
- Expired requests leave the queue when the walk reaches them (`PolicyQueue::ApplyPolicy`):
  REJECT fails them, DELAY moves them behind the unexpired requests of their level; while the
  batcher waits for a slot it also rejects every expired request every 500 ms
  (`WaitForPayloadSlotAvailable`, `RejectTimeoutRequests`).
- An instance takes the payloads in order as it frees up (`rate_limiter.cc: DequeuePayload`).
  With a delay set and max_batch_size above 1, it then looks at the payload behind the one it
  took (`instance_queue.cc: InstanceQueue::Dequeue`): if that payload's oldest request has
  waited longer than the delay, it is marked executing, which stops it growing (the batcher
  starts a new one), and merged into the batch taken when the two fit within max_batch_size;
  the next one is looked at only after a merge. Neither payload is ever "saturated" there
  (`Payload::MarkSaturated` is only for a shape mismatch or a custom batching strategy).
- A batch's responses leave at the end of its service time; the instance takes the next batch
  after the curve's turnaround (service.py), which is counted as busy.
- `preserve_ordering`: responses leave in the order requests were put in batches
  (`DelegateResponse`).

The batcher takes no time. It runs when core wakes it: at each completion and each payload an
instance takes (the payload's callback), when its wait ends, and at an arrival only when a
payload slot is free and the payload is saturated or taken or the queue holds the next
preferred size the last wait was for (`Enqueue`). So with a delay, a request that comes while a
payload handed over waits for a busy instance does not join it: it waits for the instance to take
that payload (measured against Triton 2.51: bench/batcher_vs_triton.py, docs/tune.md).
"""

from __future__ import annotations

import random
from collections import deque
from heapq import heappop, heappush

from tritoncfg.record import record
from tritoncfg.tune.arrivals import Arrivals
from tritoncfg.tune.batcher import DELAY, BatcherConfig
from tritoncfg.tune.forming import (
    EXECUTING,
    INF,
    NEW,
    WAITING,
    BatchForming,
    Level,
    Payload,
)
from tritoncfg.tune.service import ServiceCurve

OK, QUEUE_FULL, TIMED_OUT = 0, 1, 2  # a request's status
SWEEP_US = 500_000.0  # the batcher's wait for a slot between rejections of expired requests


@record
class Outcome:
    """Each request's fate (times in µs) and each instance's busy time."""

    config: BatcherConfig
    arrivals: Arrivals
    start: list[float]  # when its batch started; -1: never ran
    done: list[float]  # when its response was sent (preserve_ordering: released)
    status: list[int]
    batches: list[int]  # rows of each batch executed, in order
    busy: list[float]  # per instance, of the first `len(arrivals)` at most (the others idle)


def simulate(
    config: BatcherConfig, curve: ServiceCurve, arrivals: Arrivals, seed: int = 0
) -> Outcome:
    """Serve `arrivals` under `config` with service times drawn from `curve`."""
    return _Run(config, curve, arrivals, random.Random(seed)).run()


class _Run(BatchForming):
    def __init__(
        self, config: BatcherConfig, curve: ServiceCurve, arrivals: Arrivals, rng: random.Random
    ) -> None:
        n = len(arrivals)
        self.config = config
        self.arrivals = arrivals
        self.sizes = arrivals.sizes
        # a batch holds at most every row sent: the tables stop there (a max_batch_size of
        # millions would otherwise be tables of millions), the same draws
        rows = sum(arrivals.sizes) if arrivals.sizes else n
        largest = min(config.batch_limit, rows) + max(arrivals.sizes or [1])
        self.sample = curve.sampler(largest, rng)
        self.start = [-1.0] * n
        self.done = [-1.0] * n
        self.status = [OK] * n
        self.deadline = [0.0] * n
        self.batches: list[int] = []
        # at most one instance per request is ever busy: the others are not simulated (a
        # config's count of millions would otherwise be a list of millions), the same outcome
        lanes = min(config.instances, max(n, 1))
        self.busy = [0.0] * lanes
        self.idle = deque(range(lanes))
        self.waiting: deque[Payload] = deque()  # the rate limiter's payload queue
        self.heap: list[tuple[float, int, int]] = []  # (free at, sequence, instance)
        self.order: list[int] | None = [] if config.preserve_ordering else None
        levels = (
            list(range(1, config.priority_levels + 1))
            if config.priority_levels
            else [config.default_priority_level]
        )
        self.queues = [Level(config, level) for level in levels]
        self.level_index = {level: index for index, level in enumerate(levels)}
        self.default_queue = self.queues[self.level_index[config.level_of(0)]]
        self.timed = any(q.timeout or q.override for q in self.queues)
        self.queued = 0
        self.queued_rows = 0  # core's queued_batch_size_
        self.next_preferred = 0  # core's next_preferred_batch_size_: what an arrival wakes it for
        self.payload = Payload()
        self.saturated = False
        self.timer = INF
        self.blocked_since: float | None = None
        self.take = 0
        self.preferred = config.preferred_sizes
        self.pmax = max(self.preferred, default=0)
        self.limit = config.batch_limit
        self.slots = 2 * config.instances if config.prefetching else 0
        # where the last walk that ended in a wait stopped: with one level and no timeouts only
        # arrivals change the queue until the next hand-over, so the next walk goes on from there
        self.resumable = len(self.queues) == 1 and not self.timed
        self.cursor: tuple[Payload, int, int, int, int, float] | None = None
        # one row per request as well: the walk is arithmetic (`_form_rows`)
        self.unit_walk = self.resumable and arrivals.sizes is None and self.pmax > 0
        self.descending = sorted(self.preferred, reverse=True)
        self.merging = config.dynamic and config.delay_us > 0 and config.max_batch_size > 1
        self.turnaround = [curve.turnaround(b) for b in range(largest + 1)]

    def run(self) -> Outcome:
        times = self.arrivals.times
        n = len(times)
        heap = self.heap
        enqueue = self._enqueue if self.config.dynamic else self._unbatched
        batch = self._batch if self.config.dynamic else None
        i = 0
        while True:
            arrival = times[i] if i < n else INF
            free = heap[0][0] if heap else INF
            timer = self.timer
            if free <= arrival and free <= timer:
                if free == INF:
                    break
                now = free
                self.idle.append(heappop(heap)[2])
                self._dispatch(now)
            elif arrival <= timer:
                now = arrival
                queued = enqueue(i, now)
                i += 1
                if not (queued and self._wakes()):
                    continue
            else:
                now = timer
                self.timer = INF
                self._sweep(now)
            if batch is not None:
                batch(now)
        return Outcome(
            self.config,
            self.arrivals,
            self.start,
            self._released(),
            self.status,
            self.batches,
            self.busy,
        )

    def _unbatched(self, request: int, now: float) -> bool:
        payload = Payload()
        payload.requests.append(request)
        payload.rows = self.sizes[request] if self.sizes else 1
        self.waiting.append(payload)
        if self.order is not None:
            self.order.append(request)
        self._dispatch(now)
        return False

    def _enqueue(self, request: int, now: float) -> bool:
        priorities = self.arrivals.priorities
        if priorities:
            queue = self.queues[self.level_index[self.config.level_of(priorities[request])]]
        else:
            queue = self.default_queue
        if queue.capacity and len(queue.items) + len(queue.delayed) >= queue.capacity:
            self.status[request] = QUEUE_FULL
            self.done[request] = now
            return False
        timeout = queue.timeout
        own = self.arrivals.timeouts[request] if self.arrivals.timeouts else 0
        if queue.override and own and own < timeout:  # never longer; ignored with no default
            timeout = own
        if timeout:
            self.deadline[request] = now + timeout
        queue.items.append(request)
        self.queued += 1
        self.queued_rows += self.sizes[request] if self.sizes else 1
        return True

    def _wakes(self) -> bool:
        """`Enqueue`: whether an arrival wakes the batcher."""
        if not (len(self.waiting) < self.slots if self.slots else self.idle):
            return False
        if self.saturated or self.payload.state == EXECUTING:
            return True
        return self.queued_rows >= self.next_preferred

    def _dispatch(self, now: float) -> None:
        """Idle instances take the waiting payloads, in order."""
        waiting, idle = self.waiting, self.idle
        while waiting and idle:
            payload = waiting.popleft()
            payload.state = EXECUTING
            if waiting and self.merging:
                self._merge(payload, now)
            instance = idle.popleft()
            rows = payload.rows
            end = now + self.sample(rows)
            start, done = self.start, self.done
            for request in payload.requests:
                start[request] = now
                done[request] = end
            free = end + self.turnaround[rows]
            self.busy[instance] += free - now
            self.batches.append(rows)
            heappush(self.heap, (free, len(self.batches), instance))

    def _merge(self, payload: Payload, now: float) -> None:
        """`InstanceQueue::Dequeue`: the payloads behind the one taken that have waited past
        the delay stop growing, and join it while the two fit within max_batch_size."""
        waiting, times = self.waiting, self.arrivals.times
        while waiting:
            front = waiting[0]
            if now - min(times[r] for r in front.requests) <= self.config.delay_us:
                return
            front.state = EXECUTING  # set before the size check: a payload too big stops too
            if payload.rows + front.rows > self.config.max_batch_size:
                return
            waiting.popleft()
            payload.requests.extend(front.requests)
            payload.rows += front.rows

    def _batch(self, now: float) -> None:
        """`BatcherThread`: form and hand over batches until it would wait."""
        while True:
            if self.saturated or self.payload.state == EXECUTING:
                self.payload = Payload()
                self.saturated = False
                self.next_preferred = 0
            if not self.queued:
                self.timer = INF
                self.blocked_since = None
                return
            if not (len(self.waiting) < self.slots if self.slots else self.idle):
                self._blocked(now)
                return
            self.blocked_since = None
            wait = self._form(now)
            if wait:
                self.timer = now + wait
                return
            if self.take:
                self._hand_over(now)
            elif not self.saturated:
                self.timer = INF  # every request it walked had expired
                return

    def _hand_over(self, now: float) -> None:
        self.cursor = None
        payload = self.payload
        moved = payload.requests
        before = len(moved)
        left = self.take
        for queue in self.queues:
            for source in (queue.items, queue.delayed):
                taken = min(left, len(source))
                if taken:
                    pop = source.popleft
                    moved.extend([pop() for _ in range(taken)])
                    left -= taken
        added = moved[before:]
        rows = sum(self.sizes[r] for r in added) if self.sizes else len(added)
        payload.rows += rows
        self.queued -= len(added)
        self.queued_rows -= rows
        if self.order is not None:
            self.order.extend(added)
        if payload.state == NEW:
            payload.state = WAITING
            self.waiting.append(payload)
            self._dispatch(now)

    def _blocked(self, now: float) -> None:
        """No slot: wait for an instance; with timeouts, reject the expired every 500 ms."""
        if self.blocked_since is None:
            self.blocked_since = now
        if self.timed:
            ticks = int((now - self.blocked_since) // SWEEP_US) + 1
            self.timer = self.blocked_since + ticks * SWEEP_US
        else:
            self.timer = INF

    def _sweep(self, now: float) -> None:
        if self.blocked_since is None:
            return
        for queue in self.queues:
            if queue.action == DELAY:
                continue
            kept = deque(r for r in queue.items if not self._expire(r, now))
            queue.items = kept

    def _expire(self, request: int, now: float) -> bool:
        deadline = self.deadline[request]
        if deadline and now > deadline:
            self.status[request] = TIMED_OUT
            self.done[request] = now
            self.queued -= 1
            self.queued_rows -= self.sizes[request] if self.sizes else 1
            return True
        return False

    def _released(self) -> list[float]:
        """With preserve_ordering a response waits for every response before it."""
        if self.order is None:
            return self.done
        released = list(self.done)
        latest = 0.0
        for request in self.order:
            latest = max(latest, self.done[request])
            released[request] = latest
        return released
