"""Supervision: a signal the command receives reaches each supervised child's process group
(grandchildren included), a child registered after it is stopped at once, and the caller gets
the exception that unwinds to its `finally`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from prockit import group

from tritoncfg.processes.supervise import (
    Terminated,
    death,
    exited,
    stop_on_signals,
    stopping,
    supervised,
)

# a child leading its own group, with a grandchild in it; both sleep for an hour
FAMILY = "import subprocess, time; subprocess.Popen(['sleep', '3600']); time.sleep(3600)"


@pytest.fixture
def family() -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    """Starts families; whatever is left of them is killed at the end, test passed or not."""
    started: list[int] = []

    def start() -> subprocess.Popen[bytes]:
        child = subprocess.Popen([sys.executable, "-c", FAMILY], process_group=0)
        started.append(child.pid)
        deadline = time.monotonic() + 30
        while len(group(child.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(group(child.pid)) == 2  # the child and its grandchild
        return child

    yield start
    for pgid in started:
        if group(pgid):
            os.killpg(pgid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_is_forwarded_to_the_child_s_wholegroup(
    sig: signal.Signals, family: Callable[[], subprocess.Popen[bytes]]
) -> None:
    child = family()
    raised: BaseException | None = None
    try:
        with stop_on_signals(), supervised(child.pid):
            os.kill(os.getpid(), sig)  # as `kill` would; the handler raises at once
            time.sleep(30)
    except KeyboardInterrupt as stop:
        raised = stop
    finally:
        child.wait(30)

    expected = KeyboardInterrupt if sig == signal.SIGINT else Terminated
    assert type(raised) is expected and child.returncode == -sig
    deadline = time.monotonic() + 10
    while group(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert group(child.pid) == []  # the grandchild too
    assert stopping() is None  # cleared with the handlers


def test_a_child_registered_after_the_signal_is_stopped_at_once(
    family: Callable[[], subprocess.Popen[bytes]],
) -> None:
    with pytest.raises(Terminated), stop_on_signals():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        except Terminated:
            pass  # a caller that swallowed it: the next child is still stopped
        child = family()
        try:
            with supervised(child.pid):
                pytest.fail("a child supervised after the signal must not run")
        finally:
            assert child.wait(30) == -signal.SIGTERM


def test_deaths_are_told_and_exits_seen_without_reaping() -> None:
    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    deadline = time.monotonic() + 30
    while not exited(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert exited(child.pid) and child.wait() == 3  # still there to be reaped
    assert death(-9) == "killed by SIGKILL" and death(3) == "exited with status 3"


def test_a_signal_the_command_ignores_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under `nohup`
    try:
        with stop_on_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.1)  # (a handler would have raised by now)
        assert stopping() is None
    finally:
        signal.signal(signal.SIGHUP, previous)
