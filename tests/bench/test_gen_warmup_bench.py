"""The gen warmup bench runs and reports time per input and the ratio per doubling (never
asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gen_warmup_bench_reports_the_ratio_per_doubling(tmp_path: Path) -> None:
    bench = ROOT / "bench" / "gen_warmup_bench.py"
    command = [sys.executable, str(bench), "--inputs", "20,40", "--work", str(tmp_path)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = re.findall(r"^\s+(\d+)\s+[\d.]+s\s+([\d.]+)\s*(x[\d.]+)?$", result.stdout, re.M)
    assert [(count, bool(ratio)) for count, _, ratio in rows] == [("20", False), ("40", True)]
    assert all(float(per_input) > 0 for _, per_input, _ in rows), result.stdout
    assert list(tmp_path.iterdir()) == []  # the models went into a temp folder there, removed
