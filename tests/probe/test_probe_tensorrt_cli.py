"""`tritoncfg probe --runtime tensorrt` on ONNX models, through the real CLI and its worker
processes, with whichever TensorRT is installed (TensorRT-RTX builds engines on CPU).

Without a GPU: a model that builds is "cannot run here" (exit 3) with the CUDA reason and the
build's facts in the report; a builder error, or a precision the library cannot honour, is a
FAIL (exit 1) with the library's words; `--save-plan` of a TensorRT-RTX engine is refused. With
a GPU, the same healthy model runs and every point is compared with ONNX Runtime."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clikit import run
from probe.trtkit import installed_adapter

from tritoncfg.probe.report import schema
from tritoncfg.probe.tensorrt.gpu import gpu_problem

pytest.importorskip("onnxruntime")
jsonschema = pytest.importorskip("jsonschema")

from probe.probekit import FAST, reshape_repository  # noqa: E402


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reshape_repository(tmp_path_factory.mktemp("trt") / "repo")


def probe(*args: str) -> tuple[int, dict[str, Any], str]:
    done = run("probe", *args, "--runtime", "tensorrt", "--format", "json", *FAST)
    document: dict[str, Any] = json.loads(done.stdout)
    jsonschema.Draft202012Validator(schema()).validate(document)
    return done.returncode, document["models"][0], done.stderr


def test_a_model_that_builds_cannot_run_without_a_gpu_and_reports_the_build(twins: Path) -> None:
    adapter = installed_adapter()
    code, model, stderr = probe(str(twins / "healthy"), "--gpu", "0")
    runtime = model["runtime"]
    if gpu_problem() is None:  # a GPU machine: it runs, compared with ONNX Runtime
        assert code == 0, model
        assert runtime["reference"]["runtime"] == "onnxruntime"
        assert all(p["max_abs_error"] is not None for p in model["points"])
        return
    assert code == 3, stderr
    assert model["reason"].startswith("cannot run here: no CUDA device: cudaGetDeviceCount")
    assert "cannot run here: no CUDA device" in stderr
    assert {p["status"] for p in model["points"]} == {"SKIP"}
    assert runtime["library"] == adapter.label and runtime["precision"] == ["fp32"]
    assert runtime["engine_size"] > 0 and runtime["build_seconds"] >= 0
    assert runtime["profiles"] == [{"x": [[1, 4], [4, 4], [8, 4]]}]


def test_a_builder_error_is_a_failure_with_exit_1(twins: Path) -> None:
    adapter = installed_adapter()
    code, model, _ = probe(str(twins / "broken"))
    assert code == 1
    assert model["status"] == "FAIL" and {p["status"] for p in model["points"]} == {"FAIL"}
    reason = model["points"][0]["reason"]
    assert reason.startswith(f"{adapter.label}: build failed: ")
    assert "reshape would change volume" in reason
    assert model["runtime"]["library"] == adapter.label


def test_the_whole_repository_fails_when_one_model_fails(twins: Path) -> None:
    installed_adapter()
    done = run("probe", str(twins), "--runtime", "tensorrt", *FAST)
    assert done.returncode == 1, done.stdout + done.stderr


def test_a_precision_reaches_the_builder(twins: Path) -> None:
    adapter = installed_adapter()
    if hasattr(adapter.module.BuilderFlag, "FP16"):
        pytest.skip(f"{adapter.label} has BuilderFlag.FP16: the request is honoured")
    code, model, _ = probe(str(twins / "healthy"), "--precision", "FP16")
    assert code == 1
    assert model["points"][0]["reason"].startswith(
        f"{adapter.label}: precision failed: precision 'fp16' cannot be requested"
    )


def test_an_unknown_precision_is_a_usage_error(twins: Path) -> None:
    done = run("probe", str(twins / "healthy"), "--runtime", "tensorrt", "--precision", "fp61")
    assert done.returncode == 2 and done.stdout == ""
    assert "--precision 'fp61': expected one of fp32, tf32, fp16, bf16, int8, fp8" in done.stderr


def test_save_plan_reaches_the_runner_and_never_writes_an_rtx_engine(twins: Path) -> None:
    adapter = installed_adapter()
    if adapter.triton_loadable:
        pytest.skip(f"{adapter.label} builds plans Triton loads")
    code, model, _ = probe(str(twins / "healthy"), "--save-plan")
    assert code == 3
    assert model["reason"].startswith("cannot run here: --save-plan refused: ")
    assert sorted(p.name for p in (twins / "healthy" / "1").iterdir()) == ["model.onnx"]
