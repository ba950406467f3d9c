"""The cost bench runs every command on every hostile shape and prints its figures (never
asserted: the memory bounds are tests/text/test_cost.py's)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_cost_bench_prints_a_row_per_command_and_shape(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "cost_bench.py"),
            "--sizes",
            "0.05,0.1",
            "--commands",
            "lint,convert",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    rows = re.findall(
        r"^  (\w+)\s+([\w-]+)\s+[\d.]+/[\d.]+\s+[\d.]+/[\d.]+\s+[\d.]+\s+(?:[\d.]+|-)$",
        result.stdout,
        re.M,
    )
    shapes = ["string", "nul", "fields", "nesting", "long-line", "errors", "json-string"]
    assert rows == [(c, s) for c in ("lint", "convert") for s in shapes], result.stdout
