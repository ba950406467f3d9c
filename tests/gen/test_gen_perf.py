"""`gen dynamic-batching --from-perf`: perf_analyzer CSVs (as `-f` writes them) and probe reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run
from gen.genkit import PYTHON_MODEL, corpus_model, round_trip

from tritoncfg.gen.change import GenError
from tritoncfg.gen.perf import Point, choose, read_perf
from tritoncfg.text import parse

# perf_analyzer's columns in its order (report_writer.cc), server statistics included
HEADER = (
    "Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,"
    "Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,"
    "p50 latency,p90 latency,p95 latency,p99 latency"
)
# batch size -> (throughput at concurrency 1, at concurrency 2), p99 at concurrency 1 (µs)
SWEEP = {
    1: (900.0, 1000.0, 1100),
    2: (1800.0, 1900.0, 1150),
    4: (3300.0, 3500.0, 1250),
    8: (4800.0, 5000.0, 1600),
    16: (5100.0, 5300.0, 3100),
}


def _rows(batch: int) -> list[str]:
    low, high, p99 = SWEEP[batch]
    return [
        f"1,{low},12,80,40,10,{p99 - 300},9,5,{p99 - 200},{p99 - 100},{p99 - 50},{p99}",
        f"2,{high},12,80,900,10,{p99 - 300},9,5,{p99 + 700},{p99 + 800},{p99 + 850},{p99 + 900}",
    ]


def _sweep_csv(path: Path) -> Path:
    """One CSV of the whole sweep: perf_analyzer's rows, sorted by Inferences/Second as it
    writes them, with the user's `Batch` column (the -b of each run) appended."""
    rows = sorted(
        (row + f",{b}" for b in SWEEP for row in _rows(b)), key=lambda r: float(r.split(",")[1])
    )
    path.write_text("\n".join([HEADER + ",Batch", *rows]) + "\n")
    return path


def test_csv_sweep_chooses_the_sizes_and_with_a_budget_the_simulated_delay(
    tmp_path: Path,
) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    csv = _sweep_csv(tmp_path / "sweep.csv")
    args = ("dynamic-batching", "--from-perf", str(csv))
    _, after = round_trip(model, *args)
    block = parse(after).message.dynamic_batching
    assert list(block.preferred_batch_size) == [8, 16]  # 5000 >= 90% of 5300
    assert block.max_queue_delay_microseconds == 0  # the rule sets no delay
    shown = run("gen", *args, str(model))
    assert "the smallest batch size reaching 90% of the best measured throughput" in shown.stderr
    assert "batch 16: 5,300.0 infer/s, p99 3.100 ms" in shown.stderr
    budget = run("gen", *args, "--latency-budget-ms", "5", str(model))
    assert budget.returncode == 0, budget.stderr
    # tune's pick (tests/tune/test_advice.py): the old rule's delay, 5 ms - 3.1 ms at batch 16,
    # is not what the simulation needs
    assert "max_queue_delay_microseconds: 1900" not in budget.stdout
    assert "predicted at the highest load within the budget" in budget.stderr
    assert "batch 16: 5,300.0 infer/s, p99 3.100 ms" in budget.stderr


def test_one_csv_per_batch_size(tmp_path: Path) -> None:
    specs = []
    for batch in SWEEP:
        path = tmp_path / f"b{batch}.csv"
        path.write_text("\n".join([HEADER, *_rows(batch)]) + "\n")
        specs.append(f"{batch}={path}")
    points = [p for spec in specs for p in read_perf(spec, "m")]
    assert [(p.batch_size, p.throughput, p.latency_us) for p in points][3] == (8, 5000.0, 1600.0)
    assert choose(points, 64).preferred == (8, 16)


def test_probe_report(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    points = [
        {
            "label": f"b={b} INPUT0={b}x16",
            "batch_size": b,
            "shapes": {"INPUT0": [b, 16]},
            "status": "OK",
            "reason": None,
            "latency_ms": {"p50": p99 / 2000, "p90": p99 / 1500, "p99": p99 / 1000},
            "throughput": high,
            "max_abs_error": None,
            "max_rel_error": None,
        }
        for b, (_, high, p99) in SWEEP.items()
    ]
    points.append({**points[0], "batch_size": 32, "status": "FAIL", "throughput": None})
    report = {
        "tool": {"name": "tritoncfg", "version": "0.1.0"},
        "kind": "tritoncfg-probe-report",
        "schema_version": 1,
        "models": [
            {
                "model": "identity_fp32",
                "path": str(model),
                "runner": "python",
                "status": "FAIL",
                "max_batch_size": 64,
                "points": points,
            }
        ],
    }
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(report))
    _, after = round_trip(model, "dynamic-batching", "--from-perf", str(path))
    block = parse(after).message.dynamic_batching
    assert list(block.preferred_batch_size) == [8, 16]  # the FAIL point at 32 does not count
    assert block.max_queue_delay_microseconds == 0


