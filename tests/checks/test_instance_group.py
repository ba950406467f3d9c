"""TC401-TC408: instance groups (`NormalizeInstanceGroup`, `ValidateInstanceGroup`), with the host's GPUs known
(`--gpus`) and unknown."""

from __future__ import annotations

import json
from pathlib import Path

from clikit import run
from lintkit import found, lint_config, make_model

from tritoncfg.diagnostics import Severity

PY = 'backend: "python"\n'
CC = "GPUs with at least the minimum required CUDA compute compatibility of 7.500000 are:"


def test_model_kind_with_gpus(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_MODEL gpus: [ 0 ] } ]\n"
    assert found(lint_config(tmp_path, config), "TC401") == [
        (
            "2:37",
            "error",
            "instance group m_0 of model m has kind KIND_MODEL but specifies one or more GPUs",
        )
    ]


def test_model_kind_without_gpus_passes(tmp_path: Path) -> None:
    assert not found(
        lint_config(tmp_path, PY + "instance_group [ { kind: KIND_MODEL } ]\n"), "TC401"
    )


GPU_GROUP = PY + "instance_group [ { kind: KIND_GPU } ]\n"
NO_GPUS = "instance group m_0 of model m has kind KIND_GPU but no GPUs are available"


def test_kind_gpu_on_a_host_without_gpus_is_an_error(tmp_path: Path) -> None:
    assert found(lint_config(tmp_path, GPU_GROUP, gpus=()), "TC402") == [("2:26", "error", NO_GPUS)]


def test_kind_gpu_on_an_unknown_host_is_an_info(tmp_path: Path) -> None:
    (diagnostic,) = [d for d in lint_config(tmp_path, GPU_GROUP) if d.code == "TC402"]
    assert diagnostic.severity is Severity.INFO
    assert diagnostic.triton is not None and diagnostic.triton.message == NO_GPUS
    assert "--gpus" in diagnostic.message


def test_kind_gpu_on_a_gpu_host_passes(tmp_path: Path) -> None:
    assert not found(lint_config(tmp_path, GPU_GROUP, gpus=(0,)), "TC402")


def test_gpus_option_on_the_command_line(tmp_path: Path) -> None:
    """The real `--gpus` switch: none makes KIND_GPU an error, no switch an info, a GPU passes."""
    make_model(tmp_path, "m", GPU_GROUP, files={"1/model.py": ""})

    def tc402(*args: str) -> list[str]:
        result = run("lint", str(tmp_path), "--format", "json", *args)
        report = json.loads(result.stdout)
        items = report["diagnostics"] if isinstance(report, dict) else report
        return [d["severity"] for d in items if d["code"] == "TC402"]

    assert tc402("--gpus", "none") == ["error"]
    assert tc402() == ["info"]
    assert tc402("--gpus", "0,1") == []


def test_invalid_gpu_id(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_GPU gpus: [ 0, 3 ] } ]\n"
    assert found(lint_config(tmp_path, config, gpus=(0, 1)), "TC403") == [
        (
            "2:46",
            "error",
            f"instance group m_0 of model m specifies invalid or unsupported gpu id 3. {CC} 0, 1",
        )
    ]


def test_every_invalid_gpu_id_is_reported(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_GPU gpus: [ 0, 1 ] } ]\n"
    assert [m for _, _, m in found(lint_config(tmp_path, config, gpus=()), "TC403")] == [
        f"instance group m_0 of model m specifies invalid or unsupported gpu id {g}. {CC} "
        for g in (0, 1)
    ]


def test_gpu_ids_on_an_unknown_host_are_one_info(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_GPU gpus: [ 0, 1 ] } ]\n"
    assert found(lint_config(tmp_path, config), "TC403") == [
        (
            "2:35",
            "info",
            f"instance group m_0 of model m specifies invalid or unsupported gpu id 0. {CC} ",
        )
    ]


def test_negative_gpu_id_is_an_error_on_any_host(tmp_path: Path) -> None:
    # QA negative_gpu: the second group's -1 (the first group, KIND_AUTO gpus [0], is fine there)
    config = (
        PY
        + "instance_group [ { gpus: [ 0 ] } ]\ninstance_group [ { kind: KIND_GPU gpus: [ -1 ] } ]\n"
    )
    assert found(lint_config(tmp_path, config, gpus=(0,)), "TC403") == [
        (
            "3:43",
            "error",
            f"instance group m_1 of model m specifies invalid or unsupported gpu id -1. {CC} 0",
        )
    ]
    unknown = found(lint_config(tmp_path / "u", config), "TC403")
    assert [(s, sev) for s, sev, _ in unknown] == [("3:43", "error")]


def test_valid_gpu_ids_pass(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_GPU gpus: [ 1 ] } ]\n"
    assert not found(lint_config(tmp_path, config, gpus=(0, 1)), "TC403")


