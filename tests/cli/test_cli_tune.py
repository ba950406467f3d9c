"""`tritoncfg tune`: the examples' classifier tuned for a p99 objective, written through the
generators' edit path (lint-clean, fmt-stable, comments kept); an objective nothing meets; the
highest throughput; usage errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import run

ROOT = Path(__file__).resolve().parents[2]
CURVE = "1:0.5,8:1.2,32:3.5"
SMALL = ("--requests", "2000", "--largest-batch", "16", "--max-instances", "2")


@pytest.fixture
def classifier(tmp_path: Path) -> Path:
    """The examples' repository with its model file built: the classifier lints clean."""
    pytest.importorskip("onnx")
    repository = tmp_path / "model_repository"
    shutil.copytree(ROOT / "examples" / "model_repository", repository)
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "make_models.py"),
            "--repository",
            str(repository),
        ],
        check=True,
        capture_output=True,
    )
    return repository / "classifier"


def test_tune_writes_a_config_that_lints_clean_and_is_fmt_stable(classifier: Path) -> None:
    config = classifier / "config.pbtxt"
    before = config.read_text()
    args = ("tune", str(classifier), "--slo-p99-ms", "2", "--rate", "3000", "--service-ms", CURVE)
    shown = run(*args, *SMALL)
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout.splitlines()
    assert table[0] == "objective: p99 <= 2 ms at 3,000 requests/s (2,000 requests each)"
    assert table[2].split()[0] == "1" and table[2].endswith("yes")
    assert "+++ " in shown.stdout and config.read_text() == before  # a diff, nothing written
    assert any(line.startswith("winner: ") for line in table)

    written = run(*args, *SMALL, "--write")
    assert written.returncode == 0, written.stderr
    after = config.read_text()
    assert after != before
    assert "# Wait at most 0.1 ms" in after and "# One class name per line" in after
    assert run("lint", str(classifier)).returncode == 0
    assert run("fmt", "--check", str(config)).returncode == 0
    again = run(*args, *SMALL)  # the written config is now the winner: nothing to change
    assert "already as generated; nothing to change" in again.stderr


def test_an_objective_nothing_meets_exits_1_and_writes_nothing(classifier: Path) -> None:
    config = classifier / "config.pbtxt"
    before = config.read_text()
    done = run(
        "tune",
        str(classifier),
        "--slo-p99-ms",
        "0.1",
        "--rate",
        "3000",
        "--service-ms",
        CURVE,
        *SMALL,
        "--write",
    )
    assert done.returncode == 1, done.stderr
    assert "no configuration tried meets p99 <= 0.1 ms at 3,000 requests/s" in done.stderr
    assert config.read_text() == before


def test_the_highest_throughput_within_the_objective(classifier: Path) -> None:
    done = run(
        "tune",
        str(classifier),
        "--slo-p99-ms",
        "3",
        "--max-throughput",
        "--service-ms",
        CURVE,
        "--requests",
        "2000",
        "--largest-batch",
        "16",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    trials = shown["trials"]
    assert all(t["meets"] for t in trials[:3])
    rates = [round(t["throughput"]) for t in trials if t["meets"]]
    # the rest by throughput; first the simplest of those within 2% of the best
    assert rates[1:] == sorted(rates[1:], reverse=True) and rates[0] >= 0.98 * max(rates)
    assert trials[0]["latency_ms"]["p99"] <= 3
    assert trials[0]["instances"] == 1  # the config's count unless --max-instances says more


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--slo-p99-ms", "2", "--service-ms", CURVE), "--rate or --max-throughput"),
        (("--slo-p99-ms", "2", "--rate", "5", "--max-throughput", "--service-ms", CURVE), "one of"),
        (("--slo-p99-ms", "0", "--rate", "5", "--service-ms", CURVE), "--slo-p99-ms must be"),
        (("--slo-p99-ms", "2", "--rate", "5"), "--service-ms or --from-perf"),
        (
            ("--slo-p99-ms", "2", "--rate", "5", "--service-ms", CURVE, "--max-instances", "10000"),
            "tune would try 10,000 instance counts (1 to 10,000 in steps of 1), more than 64:"
            " give --max-instances 64 or fewer",
        ),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    model = tmp_path / "classifier"
    shutil.copytree(ROOT / "examples" / "model_repository" / "classifier", model)
    done = run("tune", str(model), *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_gpu_memory_limits_the_instance_counts_tried(tmp_path: Path) -> None:
    from models.onnxkit import make_weighty

    model = tmp_path / "repo" / "big"
    make_weighty(model)  # 4 MiB of weights per instance
    (model / "config.pbtxt").write_text(
        'backend: "onnxruntime"\nmax_batch_size: 8\n'
        "instance_group [ { count: 1 kind: KIND_GPU gpus: [ 0 ] } ]\n"
    )
    # every configuration tried is in the table (--top); 9 MiB holds the weights of 2 instances
    args = ("tune", str(model), "--slo-p99-ms", "20", "--rate", "3000", "--service-ms", "1:1")
    args += ("--top", "1000")
    roomy = run(*args, "--requests", "2000", "--format", "json")
    assert roomy.returncode == 0, roomy.stderr
    assert max(t["instances"] for t in json.loads(roomy.stdout)["trials"]) == 4
    tight = run(*args, "--requests", "2000", "--format", "json", "--gpu-memory", "9MiB")
    assert tight.returncode == 0, tight.stderr
    assert max(t["instances"] for t in json.loads(tight.stdout)["trials"]) == 2
    none = run(*args, "--requests", "2000", "--gpu-memory", "3MiB")
    assert none.returncode == 1
    assert "the weights of 1 instance(s) do not fit in the GPU's memory (TC914)" in none.stderr
    (tmp_path / "repo" / "tritoncfg.toml").write_text('gpu-memory = "9MiB"\n')
    from_settings = run(*args, "--requests", "2000", "--format", "json")
    assert max(t["instances"] for t in json.loads(from_settings.stdout)["trials"]) == 2
    bad = run(*args, "--gpu-memory", "lots")
    assert bad.returncode == 2 and "--gpu-memory" in bad.stderr
