"""Every runner runs in a child process (multiprocessing, spawn), so a runtime that segfaults,
aborts or hangs becomes a FAIL row of its model, never a crash of probe.

The worker sends each event of `execute` through a pipe as it happens; the parent keeps the
index of the point that started last. When the child dies (a signal, an exit without "done") or
runs past `--timeout`, that point FAILs with what happened and the points after it are SKIP.

The child leads its own process group and is supervised (processes/supervise.py): a SIGTERM,
SIGHUP or SIGINT that stops probe is forwarded to that group, and the child is reaped on every
path, never left running after probe.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from tritoncfg.probe.contract import PointResult, ProbeSettings
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.results import NOT_RUN, UNTIMED, ModelResult, new_result, work
from tritoncfg.processes.supervise import death, forward, stopping, supervised

# Test-only hook: a worker whose point label contains this text calls os.abort() before running
# it (a real SIGABRT, as a runtime that asserts would give). Unset in normal use.
CRASH_HOOK = "TRITONCFG_PROBE_TEST_ABORT_AT"


def probe_model(plan: ModelPlan, settings: ProbeSettings, timeout: float | None) -> ModelResult:
    """The model's result; its points run in a child process when there are any."""
    result = new_result(plan)
    if not result.pending or stopping() is not None:
        return result  # (probe is stopping: its caller is raising)
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_worker, args=(plan, settings, sender), daemon=True)
    try:
        _start_ignoring_sigint(child)
        sender.close()
        assert child.pid is not None  # started
        with supervised(child.pid):
            _collect(result, receiver, child, timeout)
    finally:
        receiver.close()
        if child.pid is not None:
            if child.is_alive():
                forward(child.pid, signal.SIGKILL)  # its whole group
            child.join(5)
    return result


def _start_ignoring_sigint(child: Any) -> None:
    """Start the child with SIGINT ignored. Until `_worker` leads its own process group the child
    shares probe's, where a terminal's Ctrl-C goes, and a Python interpreter catches SIGINT from
    its start: KeyboardInterrupt, a traceback on probe's terminal, while it unpickles its work.
    An ignored SIGINT stays ignored across exec, and Python then installs no handler for it (the
    spawn launcher resets the signal mask, so blocking it is not enough). Probe keeps it blocked
    meanwhile: a Ctrl-C in that moment stays pending (Linux never discards a blocked signal as
    ignored) and reaches its own handler once that is back. Only the main thread may change a
    handler: with --jobs above 1 the models' threads start their children as they are."""
    if threading.current_thread() is not threading.main_thread():
        child.start()
        return
    masked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            child.start()
        finally:
            signal.signal(signal.SIGINT, handler)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, masked)


def _collect(
    result: ModelResult,
    receiver: Connection,
    child: Any,
    timeout: float | None,
) -> None:
    deadline = None if timeout is None else time.monotonic() + timeout
    running: int | None = None
    while True:
        wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        if not receiver.poll(wait):
            _stop(result, running, f"timed out: the model ran past --timeout {timeout:g} s")
            return
        try:
            kind, payload = receiver.recv()
        except (EOFError, OSError):
            child.join(5)
            _stop(result, running, _death(child.exitcode))
            return
        if kind == "done":
            return
        running = _apply(result, kind, payload, running)


def _apply(result: ModelResult, kind: str, payload: Any, running: int | None) -> int | None:
    if kind == "start":
        return int(payload)
    if kind == "point":
        index, point_result = payload
        result.points[result.pending[index]] = point_result
        return None
    if kind == "unavailable":
        result.unavailable = True
        model, why = payload
        result.reason = f"cannot run here: {why}" if model == result.model else f"{model}: {why}"
    elif kind == "runtime":
        model, facts = payload
        if result.runner == "ensemble":  # one runner per step
            result.runtime[model] = dict(facts)
        else:
            result.runtime = dict(facts)
    elif kind == "error":
        _stop(result, running, f"probe's worker failed: {payload}")
    return running


def _stop(result: ModelResult, running: int | None, reason: str) -> None:
    """The point that was running FAILs with `reason` (between points, while the worker starts
    or loads the model: the next one to run), so the summary counts it; the ones not run yet are
    SKIP."""
    if running is None:
        running = next(
            (o for o, s in enumerate(result.pending) if result.points[s].reason == NOT_RUN), None
        )
    for order, slot in enumerate(result.pending):
        current = result.points[slot]
        if order == running:
            result.points[slot] = PointResult(current.point, "FAIL", reason)
        elif current.reason == NOT_RUN:
            where = "" if running is None else f" ({reason.split(':')[0]} at an earlier point)"
            result.points[slot] = PointResult(current.point, "SKIP", f"not run{where}")
        elif current.reason == UNTIMED:  # ran and checked out, its windows cut short
            where = "" if running is None else f" ({reason.split(':')[0]} at another point)"
            current.reason = f"outputs checked; not timed{where}"
    if running is None:
        result.model_status, result.reason = "FAIL", reason


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"the runtime crashed: its process was {death(exitcode)}"
    return f"the runtime's process exited unexpectedly (exit status {exitcode})"


def _worker(plan: ModelPlan, settings: ProbeSettings, sender: Connection) -> None:
    """The child: run the plan, sending every event; a Python error is sent, not raised. It
    leads its own process group, and a SIGINT (forwarded by probe) ends it quietly."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # ignored until now (_start_ignoring_sigint)
    crash_at = os.environ.get(CRASH_HOOK)
    items = work(plan)

    def emit(kind: str, payload: Any) -> None:
        if kind == "start" and crash_at and crash_at in items[payload][1].label:
            sender.send((kind, payload))
            os.abort()
        sender.send((kind, payload))

    try:
        from tritoncfg.probe.execute import execute

        execute(plan, settings, emit)
    except Exception as exc:  # a bug in probe itself: reported on the row, never a traceback
        sender.send(("error", f"{type(exc).__name__}: {exc}"))
    sender.send(("done", None))
    sender.close()


__all__ = ["CRASH_HOOK", "probe_model"]
