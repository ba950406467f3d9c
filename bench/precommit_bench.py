"""Benchmark the pre-commit shape: `tritoncfg lint one/config.pbtxt` in a large repository.

A pre-commit hook lints the configs a commit changed, and lint of one config also checks the
ensembles that run it (so a step's change that breaks its ensemble fails the commit): that
look for dependents must not cost a parse of the whole repository. Wall time of a whole
`python -m tritoncfg lint <config>` process run from the repository's folder (the lint cache
on, as pre-commit runs it: the best run is one the cache serves), against
`python -c "import google.protobuf.text_format"`, best of `--runs`, for the same model alone in
a repository and inside a synthetic repository of `--models` models (synthetic_repository.py,
a sixth of them ensembles). Target: <= 3x in both. Timings are printed, never asserted.

    python bench/precommit_bench.py [--models 2000] [--runs 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import compileall
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic_repository import generate

ROOT = Path(__file__).resolve().parent.parent
TARGET = 3.0
WIDTH = 44


def process_time(
    command: list[str], runs: int, cwd: Path
) -> tuple[float, float, float, subprocess.CompletedProcess[str]]:
    """The best and the first wall time of `runs` runs in `cwd`, and the least CPU time (user
    and system: steadier than wall time on a busy machine), with this checkout's tritoncfg
    first on the path."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    times, cpu = [], []
    completed = None
    for _ in range(runs):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        completed = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
        times.append(time.perf_counter() - start)
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime)
    assert completed is not None
    return min(times), times[0], min(cpu), completed


def write_repository(root: Path, configs: dict[str, str]) -> None:
    for name, text in configs.items():
        (root / name / "1").mkdir(parents=True, exist_ok=True)
        (root / name / "config.pbtxt").write_text(text, encoding="utf-8")


def pick_models(configs: dict[str, str]) -> tuple[str, str]:
    """A plain model (neither an ensemble nor a step of one) and a step that ensembles run."""
    steps = re.findall(r'model_name: "([^"]+)"', "\n".join(configs.values()))
    plain = next(
        name
        for name, text in configs.items()
        if 'platform: "ensemble"' not in text and name not in steps
    )
    return plain, max(sorted(set(steps)), key=steps.count)


def lint_time(config: Path, runs: int, project: Path) -> tuple[float, float, float] | None:
    """`tritoncfg lint CONFIG` run from `project` (as pre-commit runs it from the top of the
    project: the cache, .tritoncfg_cache/, is kept there)."""
    command = [sys.executable, "-m", "tritoncfg", "lint", str(config)]
    best, first, cpu, completed = process_time(command, runs, project)
    # 0 and 1 are verdicts; anything else, or a traceback (also exit 1), means it did not run
    if completed.returncode not in (0, 1) or "Traceback" in completed.stderr:
        tail = (completed.stderr or completed.stdout).strip().splitlines()[-1:]
        print(f"  lint {config}: did not run (exit {completed.returncode}: {tail})")
        return None
    return best, first, cpu


def row(label: str, times: tuple[float, float, float], baseline: tuple[float, float]) -> None:
    best, first, cpu = times
    ratio = best / baseline[0]
    verdict = "ok" if ratio <= TARGET else "OVER TARGET"
    print(
        f"  {label:<{WIDTH}} {best:7.3f} s  {ratio:6.2f}x  (target <= {TARGET}) {verdict}"
        f"  [CPU time {cpu / baseline[1]:.2f}x; first run, cache cold: {first / baseline[0]:.1f}x]"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000, help="models (%(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="best of (%(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (%(default)s)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # tritoncfg from this checkout, installed or not
    from tritoncfg.repository.reuse import SETTLE_NS

    # as after `pip install` (which compiles bytecode): an editable install under
    # PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module on every run
    compileall.compile_dir(str(ROOT / "tritoncfg"), quiet=1)
    configs = dict(generate(args.models, args.seed))
    plain, step = pick_models(configs)
    runs = args.runs
    with tempfile.TemporaryDirectory(prefix="tritoncfg-precommit-") as folder:
        scratch = Path(folder)
        alone, large = scratch / "alone", scratch / "large"
        write_repository(alone, {plain: configs[plain]})
        write_repository(large, configs)
        # the cache trusts a file's stamp only once it is older than its settling time
        time.sleep(SETTLE_NS / 1e9 + 0.2)
        code = "import google.protobuf.text_format"
        cases = [
            (f"lint {plain} (1-model repository)", alone / plain),
            (f"lint {plain} ({args.models}-model repository)", large / plain),
            (f"lint {step} (a step, {args.models} models)", large / step),
        ]
        measured = []
        baseline = cpu = math.inf
        for label, model in cases:
            # the baseline between the cases: on a shared machine, the least of all its runs
            wall, _, used, _ = process_time([sys.executable, "-c", code], runs, scratch)
            baseline, cpu = min(baseline, wall), min(cpu, used)
            times = lint_time(model / "config.pbtxt", runs, scratch)
            if times is None:
                return 1
            measured.append((label, times))
        print(f"process wall time, best of {runs} (bytecode compiled; the cache, run to run):")
        print(f"  {f'python -c {code!r}':<{WIDTH}} {baseline:7.3f} s")
        for label, times in measured:
            row(label, times, (baseline, cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
