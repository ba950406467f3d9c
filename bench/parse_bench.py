"""Benchmark tritoncfg's parser and start-up against bare protobuf text_format.

1. Parse: `tritoncfg.text.parse` over every config of a synthetic repository (see
   synthetic_repository.py), against a bare `text_format.Parse(text, ModelConfig())` loop over the
   same texts. Best of 3 each. Target: tritoncfg <= 1.5x text_format.
2. Start-up: wall time of a whole `python -m tritoncfg lint <one config>` process (a model that
   is not an ensemble, so no other config is read), against
   `python -c "import google.protobuf.text_format"`. Best of 5 each. Target: <= 3x.

Every generated config is first checked to parse with text_format, and tritoncfg's messages are
checked to equal text_format's. Exit status 1 if any of that fails; timings are only reported.

    python bench/parse_bench.py [--models 2000] [--seed 0] [--work DIR]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synthetic_repository import generate

ROOT = Path(__file__).resolve().parent.parent
PARSE_TARGET = 1.5
STARTUP_TARGET = 3.0
LINT_TARGET = 2.0
WIDTH = 40


def model_config_class() -> type[Any]:
    """tritoncfg's compiled ModelConfig; before that exists, tritonclient's, loaded by file path."""
    try:
        return importlib.import_module("tritoncfg.schema").ModelConfig  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        pass
    # By path, so tritonclient.grpc's __init__ (and grpc with it) is not imported.
    spec = importlib.util.find_spec("tritonclient")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("parse_bench: needs tritoncfg.schema or tritonclient for ModelConfig")
    path = Path(next(iter(spec.submodule_search_locations))) / "grpc" / "model_config_pb2.py"
    module_spec = importlib.util.spec_from_file_location("model_config_pb2", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    print(f"note: tritoncfg.schema not found; using {path}")
    return module.ModelConfig  # type: ignore[no-any-return]


def tritoncfg_parse() -> Callable[[str], Any] | None:
    try:
        return importlib.import_module("tritoncfg.text").parse  # type: ignore[no-any-return]
    except (ImportError, AttributeError) as error:
        print(f"note: tritoncfg.text.parse not available ({error}); its half is skipped")
        return None


def write_repository(root: Path, models: int, seed: int) -> list[Path]:
    """Write the synthetic repository under root; each model gets config.pbtxt and 1/."""
    paths = []
    for name, text in generate(models, seed):
        (root / name / "1").mkdir(parents=True, exist_ok=True)
        path = root / name / "config.pbtxt"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def best_time(action: Callable[[], object], runs: int) -> float:
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def verify(texts: dict[Path, str], config_class: type[Any], parse: Any) -> list[str]:
    """Problems found: a config text_format rejects, or tritoncfg disagreeing with text_format."""
    from google.protobuf import text_format

    problems = []
    for path, text in texts.items():
        try:
            expected = text_format.Parse(text, config_class())
        except text_format.ParseError as error:
            problems.append(f"{path}: generated config rejected by text_format: {error}")
            continue
        if parse is None:
            continue
        result = parse(text, str(path))
        if result.errors or result.message is None:
            problems.append(f"{path}: tritoncfg reported {result.errors!r}")
        elif result.message.SerializeToString(deterministic=True) != expected.SerializeToString(
            deterministic=True
        ):
            problems.append(f"{path}: tritoncfg's message differs from text_format's")
    return problems


def ratio_line(label: str, ratio: float, target: float) -> str:
    verdict = "ok" if ratio <= target else "OVER TARGET"
    return f"  {label:<{WIDTH}} {ratio:7.2f}x  (target <= {target}) {verdict}"


def bench_parse(texts: list[str], config_class: type[Any], parse: Any, runs: int) -> float:
    from google.protobuf import text_format

    def with_text_format() -> None:
        for text in texts:
            text_format.Parse(text, config_class())

    def with_tritoncfg() -> None:
        for text in texts:
            parse(text)

    print(f"parse {len(texts)} configs, best of {runs}:")
    baseline = best_time(with_text_format, runs)
    print(f"  {'protobuf text_format.Parse':<{WIDTH}} {baseline:7.3f} s")
    if parse is None:
        print(f"  {'tritoncfg.text.parse':<{WIDTH}} skipped (not available)")
        return baseline
    ours = best_time(with_tritoncfg, runs)
    print(f"  {'tritoncfg.text.parse':<{WIDTH}} {ours:7.3f} s")
    print(ratio_line("ratio", ours / baseline, PARSE_TARGET))
    return baseline


def bench_lint(root: Path, models: int, baseline: float, runs: int) -> None:
    """The whole lint pipeline (discovery, reading, parsing, every rule) vs the bare parse loop."""
    from tritoncfg.api import lint

    found: list[Any] = []

    def run() -> None:
        found[:] = lint(root).diagnostics

    ours = best_time(run, runs)
    print(f"lint {models} models (discover + read + parse + all rules), best of {runs}:")
    print(f"  {'tritoncfg.api.lint(repository)':<{WIDTH}} {ours:7.3f} s  ({len(found)} findings)")
    print(ratio_line("ratio to bare text_format.Parse", ours / baseline, LINT_TARGET))


def process_time(command: list[str], runs: int) -> tuple[float, subprocess.CompletedProcess[str]]:
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - start)
    return best, completed


def plain_config(texts: dict[Path, str]) -> Path:
    """A model that is neither an ensemble nor an ensemble's step: lint of an ensemble reads its
    steps' configs, and lint of a step also checks the ensembles that run it (as a pre-commit
    hook must). bench_startup also lints it in a repository of its own, as lint of one config in
    a large repository scans the repository for ensembles that run it: more than start-up."""
    steps = set(re.findall(r'model_name: "([^"]+)"', "\n".join(texts.values())))
    return next(
        path
        for path, text in texts.items()
        if 'platform: "ensemble"' not in text and path.parent.name not in steps
    )


def bench_startup(source: Path, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tritoncfg-startup-") as scratch:
        config = Path(scratch) / source.parent.name / "config.pbtxt"
        (config.parent / "1").mkdir(parents=True)
        config.write_bytes(source.read_bytes())
        _bench_startup(config, runs)


def _bench_startup(config: Path, runs: int) -> None:
    # as after `pip install` (which compiles bytecode): an editable install under
    # PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module on every run
    import compileall

    compileall.compile_dir(str(ROOT / "tritoncfg"), quiet=1)
    print(f"process wall time, best of {runs} (bytecode compiled, as a pip install leaves it):")
    baseline_code = "import google.protobuf.text_format"
    baseline, _ = process_time([sys.executable, "-c", baseline_code], runs)
    print(f"  {f'python -c {baseline_code!r}':<{WIDTH}} {baseline:7.3f} s")
    lint, completed = process_time([sys.executable, "-m", "tritoncfg", "lint", str(config)], runs)
    # 0 and 1 are verdicts; anything else, or a traceback (also exit 1), means it did not run.
    if (
        completed.returncode not in (0, 1)
        or "Traceback (most recent call last)" in completed.stderr
    ):
        tail = (completed.stderr or completed.stdout).strip().splitlines()[-1:]
        print(
            f"  {'python -m tritoncfg lint':<{WIDTH}} skipped (exit {completed.returncode}: {tail})"
        )
        return
    print(f"  {'python -m tritoncfg lint <config>':<{WIDTH}} {lint:7.3f} s  ({config.parent.name})")
    print(ratio_line("ratio", lint / baseline, STARTUP_TARGET))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000, help="models to generate (%(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (%(default)s)")
    parser.add_argument(
        "--work",
        type=Path,
        metavar="DIR",
        help="write the repository into DIR (new or empty) and keep it",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # tritoncfg from this checkout, installed or not
    config_class = model_config_class()
    parse = tritoncfg_parse()
    with tempfile.TemporaryDirectory(prefix="tritoncfg-bench-") as scratch:
        root: Path = args.work or Path(scratch)
        paths = write_repository(root, args.models, args.seed)
        texts = {path: path.read_text(encoding="utf-8") for path in paths}
        lines = sum(text.count("\n") for text in texts.values())
        size = sum(len(text.encode()) for text in texts.values())
        print(f"repository: {len(paths)} models, {lines} lines, {size / 1e6:.1f} MB in {root}")
        problems = verify(texts, config_class, parse)
        for problem in problems[:10]:
            print(f"error: {problem}")
        if problems:
            print(f"error: {len(problems)} configs failed verification")
        else:
            print(
                "verified: every config parses" + (", same message as text_format" if parse else "")
            )
        baseline = bench_parse(list(texts.values()), config_class, parse, runs=3)
        if parse is not None:
            bench_lint(root, len(paths), baseline, runs=3)
        bench_startup(plain_config(texts), runs=5)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
