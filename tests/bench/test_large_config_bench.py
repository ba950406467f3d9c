"""The large-config bench runs and reports time and peak memory per MB (never asserted)."""

from __future__ import annotations

import re
from pathlib import Path

from benchkit import run_bench


def test_large_config_bench_reports_per_megabyte(tmp_path: Path) -> None:
    out = run_bench("large_config_bench.py", "--sizes", "0.1, 0.3", cwd=tmp_path)
    rows = re.findall(r"^\s+(\d+\.\d)M\s+[\d.]+s\s+([\d.]+)\s+[\d.]+\s+\d+M\s+([\d.]+)$", out, re.M)
    assert [size for size, _, _ in rows] == ["0.1", "0.3"], out
    assert all(float(per_mb) > 0 for _, per_mb, _ in rows)
    assert re.search(r"growth x3\.0 in size: time x[\d.]+, peak memory x[\d.]+", out)
