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
- `GetDynamicBatch`: the walk and the decision, mirrored in `_form` below.
- Expired requests leave the queue when the walk reaches them (`PolicyQueue::ApplyPolicy`):
  REJECT fails them, DELAY moves them behind the unexpired requests of their level; while the
  batcher waits for a slot it also rejects every expired request every 500 ms
  (`WaitForPayloadSlotAvailable`, `RejectTimeoutRequests`).
- An instance takes the payloads in order as it frees up (`rate_limiter.cc: DequeuePayload`);
  the payloads a freed instance would merge (`instance_queue.cc: InstanceQueue::Dequeue`, delay
  set, payloads older than it) are not merged here.
- `preserve_ordering`: responses leave in the order requests were put in batches
  (`DelegateResponse`).

The batcher takes no time, and is run after every event: core wakes it on fewer events (an
arrival wakes it only once the queue can fill the next preferred size), but a walk those
arrivals do not wake it for would find nothing new to send.
"""

from __future__ import annotations

import random
from collections import deque
from heapq import heappop, heappush

from tritoncfg.record import record
from tritoncfg.tune.arrivals import Arrivals
from tritoncfg.tune.batcher import DELAY, BatcherConfig
from tritoncfg.tune.service import ServiceCurve

OK, QUEUE_FULL, TIMED_OUT = 0, 1, 2  # a request's status
INF = float("inf")
SWEEP_US = 500_000.0  # the batcher's wait for a slot between rejections of expired requests
NEW, WAITING, EXECUTING = 0, 1, 2  # a payload's state


@record
class Outcome:
    """Each request's fate (times in µs) and each instance's busy time."""

    config: BatcherConfig
    arrivals: Arrivals
    start: list[float]  # when its batch started; -1: never ran
    done: list[float]  # when its response was sent (preserve_ordering: released)
    status: list[int]
    batches: list[int]  # rows of each batch executed, in order
    busy: list[float]  # per instance


class _Queue:
    """One priority level: unexpired requests, then the expired ones its DELAY policy kept."""

    __slots__ = ("action", "capacity", "delayed", "items", "override", "timeout")

    def __init__(self, config: BatcherConfig, level: int) -> None:
        policy = config.policy_of(level)
        self.items: deque[int] = deque()
        self.delayed: deque[int] = deque()
        self.timeout = float(policy.default_timeout_us)
        self.override = policy.allow_timeout_override
        self.capacity = policy.max_queue_size
        self.action = policy.timeout_action


class _Payload:
    __slots__ = ("requests", "rows", "state")

    def __init__(self) -> None:
        self.requests: list[int] = []
        self.rows = 0
        self.state = NEW


def simulate(
    config: BatcherConfig, curve: ServiceCurve, arrivals: Arrivals, seed: int = 0
) -> Outcome:
    """Serve `arrivals` under `config` with service times drawn from `curve`."""
    return _Run(config, curve, arrivals, random.Random(seed)).run()


class _Run:
    def __init__(
        self, config: BatcherConfig, curve: ServiceCurve, arrivals: Arrivals, rng: random.Random
    ) -> None:
        n = len(arrivals)
        self.config = config
        self.arrivals = arrivals
        self.sizes = arrivals.sizes
        self.sample = curve.sampler(config.batch_limit + max(arrivals.sizes or [1]), rng)
        self.start = [-1.0] * n
        self.done = [-1.0] * n
        self.status = [OK] * n
        self.deadline = [0.0] * n
        self.batches: list[int] = []
        self.busy = [0.0] * config.instances
        self.idle = deque(range(config.instances))
        self.waiting: deque[_Payload] = deque()  # the rate limiter's payload queue
        self.heap: list[tuple[float, int, int]] = []  # (free at, sequence, instance)
        self.order: list[int] | None = [] if config.preserve_ordering else None
        levels = (
            list(range(1, config.priority_levels + 1))
            if config.priority_levels
            else [config.default_priority_level]
        )
        self.queues = [_Queue(config, level) for level in levels]
        self.level_index = {level: index for index, level in enumerate(levels)}
        self.default_queue = self.queues[self.level_index[config.level_of(0)]]
        self.timed = any(q.timeout or q.override for q in self.queues)
        self.queued = 0
        self.payload = _Payload()
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
        self.cursor: tuple[_Payload, int, int, int, int, float] | None = None
        # one row per request as well: the walk is arithmetic (`_form_rows`)
        self.unit_walk = self.resumable and arrivals.sizes is None and self.pmax > 0
        self.descending = sorted(self.preferred, reverse=True)

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
                enqueue(i, now)
                i += 1
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

    def _unbatched(self, request: int, now: float) -> None:
        payload = _Payload()
        payload.requests.append(request)
        payload.rows = self.sizes[request] if self.sizes else 1
        self.waiting.append(payload)
        if self.order is not None:
            self.order.append(request)
        self._dispatch(now)

    def _enqueue(self, request: int, now: float) -> None:
        priorities = self.arrivals.priorities
        if priorities:
            queue = self.queues[self.level_index[self.config.level_of(priorities[request])]]
        else:
            queue = self.default_queue
        if queue.capacity and len(queue.items) + len(queue.delayed) >= queue.capacity:
            self.status[request] = QUEUE_FULL
            self.done[request] = now
            return
        timeout = queue.timeout
        own = self.arrivals.timeouts[request] if self.arrivals.timeouts else 0
        if queue.override and own and own < timeout:  # never longer; ignored with no default
            timeout = own
        if timeout:
            self.deadline[request] = now + timeout
        queue.items.append(request)
        self.queued += 1

    def _dispatch(self, now: float) -> None:
        """Idle instances take the waiting payloads, in order."""
        waiting, idle = self.waiting, self.idle
        while waiting and idle:
            payload = waiting.popleft()
            payload.state = EXECUTING
            instance = idle.popleft()
            rows = payload.rows
            end = now + self.sample(rows)
            start, done = self.start, self.done
            for request in payload.requests:
                start[request] = now
                done[request] = end
            self.busy[instance] += end - now
            self.batches.append(rows)
            heappush(self.heap, (end, len(self.batches), instance))

    def _batch(self, now: float) -> None:
        """`BatcherThread`: form and hand over batches until it would wait."""
        while True:
            if self.saturated or self.payload.state == EXECUTING:
                self.payload = _Payload()
                self.saturated = False
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
        payload.rows += sum(self.sizes[r] for r in added) if self.sizes else len(added)
        self.queued -= len(added)
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
            return True
        return False

    def _form(self, now: float) -> float:
        """`GetDynamicBatch`: walk the queue onto the current payload; `self.take` is how many
        requests to hand over now, the result how long to wait (µs) before walking again."""
        if self.unit_walk:
            return self._form_rows(now)
        base = self.payload.rows
        preferred, pmax, limit = self.preferred, self.pmax, self.limit
        sizes, deadline, times = self.sizes, self.deadline, self.arrivals.times
        pending = count = best = mark = start = 0
        oldest = INF
        closest = 0.0
        send_now = False
        cursor = self.cursor
        if cursor is not None and cursor[0] is self.payload and cursor[1] == base:
            _, _, start, pending, count, oldest = cursor
        for queue in self.queues:
            items, delayed = queue.items, queue.delayed
            index = start
            while True:
                if index < len(items):
                    request = items[index]
                    expires = deadline[request]
                    if expires and now > expires:  # ApplyPolicy at the cursor
                        del items[index]
                        if queue.action == DELAY:
                            delayed.append(request)
                            deadline[request] = 0.0
                        else:
                            self._expire(request, now)
                        continue
                elif index - len(items) < len(delayed):
                    request = delayed[index - len(items)]
                    expires = 0.0
                else:
                    break
                rows = sizes[request] if sizes else 1
                if base + count:
                    total = base + pending + rows
                    if total > pmax and best == 0:  # fallback cut above the largest preferred
                        best, mark = pending, count
                        self.saturated = True
                    if total > limit:
                        send_now = True
                        break
                pending += rows
                count += 1
                index += 1
                if times[request] < oldest:
                    oldest = times[request]
                if expires and (not closest or expires < closest):
                    closest = expires
                if base + pending in preferred:
                    best, mark = pending, count
            if send_now:
                break
        wait = self._decide(now, base, pending, count, best, mark, oldest, closest, send_now)
        if wait and self.resumable:
            self.cursor = (self.payload, base, count, pending, count, oldest)
        return wait

    def _form_rows(self, now: float) -> float:
        """`_form` when every request is one row, in one queue without timeouts: the walk takes
        the first `limit - base` requests (then the next would pass max_batch_size); the cut is
        the largest preferred size it passes; its fallback (a walk starting above the largest
        preferred size) is empty and saturates the payload."""
        base = self.payload.rows
        items = self.queues[0].items
        queued = len(items)
        count = min(queued, self.limit - base)
        best = 0
        for size in self.descending:
            if base < size <= base + count:
                best = size - base
                break
        if base and base >= self.pmax and queued:
            self.saturated = True
        oldest = self.arrivals.times[items[0]] if count else INF
        send_now = queued > count
        return self._decide(now, base, count, count, best, best, oldest, 0.0, send_now)

    def _decide(
        self,
        now: float,
        base: int,
        pending: int,
        count: int,
        best: int,
        mark: int,
        oldest: float,
        closest: float,
        send_now: bool,
    ) -> float:
        delay = self.config.delay_us
        exceeded = delay != 0 and now - oldest >= delay
        if best and not exceeded:  # a preferred size (or the fallback cut), in time: send it
            if delay == 0:
                self.saturated = True
            self.take = mark
            return 0.0
        self.take = count
        if count == 0:
            return 0.0
        if send_now or base + pending >= self.pmax:  # it cannot grow: send what was walked
            self.saturated = True
            return 0.0
        if exceeded or delay == 0:
            return 0.0
        if not self.saturated and base and base not in self.preferred:
            return 0.0  # grow the payload already handed over rather than wait
        self.take = 0
        wait = delay - (now - oldest)
        if closest:
            wait = min(closest - now, wait) if now <= closest else 1.0
        return max(wait, 1e-3)

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
