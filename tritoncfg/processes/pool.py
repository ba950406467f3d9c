"""Chunks of work over forked worker processes, finished even when a worker is killed.

`multiprocessing.Pool` loses the task of a worker killed by a signal (an OOM kill in CI) and
waits for it forever. Here each worker has its own pipe, and the parent waits on the pipes and on
the workers' process sentinels together, so it sees a death at once; each worker marks the item
it starts in shared memory (`working_on`), so the parent knows which item it held. That item is
run once more, alone, in a fresh worker (the kill may have been another process's fault); if that
worker dies too, the item is given up (`Lost`). The other items of the chunk are run again, and
every other chunk is unaffected.

Workers ignore SIGINT: a Ctrl-C, which the terminal sends to the whole process group, stops the
parent alone, which stops its workers (no `Process ForkPoolWorker-N:` tracebacks). A SIGTERM or
SIGHUP to the parent (a CI job's timeout) stops it the same way (`supervise.Terminated`), so no
worker is left linting after it.
"""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tritoncfg.processes.supervise import death, stop_on_signals

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

# multiprocessing is imported when a pool starts: `lint` of one file never needs it

T = TypeVar("T")
Work = Callable[[tuple[int, int]], list[T]]
STOP_SECONDS = 5.0  # a worker told to stop that has not exited by then is killed

# in a worker: the shared array of the items the workers are on, and its own slot there
_PROGRESS: Any = None
_SLOT = 0


class Lost:
    """An item whose worker died twice: how the second died."""

    def __init__(self, index: int, how: str) -> None:
        self.index = index
        self.how = how


class WorkerError(Exception):
    """The work raised in a worker (a bug): the worker's traceback, as `Pool.map` re-raises."""


def working_on(index: int) -> None:
    """In a worker: the item about to be worked on (the one lost if this worker dies)."""
    if _PROGRESS is not None:
        _PROGRESS[_SLOT] = index


def run_chunks(
    count: int, work: Work[T], chunks: Sequence[tuple[int, int]], start: Callable[[], None]
) -> tuple[list[T | None], list[Lost]]:
    """`work` over each chunk (`[first, end)` of the items) by `count` forked processes, each of
    which runs `start` first; the results item by item (None for a lost one), and the lost."""
    size = chunks[-1][1] if chunks else 0
    results: list[T | None] = [None] * size
    crew = _Crew(count, work, start)
    try:
        with stop_on_signals():
            lost = crew.run(deque((first, end, False) for first, end in chunks), results)
    except BaseException:  # a signal, a worker's error: the workers' work is of no use now
        crew.stop(wait=0)
        raise
    crew.stop(wait=STOP_SECONDS)
    return results, lost


class _Worker:
    def __init__(self, process: Any, pipe: Connection) -> None:
        self.process = process
        self.pipe = pipe
        self.task: tuple[int, int, bool] | None = None  # first, end, whether a second try


