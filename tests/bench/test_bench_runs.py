"""The benchmark runs and prints its ratios (timings are reported, never asserted)."""

from __future__ import annotations

import re
from pathlib import Path

from benchkit import run_bench


def test_parse_bench_prints_every_ratio(tmp_path: Path) -> None:
    out = run_bench("parse_bench.py", "--models", "40", cwd=tmp_path)
    assert "verified: every config parses, same message as text_format" in out
    ratios = re.findall(r"^\s+(ratio[^\d]*?)\s+(\d+\.\d+)x\s+\(target <= ([\d.]+)\)", out, re.M)
    assert [label.strip() for label, _, _ in ratios] == [
        "ratio",  # parse
        "ratio to bare text_format.Parse",  # lint of the repository
        "ratio",  # process start-up
    ], out
    assert re.search(r"lint 40 models .*\n.*\(\d+ findings\)", out), out


def test_precommit_bench_prints_the_ratio_of_each_repository(tmp_path: Path) -> None:
    out = run_bench("precommit_bench.py", "--models", "30", "--runs", "1", cwd=tmp_path)
    rows = re.findall(
        r"^\s+lint \S+ \(([^)]*)\)\s+[\d.]+ s\s+[\d.]+x\s+\(target <= 3.0\)", out, re.M
    )
    assert rows == ["1-model repository", "30-model repository", "a step, 30 models"], out
