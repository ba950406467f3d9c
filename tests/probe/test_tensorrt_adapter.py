"""Version feature detection: precision flags per TensorRT major version, network flags, and the
module chosen at import.

Plain TensorRT 10/11 cannot be installed here, so the per-version cases describe each release's
`BuilderFlag` members as plain namespaces (the names removed in 11.0 per TensorRT's "Removed
Python APIs" migration notes). The installed module (TensorRT-RTX here) is checked for real."""

from __future__ import annotations

import enum
from types import SimpleNamespace

import pytest
from probe.trtkit import installed_adapter

from tritoncfg.probe.tensorrt.adapter import (
    TrtAdapter,
    TrtMissing,
    UnsupportedPrecision,
    load_adapter,
)

TRT10_FLAGS = enum.Enum("BuilderFlag", ["FP16", "BF16", "INT8", "FP8", "TF32", "REFIT"])
TRT11_FLAGS = enum.Enum("BuilderFlag", ["TF32", "REFIT", "VERSION_COMPATIBLE"])
NET_FLAGS = enum.IntEnum(
    "NetworkDefinitionCreationFlag", {"EXPLICIT_BATCH": 0, "STRONGLY_TYPED": 1}
)


def release(version: str, flags: type[enum.Enum]) -> TrtAdapter:
    module = SimpleNamespace(
        __version__=version, BuilderFlag=flags, NetworkDefinitionCreationFlag=NET_FLAGS
    )
    return TrtAdapter(module=module, flavor="tensorrt")


def test_tensorrt_10_sets_the_fp16_and_bf16_builder_flags() -> None:
    adapter = release("10.16.0", TRT10_FLAGS)
    assert adapter.major == 10
    assert adapter.precision_flags(["fp32", "fp16", "BF16"]) == [TRT10_FLAGS.FP16, TRT10_FLAGS.BF16]


def test_tensorrt_11_refuses_fp16_instead_of_building_fp32() -> None:
    adapter = release("11.1.0", TRT11_FLAGS)
    with pytest.raises(UnsupportedPrecision) as caught:
        adapter.precision_flags(["fp16"])
    message = str(caught.value)
    assert "precision 'fp16' cannot be requested from TensorRT 11.1.0" in message
    assert "TensorRT 11 removed the weak-typing precision flags" in message
    assert "probe does not build FP32 instead" in message
    assert adapter.precision_flags(["fp32", "tf32"]) == [TRT11_FLAGS.TF32]


def test_unknown_precision_names_the_known_ones() -> None:
    with pytest.raises(UnsupportedPrecision, match="unknown precision 'fp64' \\(known: fp32, tf32"):
        release("10.16.0", TRT10_FLAGS).precision_flags(["fp64"])


def test_explicit_batch_flag_only_before_tensorrt_10() -> None:
    assert release("8.6.1", TRT10_FLAGS).network_flags() == 1
    assert release("10.0.1", TRT10_FLAGS).network_flags() == 0
    assert release("11.1.0", TRT11_FLAGS).network_flags() == 0


def test_the_installed_module_is_detected_and_labelled() -> None:
    adapter = installed_adapter()
    assert adapter.flavor in ("tensorrt", "tensorrt_rtx")
    assert adapter.version == adapter.module.__version__
    assert adapter.label.endswith(adapter.version)
    assert adapter.triton_loadable == (adapter.flavor == "tensorrt")
    # fp16 either maps to the real BuilderFlag.FP16 or is refused: never dropped silently
    if hasattr(adapter.module.BuilderFlag, "FP16"):
        assert adapter.precision_flags(["fp16"]) == [adapter.module.BuilderFlag.FP16]
    else:
        with pytest.raises(UnsupportedPrecision, match=r"has no BuilderFlag\.FP16"):
            adapter.precision_flags(["fp16"])


def test_a_missing_module_says_what_to_install() -> None:
    with pytest.raises(TrtMissing) as caught:
        load_adapter(prefer="tensorrt_not_a_module")
    assert "import tensorrt_not_a_module" in str(caught.value)
    assert "tensorrt-rtx" in str(caught.value)
