"""Every runner runs in a child process: a real abort (SIGABRT) or a hang becomes a FAIL row of
its model, the other models still run, and probe itself never crashes."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tritoncfg.probe.isolate import CRASH_HOOK

pytest.importorskip("onnxruntime")

from probe.probekit import FAST, reshape_repository


def probe(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`tritoncfg probe ARGS` at the declared batch sizes (1, 4 and 8 for the twins)."""
    full = {k: v for k, v in os.environ.items() if k != CRASH_HOOK} | (env or {})
    full["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "tritoncfg", "probe", "--batch-sizes", "declared", *args],
        capture_output=True,
        text=True,
        env=full,
        check=False,
        timeout=300,
    )


def points(stdout: str) -> dict[str, list[tuple[str, str, str | None]]]:
    document: dict[str, Any] = json.loads(stdout)
    return {
        m["model"]: [(p["label"], p["status"], p["reason"]) for p in m["points"]]
        for m in document["models"]
    }


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reshape_repository(tmp_path_factory.mktemp("iso") / "repo")


def test_a_runtime_that_aborts_is_a_fail_row_and_the_next_model_still_runs(twins: Path) -> None:
    done = probe(str(twins), "-f", "json", *FAST, env={CRASH_HOOK: "b=4 x=4x4"})
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    found = points(done.stdout)
    for model in ("broken", "healthy"):  # the hook aborts both workers at b=4
        first, crashed, after = found[model]
        # b=1 ran and checked out; its windows come after every point has run once
        assert first == (
            "b=1 x=1x4",
            "OK",
            "outputs checked; not timed (the runtime crashed at another point)",
        )
        assert crashed[:2] == ("b=4 x=4x4", "FAIL")
        assert crashed[2] == "the runtime crashed: its process was killed by SIGABRT"
        assert after[:2] == ("b=8 x=8x4", "SKIP")
        assert after[2] is not None and after[2].startswith("not run (the runtime crashed")


def test_a_model_past_its_timeout_fails_at_the_running_point(twins: Path) -> None:
    # --timeout counts from the worker's start: it must outlast the start and the points'
    # checks (a second here; 5 s under four busy loops), so it is four times what a whole probe
    # of the model takes on this machine now, and at least 6 s
    started = time.monotonic()
    assert probe(str(twins / "healthy"), "-f", "json", *FAST).returncode == 0
    timeout = max(6, math.ceil(4 * (time.monotonic() - started)))
    started = time.monotonic()
    done = probe(
        str(twins / "healthy"), "-f", "json", "--runs", "100000000", "--timeout", str(timeout)
    )
    assert time.monotonic() - started < timeout + 60  # the runs would take hours
    assert done.returncode == 1, done.stderr
    (first, *rest) = points(done.stdout)["healthy"]
    assert first[:2] == ("b=1 x=1x4", "FAIL")
    assert first[2] == f"timed out: the model ran past --timeout {timeout} s"
    # every point ran and checked out before the first window; the others' windows never came
    assert [r[1:] for r in rest] == [
        ("OK", "outputs checked; not timed (timed out at another point)")
    ] * 2


def test_a_timeout_before_any_point_started_counts_as_a_fail(twins: Path) -> None:
    """Stopped while its worker starts (imports, loads the model): the point it was about to run
    FAILs, so the summary and the JSON count the timeout as a FAIL."""
    done = probe(str(twins / "healthy"), "-f", "json", *FAST, "--timeout", "0.1")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    (first, *rest) = points(done.stdout)["healthy"]
    assert first == ("b=1 x=1x4", "FAIL", "timed out: the model ran past --timeout 0.1 s")
    assert [r[1] for r in rest] == ["SKIP", "SKIP"]
    assert document["summary"]["FAIL"] == 1 and document["summary"]["exit_status"] == 1
    table = probe(str(twins / "healthy"), *FAST, "--timeout", "0.1")
    assert table.stdout.splitlines()[-1] == "1 model: 0 OK, 1 FAIL, 2 SKIP points"


def test_jobs_probe_models_in_parallel_with_the_same_results(twins: Path) -> None:
    serial = probe(str(twins), "-f", "json", *FAST)
    parallel = probe(str(twins), "-f", "json", *FAST, "--jobs", "2")
    assert serial.returncode == parallel.returncode == 1

    def statuses(stdout: str) -> dict[str, list[str]]:
        return {m: [s for _, s, _ in rows] for m, rows in points(stdout).items()}

    assert statuses(parallel.stdout) == statuses(serial.stdout)
    assert list(points(parallel.stdout)) == ["broken", "healthy"]  # the plans' order


def test_the_progress_bar_goes_to_a_terminal_stderr_only(twins: Path) -> None:
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in (CRASH_HOOK, "NO_COLOR")}
    env["TERM"] = "xterm"
    child = subprocess.Popen(
        [sys.executable, "-m", "tritoncfg", "probe", str(twins), "-f", "json", *FAST],
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    terminal = bytearray()

    def drain() -> None:  # read the terminal while the child writes, so it never blocks
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                return
            if not chunk:
                return
            terminal.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    stdout, _ = child.communicate(timeout=300)
    reader.join(30)
    os.close(master)
    assert b"probing" in terminal
    assert json.loads(stdout)["summary"]["models"] == 2  # stdout holds the report only
    piped = probe(str(twins), *FAST)
    assert "probing" not in piped.stderr and "probing" not in piped.stdout
