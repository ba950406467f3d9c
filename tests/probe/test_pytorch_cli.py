"""`tritoncfg probe` on TorchScript models end to end: real `torch.jit` models on disk, the real
CLI, real worker processes, torch's CPU build; every JSON report validated against the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clikit import run

from tritoncfg.probe.report import schema

pytest.importorskip("torch")
jsonschema = pytest.importorskip("jsonschema")

from probe.torchkit import Double, indexed_model, torch_repository  # noqa: E402

EVERY = [f"b={b} INPUT__0={b}x4" for b in range(1, 9)]


def validated(stdout: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(stdout)
    jsonschema.Draft202012Validator(schema()).validate(document)
    return document


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three models of torchkit, and three more: KIND_GPU, a file torch cannot load, a
    config with an input the model does not take."""
    root = torch_repository(tmp_path_factory.mktemp("torch") / "repo")
    indexed_model(root, "gpu_model", Double(), kind="KIND_GPU")
    broken = indexed_model(root, "broken", Double())
    (broken / "1" / "model.pt").write_bytes(b"not a TorchScript archive")
    miscounted = indexed_model(root, "miscounted", Double())
    config = (miscounted / "config.pbtxt").read_text(encoding="utf-8")
    config = config.replace(
        'input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]',
        'input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 4 ] },'
        ' { name: "INPUT__1" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    )
    (miscounted / "config.pbtxt").write_text(config, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def report(repository: Path) -> dict[str, dict[str, Any]]:
    """One JSON probe of every model (a worker per model imports torch: seconds each)."""
    done = run("probe", str(repository), "--format", "json", "--runs", "2", "--jobs", "2")
    assert done.returncode == 1, done.stdout + done.stderr  # past_four FAILs
    return {m["model"]: m for m in validated(done.stdout)["models"]}


def test_a_healthy_torchscript_model_runs_at_every_batch_size(
    report: dict[str, dict[str, Any]],
) -> None:
    healthy = report["healthy"]
    assert healthy["runner"] == "pytorch" and healthy["status"] == "OK"
    assert [(p["label"], p["status"]) for p in healthy["points"]] == [(x, "OK") for x in EVERY]
    point = healthy["points"][7]
    assert point["output_shapes"] == {"OUTPUT__0": [8, 4]}
    assert point["output_dtypes"] == {"OUTPUT__0": "TYPE_FP32"}
    assert point["latency_ms"]["p50"] > 0 and point["throughput"] > 0
    facts = healthy["runtime"]
    assert facts["runtime"] == "pytorch" and facts["version"].startswith("2.13.0")
    assert facts["device"] == "cpu"
    assert facts["naming"] == {"inputs": "NAMED_INDEX", "outputs": "NAMED_INDEX"}
    assert facts["options"]["inference_mode"] is True
    assert facts["options"]["optimized_execution"] is True


def test_the_twin_that_fails_past_batch_four_fails_there_with_torchs_message(
    report: dict[str, dict[str, Any]],
) -> None:
    twin = report["past_four"]
    assert twin["status"] == "FAIL"
    statuses = [(p["label"], p["status"]) for p in twin["points"]]
    assert statuses == [(x, "OK" if i < 4 else "FAIL") for i, x in enumerate(EVERY)]
    reason = twin["points"][4]["reason"]
    assert reason == (
        "PyTorch execute failure: RuntimeError: index 4 is out of bounds for dimension 0 "
        "with size 4"
    )  # torch's own last line, without the TorchScript interpreter's traceback


def test_two_inputs_of_different_types_bind_by_forward_argument_names(
    report: dict[str, dict[str, Any]],
) -> None:
    two = report["two_types"]
    assert two["status"] == "OK", two
    assert two["runtime"]["naming"] == {
        "inputs": "FORWARD_ARGUMENT",
        "outputs": "STRICT_CONFIG_ORDERING",
    }
    last = two["points"][-1]
    assert last["output_dtypes"] == {"product": "TYPE_FP32", "next_ids": "TYPE_INT64"}
    assert last["output_shapes"] == {"product": [8, 3], "next_ids": [8, 3]}


def test_the_table_names_the_failing_point_and_the_model(repository: Path) -> None:
    done = run("probe", str(repository / "past_four"), "--runs", "1")
    assert done.returncode == 1, done.stderr
    assert "past_four [pytorch] FAIL" in done.stdout
    failing = [line for line in done.stdout.splitlines() if "FAIL" in line and "b=" in line]
    assert failing[0].lstrip().startswith("b=5 INPUT__0=5x4"), done.stdout
    assert "index 4 is out of bounds" in failing[0] or "│" in failing[0]  # a narrow table cuts it
    # the model's line says where it stops running, with torch's own message in full
    assert (
        "runs at 1-4; fails from 5: PyTorch execute failure: RuntimeError: index 4 is out of bounds"
        in (" ".join(done.stdout.split()))
    ), done.stdout
    assert "4 OK, 4 FAIL" in done.stdout


def test_kind_gpu_without_cuda_runs_on_the_cpu_and_says_so(
    report: dict[str, dict[str, Any]],
) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("torch has a CUDA device here: the GPU test covers KIND_GPU")
    model = report["gpu_model"]
    assert [p["status"] for p in model["points"]] == ["OK"] * 8
    assert model["runtime"]["device"] == "cpu"
    assert "KIND_GPU, but torch has no CUDA device here" in model["runtime"]["notes"][0]


def test_a_file_torch_cannot_load_fails_every_point_with_torchs_message(
    report: dict[str, dict[str, Any]],
) -> None:
    points = report["broken"]["points"]
    assert len(points) == 8 and {p["status"] for p in points} == {"FAIL"}
    assert points[0]["reason"].startswith("PyTorch cannot load model.pt: PytorchStreamReader")


def test_a_config_the_backend_refuses_fails_with_its_message(
    report: dict[str, dict[str, Any]],
) -> None:
    points = report["miscounted"]["points"]
    assert len(points) == 8 and {p["status"] for p in points} == {"FAIL"}
    assert points[0]["reason"] == (
        "Triton would not load it: unable to load model 'miscounted', configuration expects 2 "
        "inputs, model provides 1 (pytorch backend)"
    )


def test_an_aoti_model_is_skipped_with_the_runtimes_probe_runs(tmp_path: Path) -> None:
    (tmp_path / "aoti" / "1").mkdir(parents=True)
    (tmp_path / "aoti" / "1" / "model.pt2").write_bytes(b"\0")
    (tmp_path / "aoti" / "config.pbtxt").write_text(
        'platform: "torch_aoti"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
        encoding="utf-8",
    )
    done = run("probe", str(tmp_path / "aoti"), "-f", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    model = validated(done.stdout)["models"][0]
    assert model["runner"] is None
    assert model["reason"] == (
        "pytorch (torch_aoti) backend: probe runs ONNX Runtime (model.onnx), TensorRT "
        "(model.plan), PyTorch (model.pt) models only"
    )
