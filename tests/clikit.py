"""Test support: run the real `tritoncfg` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(
    *args: str, cwd: Path | None = None, stdin: str | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command; with `timeout` (seconds), a hang fails the test instead of stalling it."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR",)}
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "tritoncfg", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        env=env,
        timeout=timeout,
        check=False,
    )


def run_documented(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A docs page's `$ tritoncfg ...` line, run in `cwd` with stdout and stderr together, as a
    terminal shows them."""
    import shlex

    args = shlex.split(command)
    assert args[0] == "tritoncfg", command
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {"NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tritoncfg", *args[1:]],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        check=False,
    )
