"""How long `tritoncfg probe` takes on a small ONNX model at every batch size 1..64.

Builds a model with onnx.helper (x [N, 16] -> MatMul 16x16 -> Relu -> y [N, 16]), a config with
`max_batch_size: 64` (so the default `--batch-sizes all` runs all 64 sizes), and times whole
`python -m tritoncfg probe` processes: with the default measurement settings (50 ms windows
until the last three agree, at most 10), and with the shortest (`--window-ms 0 --runs 1
--max-windows 3`: what the tests use). Best of `--repeat` runs each. Exit status 1 when a probe
does not pass or runs other than 64 points.

Measured on the 2-core development machine while a pytest run shared it (December 2026, best of
2): default settings 15.8 s for the 64 sizes (0.15-0.5 s a size: three to ten 50 ms windows),
the shortest settings 1.7 s (mostly process start-up and the model's lint). Since the points
take turns and stop together (docs/probe.md), one point whose windows keep disagreeing holds
all 64 to `--max-windows` rounds: 35.2 s (64 x 10 x 50 ms) and 1.9 s, measured while five
other processes kept both cores busy (best of 1).

    python bench/probe_bench.py [--repeat 3] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = 64
CONFIG = """\
name: "small"
backend: "onnxruntime"
max_batch_size: 64
input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 16 ] } ]
instance_group [ { kind: KIND_CPU } ]
"""


def build(root: Path) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    weights = np.random.default_rng(0).random((16, 16)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
        "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 16])],
        initializer=[helper.make_tensor("w", TensorProto.FLOAT, [16, 16], weights.ravel())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    directory = root / "small"
    (directory / "1").mkdir(parents=True)
    onnx.save_model(model, str(directory / "1" / "model.onnx"))
    (directory / "config.pbtxt").write_text(CONFIG, encoding="utf-8")
    return directory


def timed(directory: Path, options: list[str]) -> float:
    """Seconds of one whole probe process; raises SystemExit when it does not pass."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tritoncfg", "probe", str(directory), "-f", "json", *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"probe failed ({done.returncode}): {done.stderr or done.stdout}")
    points = json.loads(done.stdout)["models"][0]["points"]
    if len(points) != SIZES or any(p["status"] != "OK" for p in points):
        raise SystemExit(f"expected {SIZES} OK points, got {len(points)}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = build(args.work or Path(scratch))
        for name, options in (
            ("default settings", []),
            ("shortest windows", ["--window-ms", "0", "--runs", "1", "--max-windows", "3"]),
        ):
            best = min(timed(directory, options) for _ in range(args.repeat))
            print(f"probe at all {SIZES} batch sizes, {name}: {best:.2f} s (best of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
