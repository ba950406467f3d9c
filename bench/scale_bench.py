"""Benchmark lint at scale on repositories built from real-world configs.

The configs of ../shared/corpus/real_world (templates left out) are copied, renamed
`m00000_<name>`, into a temporary repository (never kept, never committed). Every lint runs in a
fresh subprocess that reports its wall time and peak memory (getrusage: its own, and its pool
workers'), with tritoncfg's bytecode compiled first, as `pip install` leaves it. Timings are
printed, never asserted.

1. lint of --models (2,000) models, no cache, against the bare `text_format.Parse` loop over
   the same texts, the two run in turn (a shared host's load swings between runs): serial
   (`--jobs 1`, target <= 1.5x), and with the default jobs (a process per core above a few
   hundred models, target <= 1.0x).
2. lint of --large (20,000) models with the process pool, against the bare serial parse loop
   (target: no slower, <= 1.0x), and the speed-up per added core (1, 2, ... processes), next to
   the speed-up the machine itself gives as many busy processes (virtual cores that share a
   physical one give less than their number: the pool cannot do better), and the CPU time of the
   main process with the pool: the serial part, which bounds the speed-up on any machine.
3. The cached re-lint of the --large repository against the uncached lint (target: >= 10x): an
   unchanged one (replayed whole from the cache's stamps), then one after a config changed (that
   model linted, the others taken model by model from the cache).

    python bench/scale_bench.py [--models 2000] [--large 20000] [--corpus DIR] [--runs 1]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "real_world"
WIDTH = 44
SMALL_TARGET = 1.5
POOL_TARGET = 1.0
CACHE_TARGET = 10.0

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from tritoncfg.api import lint
# imported before the clock starts, as the parse loop imports them: protobuf's text format and
# the schema, which lint imports lazily; the rest of tritoncfg's start-up is parse_bench.py's
from google.protobuf import text_format
from tritoncfg.schema import ModelConfig
start = time.perf_counter()
cpu_before = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
cache = {cache!r}
result = lint(Path({repo!r}), jobs={jobs!r}, cache_dir=Path(cache) if cache else None)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
own = usage.ru_maxrss
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({{"wall": wall, "rss_kib": own, "worker_rss_kib": workers,
    "main_cpu": usage.ru_utime + usage.ru_stime - cpu_before,
    "findings": len(result.diagnostics), "relinted": len(result.relinted)}}))
"""

PARSE_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from google.protobuf import text_format
from tritoncfg.schema import ModelConfig
paths = sorted(Path({repo!r}).glob("*/config.pbtxt"))
start = time.perf_counter()
failed = 0
for path in paths:
    try:
        text_format.Parse(path.read_text(encoding="utf-8"), ModelConfig())
    except text_format.ParseError:
        failed += 1
