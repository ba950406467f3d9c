"""The scale benchmark runs on real-world-derived repositories and prints its ratios."""

from __future__ import annotations

import re
from pathlib import Path

from benchkit import run_bench
from corpus import CORPUS, require_corpus


def test_scale_bench_prints_every_ratio(tmp_path: Path) -> None:
    require_corpus(CORPUS / "real_world")
    out = run_bench("scale_bench.py", "--models", "40", "--large", "60", cwd=tmp_path)
    ratios = re.findall(r"^\s+(\S.*?)\s+(\d+\.\d+)x\s+\(target ([<>]=) ([\d.]+)\)", out, re.M)
    assert [label for label, *_ in ratios] == [
        "ratio lint / parse loop",
        "ratio default pool / parse loop",
        "ratio pool / serial parse loop",
        "speed-up of the cached re-lint",
    ], out
    assert "cache: unchanged re-lint (0 linted)" in out
    assert "cache: one config changed (1 linted)" in out
    assert re.search(r"tritoncfg lint --jobs 1 +\d+\.\d+ s  peak \d+ MiB", out), out
