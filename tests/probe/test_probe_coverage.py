"""Batch coverage end to end: every batch size the dynamic batcher can send runs, and the report
says how far up a model runs (`runs at 1-2; fails from 3`). Real ONNX models, real ONNX Runtime."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run

pytest.importorskip("onnxruntime")

from probe.probekit import FAST, models, odd_batch_repository, rows, validated


@pytest.fixture(scope="module")
def odd_twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return odd_batch_repository(tmp_path_factory.mktemp("odd") / "repo")


def test_a_model_failing_at_odd_batch_sizes_lints_clean_and_fails_from_batch_3(
    odd_twins: Path,
) -> None:
    """The batcher forms any batch up to max_batch_size: probe runs them all, so a graph that
    fails only at 3, 5 and 7 is caught (with the declared sizes alone, 1, 4 and 8, it was not)."""
    lint = run("lint", str(odd_twins))
    assert lint.returncode == 0 and "All checks passed (2 models" in lint.stdout, lint.stdout
    done = run("probe", str(odd_twins), "--format", "json", *FAST)
    assert done.returncode == 1, done.stderr
    found = models(validated(done.stdout))
    odd, even = found["odd"], found["even"]
    assert [p["status"] for p in odd["points"]] == [
        "OK",
        "OK",
        "FAIL",
        "OK",
        "FAIL",
        "OK",
        "FAIL",
        "OK",
    ]
    assert odd["runs_up_to"] == 2
    failure = odd["first_failure"]
    assert failure["batch_size"] == 3
    assert "indices element out of data bounds, idx=3" in failure["reason"]  # ORT's words
    assert rows(even) == [(f"b={b} x={b}x4", "OK") for b in range(1, 9)]
    assert even["runs_up_to"] == 8 and even["first_failure"] is None
    table = run("probe", str(odd_twins), *FAST)
    assert table.returncode == 1
    assert "batch sizes: runs at 1-2; fails from 3: [ONNXRuntimeError]" in table.stdout
    assert "batch sizes: runs at 1-8\n" in table.stdout
    declared = run("probe", str(odd_twins / "odd"), "--batch-sizes", "declared", *FAST)
    assert declared.returncode == 0, declared.stdout  # 1, 4 and 8 alone miss it


def test_batch_sizes_take_a_list_and_say_what_is_wrong(odd_twins: Path) -> None:
    done = run("probe", str(odd_twins / "odd"), "-f", "json", "--batch-sizes", "1-2,4,9", *FAST)
    assert done.returncode == 0, done.stderr
    (odd,) = validated(done.stdout)["models"]
    assert [p["batch_size"] for p in odd["points"]] == [1, 2, 4]
    assert odd["batch_sizes_left_out"] == [[3, 3], [5, 8]]
    assert "--batch-sizes 9 above max_batch_size 8: not probed" in odd["notes"]
    bad = run("probe", str(odd_twins), "--batch-sizes", "1-x")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "--batch-sizes '1-x': expected all, declared, or sizes and ranges" in bad.stderr
