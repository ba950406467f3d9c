"""`probe` sent SIGTERM, SIGHUP or SIGINT forwards it to its runtime workers' process groups,
reaps them and exits 128 + the signal: no worker is left running (reparented to PID 1)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")

from probe.probekit import reshape_repository
from prockit import catches, command_line, descendants, processes, running

BOUND = 60.0  # seconds for probe to start its workers, and for everything to be gone after


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reshape_repository(tmp_path_factory.mktemp("signals") / "repo")


def _workers(probe: subprocess.Popen[str], count: int) -> dict[int, str]:
    """Probe's processes once `count` runtime workers (spawned interpreters) are running, each
    set up as `_worker` sets itself up first thing: the leader of its own process group, SIGINT
    at its default. Before that, a worker is still unpickling its work (0.15 s here, 0.4 s
    under six busy loops), and a SIGINT forwarded then raises KeyboardInterrupt in it."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        found = {pid: command_line(pid) for pid in descendants(probe.pid)}
        workers = [pid for pid, line in found.items() if "spawn_main" in line]
        if len(workers) >= count and all(map(_set_up, workers)):
            return found
        assert probe.poll() is None, probe.communicate()
        time.sleep(0.05)
    raise AssertionError("probe's workers did not start")


def _set_up(worker: int) -> bool:
    proc = processes().get(worker)
    return proc is not None and proc.group == worker and not catches(worker, signal.SIGINT)


CASES = {  # the signal, the models probed, --jobs
    "SIGTERM": (signal.SIGTERM, "healthy", 1),
    "SIGHUP with two jobs": (signal.SIGHUP, "", 2),
    "SIGINT": (signal.SIGINT, "healthy", 1),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_stopped_probe_leaves_no_worker_running(twins: Path, case: str) -> None:
    sig, model, jobs = CASES[case]
    command = [sys.executable, "-m", "tritoncfg", "probe", str(twins / model), "-f", "json"]
    command += ["--runs", "100000000", "--jobs", str(jobs)]  # each point runs for hours
    probe = subprocess.Popen(
        command, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"}, start_new_session=True,
    )  # fmt: skip
    started = _workers(probe, jobs)

    try:
        os.kill(probe.pid, sig)  # probe alone, as `kill` or a CI runner's timeout would
        _, err = probe.communicate(timeout=BOUND)
        deadline = time.monotonic() + 10
        while any(map(running, started)) and time.monotonic() < deadline:
            time.sleep(0.05)  # (multiprocessing's resource tracker ends once probe has)
        left = [cmd for pid, cmd in started.items() if running(pid)]
    finally:
        for pid, line in started.items():  # a failing run's leftovers, not left for hours
            if running(pid) and command_line(pid) == line:  # (not a pid reused since)
                os.kill(pid, signal.SIGKILL)

    assert left == []
    assert probe.returncode == 128 + sig
    assert err.endswith(f"tritoncfg: probe stopped by {sig.name}; its workers were stopped\n")
    assert "Traceback" not in err, err


def _signal_mask(pid: int, field: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next(int(line.split()[1], 16) for line in status.splitlines() if line.startswith(field))


def test_a_starting_worker_never_catches_sigint_unblocked(twins: Path) -> None:
    """A terminal's Ctrl-C goes to probe's whole process group, which a spawned worker shares
    until it sets itself up. Python catches SIGINT from its start (KeyboardInterrupt: a
    traceback on probe's terminal) unless it starts ignored, which is how probe starts the
    worker; the worker sets it to its default once it leads its own group. Sampled from /proc
    all along: at no moment does it catch SIGINT; then a Ctrl-C ends probe without a
    traceback."""
    command = [sys.executable, "-m", "tritoncfg", "probe", str(twins / "healthy"), "-f", "json"]
    probe = subprocess.Popen(
        [*command, "--runs", "100000000"], text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"}, start_new_session=True,
    )  # fmt: skip
    bit = 1 << (signal.SIGINT - 1)
    samples: list[tuple[bool, bool]] = []  # (caught, ignored) while it was in probe's group
    worker = None
    deadline = time.monotonic() + BOUND
    try:
        while time.monotonic() < deadline:
            if worker is None:
                found = [p for p in descendants(probe.pid) if "spawn_main" in command_line(p)]
                worker = found[0] if found else None
                assert probe.poll() is None, probe.communicate()
                continue
            proc = processes().get(worker)
            assert proc is not None, "the worker ended"
            caught = bool(_signal_mask(worker, "SigCgt:") & bit)
            ignored = bool(_signal_mask(worker, "SigIgn:") & bit)
            if proc.group == worker and not caught and not ignored:
                break  # set up: its own group, SIGINT at its default
            samples.append((caught, ignored))
        assert worker is not None and samples, "probe's worker did not start"
        assert not [caught for caught, _ in samples if caught], samples
        os.killpg(probe.pid, signal.SIGINT)  # as the terminal sends it
        _, err = probe.communicate(timeout=BOUND)
    finally:
        if worker is not None and running(worker) and "spawn_main" in command_line(worker):
            os.kill(worker, signal.SIGKILL)
        if probe.poll() is None:
            probe.kill()
    assert (False, True) in samples  # seen while it started: SIGINT ignored
    assert probe.returncode == 128 + signal.SIGINT
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
