"""The cost bench runs every command on every hostile shape and prints its figures (never
asserted: the memory bounds are tests/text/test_cost.py's)."""

from __future__ import annotations

import re
from pathlib import Path

from benchkit import run_bench


def test_cost_bench_prints_a_row_per_command_and_shape(tmp_path: Path) -> None:
    out = run_bench(
        "cost_bench.py", "--sizes", "0.05,0.1", "--commands", "lint,convert", cwd=tmp_path
    )
    rows = re.findall(
        r"^  (\w+)\s+([\w-]+)\s+[\d.]+/[\d.]+\s+[\d.]+/[\d.]+\s+[\d.]+\s+(?:[\d.]+|-)$",
        out,
        re.M,
    )
    shapes = ["string", "nul", "fields", "nesting", "long-line", "errors", "json-string"]
    assert rows == [(c, s) for c in ("lint", "convert") for s in shapes], out