CPU_WITH_GPUS = "instance group m_0 of model m has kind KIND_CPU but specifies one or more GPUs"


def test_cpu_kind_with_gpus(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_CPU gpus: [ 0 ] } ]\n"
    assert found(lint_config(tmp_path, config, gpus=(0,)), "TC404") == [
        ("2:35", "error", CPU_WITH_GPUS)
    ]


def test_kind_auto_with_gpus_by_host(tmp_path: Path) -> None:
    config = PY + "instance_group [ { gpus: [ 0 ] } ]\n"
    assert found(lint_config(tmp_path / "none", config, gpus=()), "TC404") == [
        ("2:20", "error", CPU_WITH_GPUS)
    ]
    assert found(lint_config(tmp_path / "unknown", config), "TC404") == [
        ("2:20", "info", CPU_WITH_GPUS)
    ]
    assert not found(lint_config(tmp_path / "gpu", config, gpus=(0,)), "TC404")


def test_cpu_kind_without_gpus_passes(tmp_path: Path) -> None:
    assert not found(lint_config(tmp_path, PY + "instance_group [ { kind: KIND_CPU } ]\n"), "TC404")


def test_unknown_kind_number(tmp_path: Path) -> None:
    config = PY + 'instance_group [ { name: "g" kind: 7 } ]\n'
    assert found(lint_config(tmp_path, config), "TC405") == [
        ("2:36", "error", "instance group g of model m has unexpected kind KIND_AUTO")
    ]


def test_defined_kind_number_passes(tmp_path: Path) -> None:
    assert not found(lint_config(tmp_path, PY + "instance_group [ { kind: 2 } ]\n"), "TC405")


def test_profile_on_a_python_model(tmp_path: Path) -> None:
    config = PY + 'instance_group [ { kind: KIND_CPU profile: [ "0" ] } ]\n'
    assert found(lint_config(tmp_path, config), "TC406") == [
        (
            "2:35",
            "error",
            "instance group m_0 of model m and platform specifies profile field which is only "
            "supported for TensorRT models",
        )
    ]


TRT = 'platform: "tensorrt_plan"\n'


def test_profile_on_tensorrt_passes(tmp_path: Path) -> None:
    config = TRT + 'instance_group [ { kind: KIND_GPU profile: [ "0", "1abc" ] } ]\n'
    diagnostics = lint_config(tmp_path, config, files={"1/model.plan": ""}, gpus=(0,))
    assert not found(diagnostics, "TC406") and not found(diagnostics, "TC407")


def test_invalid_tensorrt_profiles(tmp_path: Path) -> None:
    config = (
        TRT + 'instance_group [ { kind: KIND_GPU profile: [ "-1", "abc", "", "99999999999" ] } ]\n'
    )
    diagnostics = lint_config(tmp_path, config, files={"1/model.plan": ""}, gpus=(0,))
    assert found(diagnostics, "TC407") == [
        (
            "2:46",
            "error",
            "instance group m_0 of model m and platform tensorrt_plan specifies invalid profile -1. "
            "The field should contain the string representation of a non-negative integer.",
        ),
        ("2:52", "error", "unable to parse 'abc': stoi"),
        ("2:59", "error", "profile name must not be empty"),
        ("2:63", "error", None),  # std::stoi throws out_of_range: Triton crashes
    ]


def test_negative_count(tmp_path: Path) -> None:
    config = PY + "instance_group [ { kind: KIND_CPU count: -4 } ]\n"
    assert found(lint_config(tmp_path, config), "TC408") == [("2:42", "warning", None)]
    assert not found(
        lint_config(tmp_path / "ok", PY + "instance_group [ { count: 2 } ]\n"), "TC408"
    )


def test_ensembles_are_skipped(tmp_path: Path) -> None:
    config = (
        'platform: "ensemble"\ninstance_group [ { kind: KIND_GPU gpus: [ -1 ] count: -1 } ]\n'
        'ensemble_scheduling { step [ { model_name: "a" input_map { key: "x" value: "y" } '
        'output_map { key: "z" value: "w" } } ] }\n'
    )
    diagnostics = lint_config(tmp_path, config, files={}, gpus=())
    assert not [d.code for d in diagnostics if d.code.startswith("TC4")]


def test_qa_invalid_gpu_message(tmp_path: Path) -> None:
    # QA noautofill_platform/invalid_gpu, run on a GPU host
    config = 'name: "invalid_gpu"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\n' + (
        "instance_group [ { kind: KIND_GPU gpus: [ 42 ] } ]\n"
    )
    messages = [
        m
        for _, _, m in found(
            lint_config(tmp_path, config, name="invalid_gpu", files={}, gpus=(0,)), "TC403"
        )
    ]
    assert messages and all(
        "instance group invalid_gpu_0 of model invalid_gpu specifies invalid or unsupported gpu id 42. "
        "GPUs with at least the minimum required CUDA compute compatibility" in (m or "")
        for m in messages
    )
