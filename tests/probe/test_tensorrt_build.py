"""The builder half, for real, against whichever TensorRT module is installed (TensorRT-RTX builds
on CPU): ONNX parse, network inspection, profiles from the config, the build, and each builder
error in the library's own words. Asserts on messages and I/O, never on engine bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from models.onnxkit import FLOAT, INT64, make_external, make_onnx, make_runnable
from probe.trtkit import config, installed_adapter

from tritoncfg.probe.tensorrt.adapter import TrtAdapter
from tritoncfg.probe.tensorrt.build import BuildResult, ParsedNetwork, build_engine, parse_onnx
from tritoncfg.probe.tensorrt.profiles import derive_profile

RELU = 'max_batch_size: 64 input { name: "x" data_type: TYPE_FP32 dims: [ 16 ] }'


@pytest.fixture
def adapter() -> TrtAdapter:
    return installed_adapter()


def parsed(adapter: TrtAdapter, path: Path) -> ParsedNetwork:
    result = parse_onnx(adapter, path)
    assert isinstance(result, ParsedNetwork), getattr(result, "errors", None)
    return result


def relu(tmp_path: Path) -> Path:
    return make_runnable(tmp_path / "model.onnx", input_shape=["N", 16], output_shape=["N", 16])


def test_network_inspection_reports_names_dtypes_and_dynamic_dims(
    adapter: TrtAdapter, tmp_path: Path
) -> None:
    info = parsed(adapter, relu(tmp_path)).info
    assert [(t.name, t.shape, t.dtype, t.triton_type) for t in info.inputs] == [
        ("x", (-1, 16), "FLOAT", "TYPE_FP32")
    ]
    assert [(t.name, t.shape, t.triton_type) for t in info.outputs] == [
        ("y", (-1, 16), "TYPE_FP32")
    ]


def test_a_profile_from_the_config_builds_an_engine(adapter: TrtAdapter, tmp_path: Path) -> None:
    network = parsed(adapter, relu(tmp_path))
    cfg = config(RELU + " dynamic_batching { preferred_batch_size: [ 8 ] }")
    profile = derive_profile(cfg, network.info.net_inputs(), {})
    assert profile == {"x": ((1, 16), (8, 16), (64, 16))}
    result = build_engine(network, [profile])
    assert result.ok, result.errors
    assert result.stage is None and result.errors == []
    assert result.plan is not None and len(result.plan) > 1000


def test_external_data_is_parsed_from_the_file(adapter: TrtAdapter, tmp_path: Path) -> None:
    network = parsed(adapter, make_external(tmp_path / "model.onnx"))
    assert network.info.inputs[0].shape == (-1, 1024)
    result = build_engine(network, [{"x": ((1, 1024), (2, 1024), (4, 1024))}])
    assert result.ok, result.errors


def test_an_unknown_op_is_a_parse_error_with_the_parsers_message(
    adapter: TrtAdapter, tmp_path: Path
) -> None:
    path = make_onnx(tmp_path / "model.onnx", [("x", FLOAT, [1, 4])], [("y", FLOAT, [1, 4])])
    result = parse_onnx(adapter, path)
    assert isinstance(result, BuildResult) and not result.ok
    assert result.stage == "parse"
    assert any("Opaque" in e and "Plugin not found" in e for e in result.errors), result.errors
    assert result.message().startswith("parse failed: ")


def test_a_corrupt_file_is_a_parse_error(adapter: TrtAdapter, tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not an onnx model at all")
    result = parse_onnx(adapter, path)
    assert isinstance(result, BuildResult)
    assert any("Failed to parse the ONNX model" in e for e in result.errors), result.errors


def build_errors(adapter: TrtAdapter, tmp_path: Path, profiles: list) -> BuildResult:  # type: ignore[type-arg]
    result = build_engine(parsed(adapter, relu(tmp_path)), profiles)
    assert not result.ok and result.plan is None
    return result


def test_no_profile_for_a_dynamic_input(adapter: TrtAdapter, tmp_path: Path) -> None:
    result = build_errors(adapter, tmp_path, [])
    assert result.stage == "build"
    assert any("no optimization profile has been defined" in e for e in result.errors)


def test_min_above_max_is_refused_when_the_profile_is_added(
    adapter: TrtAdapter, tmp_path: Path
) -> None:
    result = build_errors(adapter, tmp_path, [{"x": ((8, 16), (4, 16), (2, 16))}])
    assert result.stage == "profile"
    assert any("MIN<=OPT<=MAX" in e for e in result.errors), result.errors
    assert not any("catchCudaError" in e for e in result.errors)


def test_a_profile_naming_a_missing_input(adapter: TrtAdapter, tmp_path: Path) -> None:
    result = build_errors(adapter, tmp_path, [{"INPUT__0": ((1, 16), (8, 16), (64, 16))}])
    assert result.stage == "build"
    assert any(
        "Dynamic input tensor x is missing dimensions in profile 0" in e for e in result.errors
    )


def test_a_fixed_dim_mismatch(adapter: TrtAdapter, tmp_path: Path) -> None:
    result = build_errors(adapter, tmp_path, [{"x": ((1, 17), (8, 17), (64, 17))}])
    assert any(
        "Dimension mismatch for tensor x and profile 0" in e and "tensor has 16" in e
        for e in result.errors
    ), result.errors


def test_an_int64_input_is_inspected_as_int64(adapter: TrtAdapter, tmp_path: Path) -> None:
    path = make_runnable(
        tmp_path / "model.onnx", input_shape=["N", 4], output_shape=["N", 4], elem=INT64
    )
    network = parsed(adapter, path)
    assert network.info.inputs[0].triton_type == "TYPE_INT64"


def test_an_unhonourable_precision_is_a_precision_failure(
    adapter: TrtAdapter, tmp_path: Path
) -> None:
    if hasattr(adapter.module.BuilderFlag, "FP16"):
        pytest.skip(f"{adapter.label} has BuilderFlag.FP16")
    result = build_engine(parsed(adapter, relu(tmp_path)), [], precision=["fp16"])
    assert result.stage == "precision"
    assert "has no BuilderFlag.FP16" in result.errors[0]


def test_fp32_builds_clear_tf32_which_tensorrt_enables_by_default(
    adapter: TrtAdapter, tmp_path: Path
) -> None:
    from tritoncfg.probe.tensorrt.build import builder_config

    network = parsed(adapter, relu(tmp_path))
    tf32 = getattr(adapter.module.BuilderFlag, "TF32", None)
    if tf32 is None:
        pytest.skip(f"{adapter.label} has no BuilderFlag.TF32")
    assert network.builder.create_builder_config().get_flag(tf32)  # the library's default
    assert not builder_config(network).get_flag(tf32)
    assert not builder_config(network, ["fp32"]).get_flag(tf32)
    assert builder_config(network, ["TF32"]).get_flag(tf32)