def test_choose_rules() -> None:
    flat = [Point(1, 100.0, 10.0), Point(2, 105.0, 12.0), Point(4, 300.0, 20.0)]
    assert choose(flat, 8).preferred == (4,)  # an early plateau does not end the search
    growing = [Point(1, 100.0, 10.0), Point(4, 400.0, 20.0), Point(16, 900.0, 30.0)]
    assert choose(growing, 8).preferred == (4,)  # 16 is above max_batch_size
    assert choose(growing, 8).delay_us is None
    with pytest.raises(GenError, match="at least two batch sizes"):
        choose([Point(1, 100.0, None), Point(16, 900.0, None)], 8)


def test_bad_input_is_refused_with_file_and_line(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    bad = tmp_path / "bad.csv"
    bad.write_text("Concurrency,Inferences/Second,p99 latency,Batch\n1,abc,100,1\n")
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(bad))
    assert done.returncode == 2  # bad input is a usage error
    assert f"{bad}:2:3: 'Inferences/Second': 'abc' is not a number" in done.stderr
    short = tmp_path / "short.csv"
    short.write_text("Concurrency,Inferences/Second,p99 latency,Batch\n1,10,100,1\n2,20,100\n")
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(short))
    assert done.returncode == 2 and f"{short}:3:9: 'Batch': missing" in done.stderr
    zero = tmp_path / "zero.csv"
    zero.write_text("Concurrency,Inferences/Second,p99 latency,Batch\n1,10,100,0\n")
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(zero))
    assert done.returncode == 2 and f"{zero}:2:10: 'Batch': '0' is out of range" in done.stderr
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(other))
    assert done.returncode == 2 and f"{other}:1:1: not a perf_analyzer -f CSV" in done.stderr
    missing = run("gen", "dynamic-batching", str(model), "--from-perf", str(tmp_path / "no.csv"))
    assert missing.returncode == 2 and "no.csv: cannot read: No such file" in missing.stderr
    one = tmp_path / "one.csv"
    one.write_text("Concurrency,Inferences/Second,p99 latency,Batch\n1,10,100,1\n")
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(one))
    assert done.returncode == 2 and "at least two batch sizes" in done.stderr
    batch = run("gen", "dynamic-batching", str(model), "--from-perf", f"0={one}")
    assert batch.returncode == 2 and "expected B=FILE with B a batch size >= 1" in batch.stderr
    both = run("gen", "dynamic-batching", str(model), "--from-perf", str(other), "--preferred", "4")
    assert both.returncode == 2


def test_the_knee_at_max_batch_size_writes_no_preferred_size(tmp_path: Path) -> None:
    from gen.genkit import ONNX_MODEL

    model = corpus_model(ONNX_MODEL, tmp_path / "repo")  # max_batch_size 8; 16 is not usable
    csv = _sweep_csv(tmp_path / "sweep.csv")
    shown = run("gen", "dynamic-batching", str(model), "--from-perf", str(csv))
    assert shown.returncode == 0, shown.stderr
    assert "which Triton already prefers: no preferred_batch_size written" in shown.stderr
    assert (
        "already as generated; nothing to change" in shown.stderr
    )  # dynamic_batching { } is there


def test_a_json_syntax_error_names_its_line_and_column(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    path = tmp_path / "probe.json"
    path.write_text('{\n  "models": [\n    {"model": "m",}\n  ]\n}\n')
    done = run("gen", "dynamic-batching", str(model), "--from-perf", str(path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{path}:3:19: invalid JSON: Expecting property name" in done.stderr


@pytest.mark.parametrize("text", ['{"models": {"m": 1}}', '{"models": [1]}', "[1]", "{}"])
def test_a_malformed_probe_report_is_refused(text: str, tmp_path: Path) -> None:
    path = tmp_path / "probe.json"
    path.write_text(text)
    with pytest.raises(GenError, match="not a tritoncfg probe report"):
        read_perf(str(path), "m")


def test_the_latency_is_named_by_the_percentile_measured(tmp_path: Path) -> None:
    """A CSV without `p99 latency` (perf_analyzer writes the percentiles it was asked for): the
    notes and the rule name the one used, and thousands are grouped as everywhere else."""
    csv = tmp_path / "p95.csv"
    csv.write_text(
        "Concurrency,Inferences/Second,p50 latency,p95 latency,Batch\n"
        "1,950.5,900,1000,1\n1,1880.4,950,1100,2\n1,3400.0,1000,1300,4\n"
    )
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    shown = run("gen", "dynamic-batching", str(model), "--from-perf", str(csv))
    assert shown.returncode == 0, shown.stderr
    assert "batch 2: 1,880.4 infer/s, p95 1.100 ms" in shown.stderr
    assert "batch 4: 3,400.0 infer/s, p95 1.300 ms" in shown.stderr
    assert "p99" not in shown.stderr
