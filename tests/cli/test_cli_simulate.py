"""`tritoncfg simulate`: the examples' classifier served at a load, the overrides, the curve read
from a probe report or a perf_analyzer CSV, a trace file, and every input error (exit 2, file and
line, no traceback)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from clikit import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "model_repository" / "classifier"
CURVE = "1:0.5,8:1.2"


@pytest.fixture
def classifier(tmp_path: Path) -> Path:
    model = tmp_path / "classifier"
    shutil.copytree(EXAMPLE, model)
    return model


def _json(*args: str) -> dict[str, object]:
    done = run("simulate", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_config_as_written_at_a_rate(classifier: Path) -> None:
    shown = _json(str(classifier), "--rate", "2000", "--service-ms", CURVE, "--requests", "20000")
    assert shown["config"] == (
        "preferred [4, 8], max_queue_delay_microseconds 100, max_batch_size 8, 1 instance"
    )
    assert shown["served"] == 20_000 and shown["rejected"] == shown["timed_out"] == 0
    assert 1.0 < shown["mean_batch"] < 4.0  # type: ignore[operator]
    assert shown["throughput"] == pytest.approx(2000, rel=0.05)
    assert set(shown["batches"]) <= {str(b) for b in range(1, 9)}  # type: ignore[arg-type]


def test_the_same_seed_prints_the_same_and_text_names_the_setting(classifier: Path) -> None:
    args = (str(classifier), "--rate", "3000", "--service-ms", CURVE, "--requests", "5000")
    assert _json(*args, "--seed", "4") == _json(*args, "--seed", "4")
    done = run("simulate", *args)
    assert done.returncode == 0, done.stderr
    first, *rest = done.stdout.splitlines()
    assert first == (
        "classifier: preferred [4, 8], max_queue_delay_microseconds 100, max_batch_size 8, "
        "1 instance; poisson 3,000 requests/s"
    )
    assert any(line.startswith("total ") for line in rest)
    assert rest[-1].startswith("instance utilisation: ")


def test_overrides_replace_the_written_settings(classifier: Path) -> None:
    shown = _json(
        str(classifier),
        *("--rate", "2000", "--service-ms", CURVE, "--requests", "5000"),
        *("--max-batch-size", "16", "--preferred", "", "--max-queue-delay-us", "0"),
        *("--instances", "2"),
    )
    assert shown["config"] == (
        "preferred [16], max_queue_delay_microseconds 0, max_batch_size 16, 2 instances"
    )
    assert len(shown["utilisation"]) == 2  # type: ignore[arg-type]


def test_the_curve_from_a_probe_report_and_from_a_perf_csv(classifier: Path) -> None:
    report = classifier.parent / "probe.json"
    points = [
        {
            "batch_size": b,
            "status": "OK",
            "throughput": b / ms * 1000,
            "reasons": ["opt"],
            "latency_ms": {"p50": ms, "p90": ms * 1.2, "p99": ms * 1.5},
        }
        for b, ms in ((1, 0.5), (4, 0.8), (8, 1.2))
    ]
    report.write_text(json.dumps({"models": [{"model": "classifier", "points": points}]}))
    csv = classifier.parent / "perf.csv"
    csv.write_text(
        "Concurrency,Inferences/Second,p50 latency,p90 latency,p99 latency,Batch\n"
        "1,2000,500,600,750,1\n1,5000,800,960,1200,4\n1,6666,1200,1440,1800,8\n"
    )
    common = (str(classifier), "--rate", "2000", "--requests", "20000")
    from_report = _json(*common, "--from-perf", str(report))
    from_csv = _json(*common, "--from-perf", str(csv))
    assert from_report["compute_ms"] == from_csv["compute_ms"]
    compute = from_report["compute_ms"]
    assert compute["p99"] > compute["p50"] * 1.2  # type: ignore[index]


def test_a_trace_file(classifier: Path) -> None:
    trace = classifier.parent / "trace.txt"
    trace.write_text("0 4\n0.01\n0.02 2\n5\n")
    shown = _json(str(classifier), "--trace", str(trace), "--service-ms", "1:1")
    assert shown["served"] == 4
    assert shown["batches"] == {"4": 1, "3": 1, "1": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--service-ms", CURVE), "give the load: --rate or --trace"),
        (("--rate", "10"), "give the service times: --service-ms or --from-perf"),
        (("--rate", "10", "--service-ms", "1:x"), "--service-ms expects BATCH:MS pairs"),
        (("--rate", "10", "--service-ms", CURVE, "--preferred", "16"), "<= max_batch_size 8"),
        (("--rate", "10", "--service-ms", CURVE, "--preferred", "4,x"), "--preferred expects"),
        (("--rate", "0", "--service-ms", CURVE), "--rate must be above 0"),
        (("--rate", "10", "--from-perf", "missing.csv"), "missing.csv: cannot read"),
        (("--trace", "TRACE", "--service-ms", CURVE), "trace.txt:2:3: BATCH 'x'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    classifier: Path, args: tuple[str, ...], message: str
) -> None:
    trace = classifier.parent / "trace.txt"
    trace.write_text("1\n2 x\n")
    args = tuple(str(trace) if a == "TRACE" else a for a in args)
    done = run("simulate", str(classifier), *args, cwd=classifier.parent)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_gpus_is_a_count_or_lint_s_gpu_ids(classifier: Path) -> None:
    """`--gpus 2` and `--gpus 0,1` (lint's form) both run a GPU group on two GPUs."""
    config = classifier / "config.pbtxt"
    config.write_text(config.read_text().replace("KIND_CPU", "KIND_GPU"))
    args = (str(classifier), "--rate", "2000", "--service-ms", CURVE, "--requests", "5000")
    assert _json(*args)["config"].endswith(", 1 instance")  # type: ignore[union-attr]
    two = _json(*args, "--gpus", "2")
    assert two["config"].endswith(", 2 instances")  # type: ignore[union-attr]
    assert _json(*args, "--gpus", "0,1") == two
    for bad in ("none", "0", "0,x"):
        done = run("simulate", *args, "--gpus", bad)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "expects a number of GPUs (at least 1) or a comma-separated list" in done.stderr


def test_a_model_that_is_not_there(tmp_path: Path) -> None:
    done = run("simulate", str(tmp_path / "nope"), "--rate", "1", "--service-ms", CURVE)
    assert done.returncode == 2 and "no such file or directory" in done.stderr


def test_a_trace_request_larger_than_max_batch_size_is_refused(classifier: Path) -> None:
    trace = classifier.parent / "trace.txt"
    trace.write_text("0 4\n1 9\n")
    done = run("simulate", str(classifier), "--trace", str(trace), "--service-ms", CURVE)
    assert done.returncode == 2, done.stdout
    assert "trace.txt: request 2 has 9 rows, more than max_batch_size 8 allows" in done.stderr
    fits = run(
        "simulate",
        str(classifier),
        "--trace",
        str(trace),
        "--service-ms",
        CURVE,
        "--max-batch-size",
        "16",
    )
    assert fits.returncode == 0, fits.stderr


def test_a_sequence_model_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "stateful"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'name: "stateful"\nbackend: "python"\nmax_batch_size: 8\nsequence_batching { }\n'
    )
    done = run("simulate", str(model), "--rate", "10", "--service-ms", CURVE)
    assert done.returncode == 2, done.stdout
    assert (
        "model 'stateful' uses sequence_batching: the simulator models the dynamic" in done.stderr
    )
