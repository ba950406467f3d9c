"""`gen dynamic-batching --from-perf` on a real probe report: `tritoncfg probe --format json
--output r.json` on a real ONNX model (onnx.helper) run by real ONNX Runtime, then `gen` reads
the `opt` shape point of each batch size from that file, as `probe --suggest` does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clikit import run
from gen.genkit import round_trip

from tritoncfg.text import parse

pytest.importorskip("onnxruntime")

from probe.probekit import FAST, TensorProto, config_model, identity_model

CONFIG = """\
name: "seq_model"
backend: "onnxruntime"
max_batch_size: 8
input [
  {
    name: "x"
    data_type: TYPE_FP32
    dims: [ -1 ]
  }
]
output [
  {
    name: "x_out"
    data_type: TYPE_FP32
    dims: [ -1 ]
  }
]
dynamic_batching {
  preferred_batch_size: [ 4 ]
}
instance_group [
  {
    kind: KIND_CPU
  }
]
"""


def probed(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    model = config_model(tmp_path / "repo", "seq_model", CONFIG)
    identity_model(model / "1" / "model.onnx", [("x", TensorProto.FLOAT, ["N", "seq"])])
    report = tmp_path / "r.json"
    # the declared sizes (1, 4, 8), every point counted stable (3 runs each: too few to be)
    done = run(
        "probe", str(model), "--dim", "seq=2:8:32", *FAST, "--batch-sizes", "declared",
        "--stability-percentage", "100000", "-f", "json", "--output", str(report),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return model, json.loads(report.read_text())


def test_gen_reads_the_opt_point_of_each_batch_size_from_a_real_report(tmp_path: Path) -> None:
    model, report = probed(tmp_path)
    points = report["models"][0]["points"]
    opt = {p["batch_size"]: p for p in points if "opt" in p["reasons"]}
    assert sorted(opt) == [1, 4, 8] and {p["status"] for p in points} == {"OK"}
    assert all(p["shapes"]["x"][1] == 8 for p in opt.values())  # seq at opt
    shown = run("gen", "dynamic-batching", str(model), "--from-perf", str(tmp_path / "r.json"))
    assert shown.returncode == 0, shown.stderr
    assert "curve: 3 batch sizes measured, 3 stable" in shown.stderr
    rate = {b: f"{p['throughput']:,.1f}" for b, p in opt.items()}
    for batch in (1, 4, 8):
        assert f"batch {batch}: {rate[batch]} infer/s" in shown.stderr


def test_the_budget_uses_the_reports_tail_and_the_written_config_is_clean(tmp_path: Path) -> None:
    """With a budget gen writes tune's pick on the report's curve (tritoncfg/tune/advice.py);
    a point of 3 samples has no p99, so its time is the tail there is: their max."""
    from tritoncfg.gen.perf import read_perf
    from tritoncfg.tune.advice import advise
    from tritoncfg.tune.batcher import from_model_config

    model, report = probed(tmp_path)
    opt = {p["batch_size"]: p for p in report["models"][0]["points"] if "opt" in p["reasons"]}
    budget_ms = 1000.0
    args = ("dynamic-batching", "--from-perf", str(tmp_path / "r.json"))
    _, after = round_trip(model, *args, "--latency-budget-ms", f"{budget_ms:g}")
    block = parse(after).message.dynamic_batching
    chosen = list(block.preferred_batch_size) or [8]  # none written: max_batch_size
    assert set(chosen) <= set(opt)
    latency = opt[chosen[-1]]["latency_ms"]  # at the largest preferred size
    assert latency["p99"] is None  # 3 samples: the tail there is is their max
    points = read_perf(str(tmp_path / "r.json"), "seq_model")
    assert points[-1].latency_us == pytest.approx(opt[8]["latency_ms"]["max"] * 1000.0)
    pick = advise(points, from_model_config(parse(CONFIG).message), budget_ms)
    assert pick.meets and chosen == list(pick.preferred)
    assert block.max_queue_delay_microseconds == pick.config.delay_us
    _, notes = run_gen_notes(model, tmp_path)
    assert f"max of 3 {latency['max']:.3f} ms" in notes


def run_gen_notes(model: Path, tmp_path: Path) -> tuple[int, str]:
    shown = run("gen", "dynamic-batching", str(model), "--from-perf", str(tmp_path / "r.json"))
    return shown.returncode, shown.stderr


def test_unstable_points_are_left_out_and_the_notes_say_so(tmp_path: Path) -> None:
    from tritoncfg.gen.perf import read_probe_report

    def point(batch: int, rate: float, stable: bool) -> dict[str, Any]:
        latency = {"p50": 1.0, "p90": 1.5, "p95": 1.8, "p99": None, "max": 2.0, "mean": 1.1}
        stability = {"stable": stable, "windows": 3, "window_p50_ms": {"min": 1, "max": 1}, "cv": 0}
        return {"batch_size": batch, "status": "OK", "reasons": ["1"], "throughput": rate,
                "latency_ms": latency, "samples": 40, "stability": stability}  # fmt: skip

    text = json.dumps({"models": [{"model": "m", "points": [
        point(1, 100.0, True), point(2, 900.0, False), point(4, 300.0, True),
    ]}]})  # fmt: skip
    notes: list[str] = []
    found = read_probe_report(tmp_path / "r.json", text, "m", notes)
    assert [(p.batch_size, p.latency_us, p.percentile) for p in found] == [
        (1, 1800.0, "p95"),
        (4, 1800.0, "p95"),
    ]  # 40 samples: p95 is the tail they support
    assert notes == ["curve: 3 batch sizes measured, 2 stable; left out as unstable: batch 2"]


def test_a_step_is_read_from_its_ensembles_points(tmp_path: Path) -> None:
    from tritoncfg.gen.perf import read_probe_report

    def point(step: str, batch: int, rate: float) -> dict[str, Any]:
        latency = {"p50": 1.0, "p90": 1.5, "p99": 2.0}
        return {"step": step, "batch_size": batch, "status": "OK", "reasons": ["1"],
                "throughput": rate, "latency_ms": latency}  # fmt: skip

    entry = {"model": "pipeline", "runner": "ensemble", "points": [
        point("preprocess", 1, 10.0), point("classifier", 1, 100.0),
        point("preprocess", 8, 20.0), point("classifier", 8, 700.0),
    ]}  # fmt: skip
    text = json.dumps({"models": [entry]})
    found = read_probe_report(tmp_path / "r.json", text, "classifier")
    assert [(p.batch_size, p.throughput, p.latency_us) for p in found] == [
        (1, 100.0, 2000.0),
        (8, 700.0, 2000.0),
    ]