wall = time.perf_counter() - start
print(json.dumps({{"wall": wall, "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "failed": failed}}))
"""


def corpus_configs(corpus: Path) -> list[tuple[str, str]]:
    """(model name, config text) of every real-world config that is not a template."""
    index = corpus / "INDEX.tsv"
    if not index.is_file():
        sys.exit(
            f"scale_bench: corpus not found at {corpus} (../shared/corpus beside the checkout)"
        )
    found = []
    with index.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            path = corpus / row["corpus_path"]
            if row["is_template"] == "no" and path.suffix == ".pbtxt" and path.is_file():
                found.append((path.parent.name, path.read_text(encoding="utf-8", errors="replace")))
    return found


def build(root: Path, configs: list[tuple[str, str]], count: int) -> None:
    """`count` models, the corpus configs in turn, each with a `1/` version directory."""
    for i in range(count):
        name, text = configs[i % len(configs)]
        model = root / f"m{i:05d}_{name}"
        (model / "1").mkdir(parents=True)
        (model / "config.pbtxt").write_text(text, encoding="utf-8")


def measure(code: str, runs: int) -> dict[str, Any]:
    """The best of `runs` fresh subprocesses (by wall time)."""
    best: dict[str, Any] | None = None
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            sys.exit(f"scale_bench: a measurement failed:\n{done.stderr}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if best is None or result["wall"] < best["wall"]:
            best = result
    assert best is not None
    return best


def measure_pair(first: str, second: str, runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The best of `runs` of each, run in turn (first, second, first, ...): a ratio of two
    measurements taken minutes apart swings with the load of a shared host; taken in turn, both
    see the same."""
    best: list[dict[str, Any]] = []
    for _ in range(runs):
        results = [measure(first, 1), measure(second, 1)]
        best = [
            result if not best or result["wall"] < best[i]["wall"] else best[i]
            for i, result in enumerate(results)
        ]
    return best[0], best[1]


def parse_code(repo: Path) -> str:
    return PARSE_CHILD.format(root=str(ROOT), repo=str(repo))


def lint_code(repo: Path, jobs: int | None, cache: Path | None = None) -> str:
    return CHILD.format(
        root=str(ROOT), repo=str(repo), jobs=jobs, cache=str(cache) if cache else None
    )


def lint_run(repo: Path, runs: int, jobs: int | None, cache: Path | None = None) -> dict[str, Any]:
    return measure(lint_code(repo, jobs, cache), runs)


def line(label: str, result: dict[str, Any]) -> str:
    memory = result["rss_kib"] / 1024
    workers = result.get("worker_rss_kib", 0) / 1024
    extra = f", workers {workers:.0f} MiB each at most" if workers else ""
    return f"  {label:<{WIDTH}} {result['wall']:8.3f} s  peak {memory:.0f} MiB{extra}"


def ratio_line(label: str, ratio: float, target: float, *, at_least: bool = False) -> str:
    ok = ratio >= target if at_least else ratio <= target
    sign = ">=" if at_least else "<="
    return f"  {label:<{WIDTH}} {ratio:8.2f}x  (target {sign} {target}) {'ok' if ok else 'OVER TARGET'}"


def bench_small(repo: Path, models: int, runs: int) -> None:
    print(f"lint {models} real-world-derived models, no cache (best of {runs}, in turn):")
    parse, lint = measure_pair(parse_code(repo), lint_code(repo, 1), runs)
    print(line("bare text_format.Parse loop", parse))
    print(line(f"tritoncfg lint --jobs 1 ({lint['findings']} findings)", lint))
    print(ratio_line("ratio lint / parse loop", lint["wall"] / parse["wall"], SMALL_TARGET))
    # the default: a process per core once a repository has a few hundred models (lintrun.py)
    parse, pooled = measure_pair(parse_code(repo), lint_code(repo, None), runs)
    print(line("bare text_format.Parse loop", parse))
    print(line("tritoncfg lint (default --jobs)", pooled))
    print(
        ratio_line("ratio default pool / parse loop", pooled["wall"] / parse["wall"], POOL_TARGET)
    )


SPIN = """
import time
start = time.perf_counter()
total = 0
for i in range(10_000_000):
    total += i
print(time.perf_counter() - start)
"""


def machine_scaling(cores: int) -> float:
    """The speed-up this machine gives `cores` busy Python processes over one (a plain loop in
    each): the most a pool can reach here. Virtual cores that share a physical one, or a busy
    host, give less than `cores`."""
    alone = min(
        float(subprocess.run([sys.executable, "-c", SPIN], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(2)
    )  # fmt: skip
    spinning = [
        subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True)
        for _ in range(cores)
    ]
    together = max(float(proc.communicate()[0]) for proc in spinning)
    return cores * alone / together


def bench_large(repo: Path, models: int, runs: int, cache: Path) -> None:
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    print(f"lint {models} real-world-derived models, {cores} cores (best of {runs}):")
    # the parse loop is run in turn with the lint of as many processes as cores (their ratio)
    parse, pooled_run = measure_pair(parse_code(repo), lint_code(repo, cores), runs)
    print(line("bare text_format.Parse loop, serial", parse))
    by_jobs: dict[int, float] = {}
    for jobs in range(1, cores + 1):
        run = pooled_run if jobs == cores else lint_run(repo, runs, jobs)
        by_jobs[jobs] = run["wall"]
        print(line(f"tritoncfg lint --jobs {jobs}", run))
    pooled = by_jobs[cores]
    print(ratio_line("ratio pool / serial parse loop", pooled / parse["wall"], POOL_TARGET))
    for jobs in range(2, cores + 1):
        speedup = by_jobs[1] / by_jobs[jobs]
        print(f"  {f'speed-up with {jobs} processes':<{WIDTH}} {speedup:8.2f}x  "
              f"({(speedup - 1) / (jobs - 1):.2f} per added core)")  # fmt: skip
    if cores > 1:
        label = f"the machine's own, {cores} busy processes"
        print(f"  {label:<{WIDTH}} {machine_scaling(cores):8.2f}x  (a plain loop in each)")
        # the pool's serial part: what the main process computes itself (discovery of the root,
        # reading the answers, routing, the result), not its waiting for the workers
        serial = pooled_run["main_cpu"]
        print(
            f"  {'main process CPU with the pool':<{WIDTH}} {serial:8.3f} s  "
            f"({serial / by_jobs[1]:.1%} of the serial lint: at most "
            f"{by_jobs[1] / serial:.0f}x on any number of cores)"
        )
    cold = lint_run(repo, 1, None, cache)
    print(line(f"cache: first lint, writing ({cold['relinted']} linted)", cold))
    warm = lint_run(repo, runs, None, cache)
    print(line(f"cache: unchanged re-lint ({warm['relinted']} linted)", warm))
    print(
        ratio_line(
            "speed-up of the cached re-lint", pooled / warm["wall"], CACHE_TARGET, at_least=True
        )
    )
    print(f"  {'(against the serial uncached lint)':<{WIDTH}} {by_jobs[1] / warm['wall']:8.2f}x")
    edited = sorted(repo.glob("*/config.pbtxt"))[models // 2]
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    one = lint_run(repo, 1, None, cache)
    print(line(f"cache: one config changed ({one['relinted']} linted)", one))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000, help="models of the small repository")
    parser.add_argument("--large", type=int, default=20000, help="models of the large repository")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the real_world corpus")
    parser.add_argument("--runs", type=int, default=1, help="best of this many runs")
    args = parser.parse_args(argv)
    configs = corpus_configs(args.corpus)
    print(f"{len(configs)} real-world configs from {args.corpus}")
    # as after `pip install`, which compiles bytecode: a checkout under PYTHONDONTWRITEBYTECODE=1
    # would compile the rule modules (about 0.06 s) in every timed lint
    import compileall

    compileall.compile_dir(str(ROOT / "tritoncfg"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="tritoncfg-scale-") as scratch:
        small, large = Path(scratch) / "small", Path(scratch) / "large"
        start = time.perf_counter()
        build(small, configs, args.models)
        build(large, configs, args.large)
        print(f"repositories written in {time.perf_counter() - start:.1f} s")
        bench_small(small, args.models, args.runs)
        bench_large(large, args.large, args.runs, Path(scratch) / "cache")
    return 0


if __name__ == "__main__":
    sys.exit(main())
