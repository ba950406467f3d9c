"""What each command that reads a config costs on hostile configs: seconds and memory per MB.

Each command (lint, fmt --check, convert, complete) runs as a fresh `python -m tritoncfg`
process on one config of each shape below, at two sizes. For each run it prints the wall time
per MB of config and the peak resident memory (`ru_maxrss` of that process, from `os.wait4`)
above the same command's peak on a one-line config, per byte of config: the target is at most
50 bytes per byte. The last columns divide the growth in time and in memory from the small
size to the large one by the growth in size: about 1.0 is linear, 2.0 would be quadratic
(time at small sizes is mostly start-up, so its ratio reads low). Nothing is asserted; the exit
status is 1 only when a command crashed (a traceback or an exit status other than 0, 1 or 2).

    python bench/cost_bench.py [--sizes 1,4] [--commands lint,fmt,...] [--shapes string,...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MEGABYTE = 1_000_000
HEADER = b'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 8\n'


def _string(size: int) -> bytes:
    """One string literal of `size` bytes (a parameter's value)."""
    return HEADER + b'parameters { key: "k" value { string_value: "' + b"a" * size + b'" } }\n'


def _nul(size: int) -> bytes:
    """NUL bytes only: an error at 1:1."""
    return b"\0" * size


def _input(index: int) -> bytes:
    return b'input { name: "INPUT_%d" data_type: TYPE_FP32 dims: [ 1, 3 ] }' % index


def _fields(size: int) -> bytes:
    """Many small fields: one short input per line."""
    return HEADER + b"\n".join(_input(i) for i in range(size // 60)) + b"\n"


def _nesting(size: int) -> bytes:
    """Blocks opened one per line, deeper than the parser's limit."""
    return b"optimization {\n" * (size // 15)


def _long_line(size: int) -> bytes:
    """The small fields on one line."""
    return HEADER + b" ".join(_input(i) for i in range(size // 60)) + b"\n"


def _errors(size: int) -> bytes:
    """An unknown field on every line: an error (and a source line shown) per 18 bytes."""
    return b"max_batch_sise: 1\n" * (size // 18)


def _json_string(size: int) -> bytes:
    """One JSON string value of `size` bytes (config.json)."""
    return b'{"name": "m", "parameters": {"k": {"string_value": "' + b"a" * size + b'"}}}\n'


SHAPES: dict[str, Callable[[int], bytes]] = {
    "string": _string,
    "nul": _nul,
    "fields": _fields,
    "nesting": _nesting,
    "long-line": _long_line,
    "errors": _errors,
    "json-string": _json_string,
}
COMMANDS: dict[str, list[str]] = {
    "lint": ["lint", "--model-files", "optional"],
    "fmt": ["fmt", "--check"],
    "convert": ["convert", "--to", "json"],  # config.json: --to pbtxt
    "complete": ["complete"],
}


def measure(command: list[str], config: Path) -> tuple[float, int, int]:
    """Wall seconds, peak resident bytes and exit status of one `python -m tritoncfg` run."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "tritoncfg", *command, str(config)],
            stdout=subprocess.DEVNULL,  # the text report is still written, then dropped
            stderr=errors,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        if b"Traceback" in errors.read() or code not in (0, 1, 2):
            raise RuntimeError(f"{' '.join(command)} {config} crashed (exit {code})")
    return wall, usage.ru_maxrss * 1024, code


def write_config(work: Path, name: str, data: bytes) -> Path:
    model = work / name
    (model / "1").mkdir(parents=True, exist_ok=True)
    path = model / ("config.json" if name.startswith("json") else "config.pbtxt")
    path.write_bytes(data)
    return path


def run(sizes: tuple[float, float], commands: list[str], shapes: list[str], work: Path) -> int:
    small, large = (int(megabytes * MEGABYTE) for megabytes in sizes)
    print(f"cost per MB of config, {sizes[0]:g} MB and {sizes[1]:g} MB (fresh process per run)")
    print(
        f"  {'command':<9}{'shape':<11}{'s/MB':>14}{'bytes/byte':>16}"
        f"{'time growth':>13}{'memory growth':>15}"
    )
    base = write_config(work, "base", HEADER)
    for command in commands:
        _, floor, _ = measure(COMMANDS[command], base)
        for shape in shapes:
            argv = COMMANDS[command]
            rows = []
            for size in (small, large):
                config = write_config(work, f"{shape}_{size}", SHAPES[shape](size))
                actual = config.stat().st_size
                if config.suffix == ".json" and command == "convert":
                    argv = ["convert", "--to", "pbtxt"]
                try:
                    wall, peak, _ = measure(argv, config)
                except RuntimeError as error:
                    print(f"  {command:<9}{shape:<11}{error}")
                    return 1
                rows.append((actual, wall, max(peak - floor, 0)))
            (size_a, wall_a, peak_a), (size_b, wall_b, peak_b) = rows
            growth = size_b / size_a
            per_mb = "/".join(f"{wall / (size / MEGABYTE):.2f}" for size, wall, _ in rows)
            per_byte = "/".join(f"{peak / size:.1f}" for size, _, peak in rows)
            memory = f"{peak_b / peak_a / growth:.2f}" if peak_a else "-"
            print(
                f"  {command:<9}{shape:<11}{per_mb:>14}{per_byte:>16}"
                f"{wall_b / wall_a / growth:>13.2f}{memory:>15}"
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4", help="the two config sizes in MB")
    parser.add_argument("--commands", default=",".join(COMMANDS), help="comma-separated")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated")
    parser.add_argument("--work", type=Path, help="where to write the configs (default: temp)")
    args = parser.parse_args(argv)
    small, large = (float(part) for part in args.sizes.split(","))
    commands = [name for name in args.commands.split(",") if name]
    shapes = [name for name in args.shapes.split(",") if name]
    unknown = sorted(set(commands) - set(COMMANDS)) + sorted(set(shapes) - set(SHAPES))
    if unknown:
        parser.error(f"unknown command or shape: {', '.join(unknown)}")
    if args.work is not None:
        return run((small, large), commands, shapes, args.work)
    with tempfile.TemporaryDirectory(prefix="tritoncfg-cost-") as work:
        return run((small, large), commands, shapes, Path(work))


if __name__ == "__main__":
    sys.exit(main())