class _Crew(Generic[T]):
    """The workers, one per slot of the progress array, each replaced when it dies."""

    def __init__(self, count: int, work: Work[T], start: Callable[[], None]) -> None:
        import mmap
        import multiprocessing

        self.context = multiprocessing.get_context("fork")
        # the item each worker is on: anonymous memory the forked workers share (a RawArray
        # imports ctypes and multiprocessing's heap, 3 ms of the parent's serial part)
        self.progress = memoryview(mmap.mmap(-1, 8 * count)).cast("q")
        self.work = work
        self.start = start
        self.workers: list[_Worker] = []
        for slot in range(count):
            self.workers.append(self._fork(slot))

    def _fork(self, slot: int) -> _Worker:
        mine, theirs = self.context.Pipe()
        others = [worker.pipe for worker in self.workers]  # the worker closes its copies
        process = self.context.Process(
            target=_serve,
            args=(theirs, others, self.progress, slot, self.work, self.start),
            daemon=True,
        )
        # SIGINT blocked while forking: the worker ignores it before it can be delivered there
        masked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, masked)
        theirs.close()
        return _Worker(process, mine)

    def run(self, todo: deque[tuple[int, int, bool]], results: list[T | None]) -> list[Lost]:
        """The chunks of `todo` run; `results` filled in. Every answer that is ready is read
        (and its worker given its next chunk) before any is unpickled: the parent is the one
        serial part of a pool, and a worker should neither idle nor block on a full pipe while
        the parent unpickles another's answer."""
        from multiprocessing.connection import wait

        lost: list[Lost] = []
        while True:
            for slot, worker in enumerate(self.workers):
                if worker.task is None and todo:
                    self._give(slot, todo.popleft())
            busy = [w for w in self.workers if w.task is not None]
            if not busy:
                return lost
            ready = set(wait([o for w in busy for o in (w.pipe, w.process.sentinel)]))
            answers: list[tuple[tuple[int, int, bool], bytes]] = []
            for slot, worker in enumerate(self.workers):
                if worker.task is None or not ready & {worker.pipe, worker.process.sentinel}:
                    continue
                answer = self._receive(worker)
                if answer is None:
                    lost += self._replace(slot, todo)
                    continue
                answers.append((worker.task, answer))
                worker.task = None
                if todo:
                    self._give(slot, todo.popleft())
            for task, answer in answers:
                _accept(task, answer, results)

    def _give(self, slot: int, task: tuple[int, int, bool]) -> None:
        worker = self.workers[slot]
        if not worker.process.is_alive():  # died idle, after sending its last results
            worker = self.workers[slot] = self._fork(slot)
        self.progress[slot] = task[0]
        worker.task = task
        with suppress(OSError):  # a worker dead since: seen by its sentinel
            worker.pipe.send(task[:2])

    @staticmethod
    def _receive(worker: _Worker) -> bytes | None:
        """The worker's answer, unread; None when it died instead."""
        try:
            if not worker.pipe.poll():
                return None  # its sentinel, and nothing sent
            return worker.pipe.recv_bytes()
        except (EOFError, OSError):
            return None

    def _replace(self, slot: int, todo: deque[tuple[int, int, bool]]) -> list[Lost]:
        """A worker died: its chunk's other items run again, the item it held once more alone
        (first), or, on a second try, that item is lost."""
        worker = self.workers[slot]
        assert worker.task is not None
        first, end, again = worker.task
        worker.process.join()
        held = self.progress[slot]
        how = death(worker.process.exitcode)
        worker.pipe.close()
        self.workers[slot] = self._fork(slot)
        todo.extend(
            part for part in ((first, held, False), (held + 1, end, False)) if part[0] < part[1]
        )
        if again:
            return [Lost(held, how)]
        todo.appendleft((held, held + 1, True))
        return []

    def stop(self, wait: float) -> None:
        """Tell the workers to exit, give them `wait` seconds, kill the others; reap them all.
        (Closing a pipe is not enough: the workers forked later hold its other end too.)"""
        for worker in self.workers:
            with suppress(OSError):
                worker.pipe.send(None)
            worker.pipe.close()
        for worker in self.workers:
            worker.process.join(wait)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()


def _accept(task: tuple[int, int, bool], answer: bytes, results: list[Any]) -> None:
    """A worker's answer to `task`, unpickled into `results` (its traceback raised)."""
    from multiprocessing.reduction import ForkingPickler

    first, end, _ = task
    ok, value = ForkingPickler.loads(answer)
    if not ok:
        raise WorkerError(value)
    if len(value) != end - first:
        raise WorkerError(f"{len(value)} results for the {end - first} items {first}-{end}")
    results[first:end] = value


def _serve(
    pipe: Connection,
    others: list[Connection],
    progress: Any,
    slot: int,
    work: Work[Any],
    start: Callable[[], None],
) -> None:
    """A worker: chunks from its pipe until told to stop or the pipe closes, each answered with
    its results (or the work's traceback). It closes its copies of the other workers' pipes
    (they would keep those open after the parent is gone), and a SIGTERM or SIGHUP ends it
    quietly (the parent's handlers are not its own)."""
    global _PROGRESS, _SLOT
    for other in others:
        other.close()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if callable(signal.getsignal(sig)):  # the parent's handler; an ignored signal stays so
            signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _PROGRESS, _SLOT = progress, slot
    start()
    while True:
        try:
            task = pipe.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            answer: tuple[bool, Any] = (True, work(task))
        except Exception:
            import traceback

            answer = (False, traceback.format_exc())
        try:
            pipe.send(answer)
        except OSError:
            return  # the parent is gone
