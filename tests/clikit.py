"""Test support: run the real `tritoncfg` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(
    *args: str, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR",)}
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "tritoncfg", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        env=env,
        check=False,
    )
