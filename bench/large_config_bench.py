"""How lint grows with the size of one config: wall time and peak memory per MB.

One model whose config.pbtxt holds many inputs (each with a comment), written at several sizes;
each size is linted by a fresh `python -m tritoncfg lint` process, whose wall time and peak
resident memory (`ru_maxrss`) are reported, per MB of config (and as MB/s). Linear growth shows
as a flat per-MB column (falling a little at first: start-up and imports are a fixed cost); the
last line compares the largest size with the smallest. A 50 MB config (`--sizes 50`) took about
0.6 s and 44 MB of memory per MB on a shared 2-core machine: the syntax tree with every comment
and position is most of it (text/tree.py), then the source map. Timings are only
reported, never asserted (the exit status is 1 only when a lint fails to run).

    python bench/large_config_bench.py [--sizes 1,4,16] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

MEGABYTE = 1_000_000
HEADER = 'name: "large"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'

# Runs in the child: lint, then report its own wall time and peak memory as one JSON line.
_CHILD = """
import json, resource, sys, time
start = time.perf_counter()
from tritoncfg.api import lint
result = lint([sys.argv[1]])
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"wall": wall, "peak": peak, "findings": len(result.diagnostics)}))
"""


def large_config(size: int) -> str:
    """A valid config of about `size` bytes: many commented inputs."""
    parts = [HEADER]
    written = len(HEADER)
    index = 0
    while written < size:
        part = (
            f'input {{\n  name: "INPUT_{index}"  # input {index}\n  data_type: TYPE_FP32\n'
            "  dims: [ 3, 224, 224 ]\n}\n"
        )
        parts.append(part)
        written += len(part)
        index += 1
    return "".join(parts)


def write_model(root: Path, size: int) -> Path:
    model = root / f"large_{size}"
    model.mkdir(parents=True, exist_ok=True)
    (model / "config.pbtxt").write_text(large_config(size), encoding="utf-8")
    return model


def measure(model: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(model)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"lint exited {done.returncode}")
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def run(sizes: list[float], work: Path) -> int:
    print("lint of one config.pbtxt, by size (fresh process each, imports included)")
    print(f"  {'size':>8}  {'wall':>8}  {'s/MB':>7}  {'MB/s':>6}  {'peak':>9}  {'peak MB/MB':>10}")
    rows: list[tuple[float, float, float]] = []
    for megabytes in sizes:
        model = write_model(work, int(megabytes * MEGABYTE))
        actual = (model / "config.pbtxt").stat().st_size / MEGABYTE
        try:
            found = measure(model)
        except RuntimeError as error:
            print(f"  {actual:7.1f}M  lint failed: {error}")
            return 1
        peak = found["peak"] / MEGABYTE
        rows.append((actual, found["wall"], peak))
        print(
            f"  {actual:7.1f}M  {found['wall']:7.2f}s  {found['wall'] / actual:7.3f}"
            f"  {actual / found['wall']:6.2f}  {peak:8.0f}M  {peak / actual:10.1f}"
        )
    if len(rows) > 1:
        (small, small_wall, small_peak), (large, large_wall, large_peak) = rows[0], rows[-1]
        growth = large / small
        print(
            f"  growth x{growth:.1f} in size: time x{large_wall / small_wall:.1f}, "
            f"peak memory x{large_peak / small_peak:.1f} (linear: about x{growth:.1f})"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4,16", help="config sizes in MB, comma-separated")
    parser.add_argument("--work", type=Path, help="where to write the configs (default: temp)")
    args = parser.parse_args(argv)
    sizes = [float(part) for part in args.sizes.split(",") if part.strip()]
    if args.work is not None:
        return run(sizes, args.work)
    with tempfile.TemporaryDirectory(prefix="tritoncfg-large-") as work:
        return run(sizes, Path(work))


if __name__ == "__main__":
    sys.exit(main())
