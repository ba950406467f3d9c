"""How the batcher forms a batch: Triton core's `dynamic_batch_scheduler.cc: GetDynamicBatch`.

The walk goes through the queue in order (priority level, then arrival, each level's delayed
requests last), applying the queue policy at each request it reaches (`ApplyPolicyAtCursor`),
and stops before a request that would pass max_batch_size. On the way it marks a cut at every
preferred size the running total equals (so the largest reached wins), and, if none was reached
before the next request would pass the largest preferred size, a fallback cut there, which
saturates the payload. The decision after it is `_decide`, in the order core makes it.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from tritoncfg.tune.batcher import DELAY, BatcherConfig

if TYPE_CHECKING:
    from tritoncfg.tune.arrivals import Arrivals

INF = float("inf")
NEW, WAITING, EXECUTING = 0, 1, 2  # a payload's state


class Level:
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


class Payload:
    """A batch handed to the instances (the rate limiter's payload): it may grow while WAITING."""

    __slots__ = ("requests", "rows", "state")

    def __init__(self) -> None:
        self.requests: list[int] = []
        self.rows = 0
        self.state = NEW


class BatchForming:
    """The walk and the decision, on the state of the simulation that runs them (engine.py)."""

    config: BatcherConfig
    arrivals: Arrivals
    sizes: list[int] | None
    deadline: list[float]
    queues: list[Level]
    payload: Payload
    saturated: bool
    take: int
    preferred: frozenset[int]
    descending: list[int]
    pmax: int
    limit: int
    resumable: bool
    unit_walk: bool
    cursor: tuple[Payload, int, int, int, int, float] | None
    next_preferred: int

    def _expire(self, request: int, now: float) -> bool:
        raise NotImplementedError

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
        # what an arrival wakes the batcher for from here: the next preferred size (above what
        # was walked, which is below the largest), counted from the payload's rows
        self.next_preferred = min(p for p in self.descending if p > base + pending) - base
        if not self.saturated and base and base not in self.preferred:
            return 0.0  # grow the payload already handed over rather than wait
        self.take = 0
        wait = delay - (now - oldest)
        if closest:
            wait = min(closest - now, wait) if now <= closest else 1.0
        return max(wait, 1e-3)
