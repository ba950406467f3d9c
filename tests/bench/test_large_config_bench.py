"""The large-config bench runs and reports time and peak memory per MB (never asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_large_config_bench_reports_per_megabyte(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "large_config_bench.py"), "--sizes", "0.1,0.3"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    rows = re.findall(
        r"^\s+(\d+\.\d)M\s+[\d.]+s\s+([\d.]+)\s+[\d.]+\s+\d+M\s+([\d.]+)$", result.stdout, re.M
    )
    assert [size for size, _, _ in rows] == ["0.1", "0.3"], result.stdout
    assert all(float(per_mb) > 0 for _, per_mb, _ in rows)
    assert re.search(r"growth x3\.0 in size: time x[\d.]+, peak memory x[\d.]+", result.stdout)
