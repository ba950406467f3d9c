"""`tools/gpu_check.sh` runs end to end here, where torch has no CUDA device: the same steps on
the CPU, and a summary that says the GPU part was skipped (docs/probe.md, "GPU check")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

ROOT = Path(__file__).resolve().parents[2]


def test_the_gpu_check_runs_on_the_cpu_and_says_the_gpu_part_was_skipped() -> None:
    if torch.cuda.is_available():
        pytest.skip("torch has a CUDA device here: run tools/gpu_check.sh itself")
    env = dict(os.environ, PYTHON=sys.executable)
    done = subprocess.run(
        ["bash", str(ROOT / "tools" / "gpu_check.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout[done.stdout.index("gpu_check summary") :]
    assert "setup:       nothing to install" in summary  # the dev install has every module
    assert "torch.cuda.is_available() is False" in summary
    assert "skipped [2] tests/probe/test_pytorch_gpu.py" in summary  # the GPU tests were run
    assert "TorchScript: 8/8 batch sizes OK on cpu" in summary
    assert "GPU part skipped: no CUDA device for torch here" in summary
    assert summary.rstrip().endswith("result:      OK")
