"""Children that never outlive the command: each in its own process group, sent the signal that
stops the command, and reaped on every path.

A child leads its own process group (tritonserver is started in a new session; probe's worker
calls `os.setpgid(0, 0)` first thing), so a terminal's Ctrl-C reaches the command alone and the
command decides how its children stop. While `stop_on_signals` is active (in the main thread), a
SIGTERM, SIGHUP or SIGINT the command receives is forwarded to the process group of every child
registered with `supervised`, children started afterwards are stopped as soon as they are
registered, and the main thread gets `Terminated` (KeyboardInterrupt for SIGINT), so that every
`finally` runs and reaps what it started. Without this, a `probe` sent SIGTERM exited and left
its runtime worker running, reparented to PID 1.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType

FORWARDED: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

_children: set[int] = set()  # the pids registered with `supervised`
_received: list[int] = []  # the signals received while `stop_on_signals` is active


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread so every `finally` runs (children stop)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def death(exitcode: int | None) -> str:
    """How a child ended, from its exit code (negative: the signal that killed it)."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"killed by {name}"
    return f"exited with status {exitcode}"


def signal_group(pgid: int, sig: int) -> None:
    """Send `sig` to the process group `pgid`, if any of it is left."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def forward(pid: int, sig: int) -> None:
    """Send `sig` to `pid`'s process group where `pid` leads one, else to `pid` alone (a child
    that has not made its group yet is still in ours)."""
    with suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


def exited(pid: int) -> bool:
    """Whether the child has exited, without reaping it (WNOWAIT)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def stopping() -> int | None:
    """The signal that is stopping the command, if one was received."""
    return _received[0] if _received else None


def _stop(signum: int) -> KeyboardInterrupt:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


@contextmanager
def supervised(pid: int) -> Iterator[None]:
    """While in the block, `pid` is sent the signal that stops the command; registered after
    that signal came, it is sent it at once and the caller stopped (`Terminated`)."""
    _children.add(pid)
    try:
        received = stopping()
        if received is not None:
            forward(pid, received)
            raise _stop(received)
        yield
    finally:
        _children.discard(pid)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """For the duration: SIGTERM, SIGHUP and SIGINT are forwarded to the supervised children and
    raised in the main thread as `Terminated` (KeyboardInterrupt for SIGINT). Outside the main
    thread, signals are left alone, and so is a signal the command was started ignoring (`nohup`
    ignores SIGHUP; a shell's background job, SIGINT)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        _received.append(signum)
        for pid in list(_children):
            forward(pid, signum)
        raise _stop(signum)

    previous: dict[int, object] = {}
    try:
        for sig in FORWARDED:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)  # type: ignore[arg-type]
        if previous:
            _received.clear()
