"""A lint pool worker killed (SIGKILL, as an OOM kill would) never hangs lint: the model it held
is linted again in a new worker, or, killed again, named in an error, and the lint finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prockit import command_line, descendants, running
from scalekit import model_name, write_repository

from tritoncfg.lintrun import STOP_HOOK

MODELS = 24
VICTIM = model_name(5)
BOUND = 60.0  # seconds: far above a lint of 24 models, far below "forever"


_STARTED: list[int] = []  # the lints and the workers seen: none may outlive a failing test


@pytest.fixture(autouse=True)
def _nothing_left() -> Iterator[None]:
    yield
    for pid in _STARTED:
        if running(pid) and "tritoncfg" in command_line(pid):  # (not a pid reused since)
            os.kill(pid, signal.SIGKILL)
    _STARTED.clear()


def _stopped_worker(lint: subprocess.Popen[str]) -> int:
    """The worker that stopped itself at the victim (the test hook), once it has."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        stopped = [p.pid for p in descendants(lint.pid).values() if p.state == "T"]
        if stopped:
            _STARTED.extend(descendants(lint.pid))
            return stopped[0]
        assert lint.poll() is None, lint.communicate()
        time.sleep(0.02)
    raise AssertionError("no worker stopped at the victim model")


def _start(root: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, STOP_HOOK: VICTIM, "NO_COLOR": "1"}
    command = [sys.executable, "-m", "tritoncfg", "lint", str(root), "-j", "2", *args]
    lint = subprocess.Popen(
        command, env=env, cwd=root.parent, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    _STARTED.append(lint.pid)
    return lint


def _plain(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tritoncfg", "lint", str(root), "--no-cache", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=root.parent)


# with the cache: the pool lints scanned models; without: it scans and lints whole repositories
PATHS = {"cached": ("--format", "json"), "uncached": ("--no-cache", "--format", "json")}


@pytest.mark.parametrize("path", list(PATHS), ids=list(PATHS))
def test_a_killed_worker_s_model_is_linted_again(tmp_path: Path, path: str) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    lint = _start(root, *PATHS[path])
    os.kill(_stopped_worker(lint), signal.SIGKILL)
    os.kill(_stopped_worker(lint), signal.SIGCONT)  # the second try goes through

    out, err = lint.communicate(timeout=BOUND)

    plain = _plain(root, "--format", "json")
    assert (lint.returncode, err) == (1, "")
    assert out == plain.stdout and VICTIM in out  # every model, the victim's findings too


@pytest.mark.parametrize("path", list(PATHS), ids=list(PATHS))
def test_a_model_whose_worker_is_killed_twice_is_named(tmp_path: Path, path: str) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    lint = _start(root, *PATHS[path])
    for _ in range(2):
        os.kill(_stopped_worker(lint), signal.SIGKILL)

    out, err = lint.communicate(timeout=BOUND)

    assert lint.returncode == 2
    assert err == (
        f"tritoncfg: error: model {VICTIM} ({root / VICTIM}) was not linted: "
        "its lint process was killed by SIGKILL, twice\n"
    )
    expected = json.loads(_plain(root, "--format", "json").stdout)
    found = json.loads(out)
    others = [d for d in expected["diagnostics"] if d["model"] != VICTIM]
    assert found["diagnostics"] == others and len(others) < len(expected["diagnostics"])
    assert not (tmp_path / ".tritoncfg_cache").exists() or not list(
        (tmp_path / ".tritoncfg_cache").glob("replay-*.json")
    )  # an incomplete lint is not cached


STOPS = {  # how lint is stopped: the signal, sent to its whole process group or to it alone
    "Ctrl-C": (signal.SIGINT, True),  # a terminal sends it to the whole foreground group
    "SIGTERM": (signal.SIGTERM, False),  # `kill`, a CI job's timeout
    "SIGHUP": (signal.SIGHUP, False),
}


@pytest.mark.parametrize("stop", list(STOPS), ids=list(STOPS))
def test_a_stopped_lint_stops_its_workers_without_tracebacks(tmp_path: Path, stop: str) -> None:
    sig, whole_group = STOPS[stop]
    root = write_repository(tmp_path / "repo", MODELS)
    lint = _start(root, "--no-cache")
    _stopped_worker(lint)
    workers = descendants(lint.pid)
    assert len(workers) >= 2  # the pool is running

    if whole_group:
        os.killpg(lint.pid, sig)
    else:
        os.kill(lint.pid, sig)
    _, err = lint.communicate(timeout=BOUND)

    assert lint.returncode == 128 + sig
    assert "Traceback" not in err and "ForkPoolWorker" not in err and "Process" not in err, err
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]  # all reaped
