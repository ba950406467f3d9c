"""`tritoncfg lint --watch`: a real subprocess, a real file change, a bounded wait for each run."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from lintkit import make_model

pytest.importorskip("watchfiles")

WAIT_S = 30  # for each expected line; a run takes about a second


def _lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line)


def _wait_for(lines: queue.Queue[str], needle: str) -> list[str]:
    """The lines read until one holds `needle`; fails after WAIT_S."""
    seen: list[str] = []
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        if needle in line:
            return seen
    pytest.fail(f"no {needle!r} within {WAIT_S}s; got {seen!r}")


def _inotify_watches(pid: int) -> set[int]:
    """The inodes `pid` watches through inotify (its fdinfo's `inotify wd:... ino:HEX` lines)."""
    found: set[int] = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if os.readlink(fd) != "anon_inode:inotify":
                continue
            info = (Path(f"/proc/{pid}/fdinfo") / fd.name).read_text()
        except OSError:
            continue
        found |= {int(w, 16) for w in re.findall(r"^inotify wd:\S+ ino:([0-9a-f]+)", info, re.M)}
    return found


def _wait_watched(pid: int, folder: Path) -> None:
    """Return once `pid` watches `folder` (a change made before would go unseen); fails after
    WAIT_S. It takes 7 ms after the first run has printed, 34 ms under six busy loops: waited
    for, not slept for, it holds however long a starved process takes."""
    deadline = time.monotonic() + WAIT_S
    while folder.stat().st_ino not in _inotify_watches(pid):
        if time.monotonic() > deadline:
            pytest.fail(f"{folder} not watched (inotify) within {WAIT_S}s")
        time.sleep(0.05)


def test_watch_lints_again_after_a_change_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    config = make_model(tmp_path / "repo", "m", 'name: "m"\nbackend: "python"\n',
                        files={"1/model.py": ""}) / "config.pbtxt"  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {"NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tritoncfg", "lint", str(tmp_path / "repo"), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=tmp_path,  # the lint cache is written beside the watched folder
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        _wait_for(lines, "Starting linter in watch mode")
        _wait_for(lines, "All checks passed")
        _wait_watched(process.pid, config.parent)  # the watcher is set up after the first run
        config.write_text('name: "m"\nbackend: "python"\nmax_batch_size: 8\n')
        _wait_for(lines, "File change detected")
        rerun = _wait_for(lines, "Found 0 errors, 1 warning")
        assert any("TC903 warning" in line for line in rerun)
        assert (tmp_path / ".tritoncfg_cache" / "CACHEDIR.TAG").is_file()
        time.sleep(2)  # one change, one run: the runs' own writes are no change
        quiet: list[str] = []
        while not lines.empty():
            quiet.append(lines.get())
        assert not [line for line in quiet if "File change detected" in line], quiet
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=WAIT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
