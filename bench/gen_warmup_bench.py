"""How `gen warmup` grows with the number of inputs: wall time per input, and the ratio per
doubling.

One python-backend model (its model.py is never imported) whose config lists N inputs, for each
N given; each is run by a fresh `python -m tritoncfg gen warmup` process (generate, lint of the
result, the diff), whose wall time is reported. Linear growth shows as a ratio of about 2 per
doubling of N (less at first: start-up and imports are a fixed cost). The warmup checks once
looked up each warmup input's config input in a dict built anew per lookup: a ratio of about 4
(on a shared 2-core machine, 2,000 and 4,000 inputs took 9.0 s and 48 s; now 1.7 s and 3.2 s,
16,000 inputs 14 s). Timings are only reported, never asserted (the exit status is 1 only when
a run fails).

    python bench/gen_warmup_bench.py [--inputs 2000,4000,8000] [--work DIR]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_model(root: Path, inputs: int) -> Path:
    """A batching python model with `inputs` inputs of dims [ 4 ] and one output."""
    model = root / f"inputs_{inputs}"
    (model / "1").mkdir(parents=True, exist_ok=True)
    (model / "1" / "model.py").write_text("# never imported by tritoncfg\n", encoding="utf-8")
    parts = ['backend: "python"\nmax_batch_size: 8\n']
    parts += [
        f'input {{\n  name: "INPUT_{i}"\n  data_type: TYPE_FP32\n  dims: [ 4 ]\n}}\n'
        for i in range(inputs)
    ]
    parts.append('output {\n  name: "OUTPUT"\n  data_type: TYPE_FP32\n  dims: [ 4 ]\n}\n')
    (model / "config.pbtxt").write_text("".join(parts), encoding="utf-8")
    return model


def measure(model: Path) -> float:
    """Seconds of one `gen warmup MODEL` (the diff is shown, nothing written)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tritoncfg", "gen", "warmup", str(model)],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"gen warmup exited {done.returncode}")
    return wall


def run(counts: list[int], work: Path) -> int:
    print("gen warmup of one model, by number of inputs (fresh process each, imports included)")
    print(f"  {'inputs':>7}  {'wall':>8}  {'ms/input':>8}  {'ratio':>6}")
    previous: tuple[int, float] | None = None
    for count in counts:
        try:
            wall = measure(write_model(work, count))
        except RuntimeError as error:
            print(f"  {count:7d}  gen warmup failed: {error}")
            return 1
        ratio = ""
        if previous is not None:
            # the time ratio scaled to a doubling of the inputs: about 2 when linear, 4 quadratic
            doublings = math.log2(count / previous[0])
            ratio = f"x{(wall / previous[1]) ** (1 / doublings):.2f}" if doublings > 0 else ""
        print(f"  {count:7d}  {wall:7.2f}s  {1000 * wall / count:8.3f}  {ratio:>6}")
        previous = (count, wall)
    print("  ratio: time per doubling of the inputs (linear: about x2, quadratic: about x4)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", default="2000,4000,8000", help="input counts, comma-separated")
    parser.add_argument("--work", type=Path, help="the folder to make the models in (a temp one)")
    args = parser.parse_args(argv)
    counts = [int(part) for part in args.inputs.split(",") if part.strip()]
    with tempfile.TemporaryDirectory(prefix="tritoncfg-warmup-", dir=args.work) as work:
        return run(counts, Path(work))


if __name__ == "__main__":
    sys.exit(main())
