"""tritoncfg.models.dtypes: the backends' type tables."""

from __future__ import annotations

import pytest

from tritoncfg.models.dtypes import (
    ONNX_TO_TRITON,
    ONNX_TYPE_NAMES,
    TRT_CONFIG_TYPES,
    onnx_type,
    server_type,
    short_type,
    trt_type,
)
from tritoncfg.schema import DataType


def test_onnx_table_matches_onnx_itself() -> None:
    onnx = pytest.importorskip("onnx")
    for number, name in ONNX_TYPE_NAMES.items():
        assert onnx.TensorProto.DataType.Name(number).lower() == name


@pytest.mark.parametrize(
    ("elem", "expected"),
    [
        (1, ("TYPE_FP32", "float")),
        (10, ("TYPE_FP16", "float16")),
        (16, ("TYPE_BF16", "bfloat16")),
        (11, ("TYPE_FP64", "double")),
        (8, ("TYPE_STRING", "string")),
        (9, ("TYPE_BOOL", "bool")),
        (13, ("TYPE_UINT64", "uint64")),
        (14, (None, "complex64")),
        (17, (None, "float8e4m3fn")),
        (99, (None, "elem_type 99")),
    ],
)
def test_onnx_type(elem: int, expected: tuple[str | None, str]) -> None:
    assert onnx_type(elem) == expected


def test_every_triton_name_is_a_config_type() -> None:
    names = set(DataType.keys())
    assert set(ONNX_TO_TRITON.values()) <= names
    assert names >= TRT_CONFIG_TYPES


@pytest.mark.parametrize(
    ("trt", "triton"),
    [
        ("FLOAT", "TYPE_FP32"),
        ("HALF", "TYPE_FP16"),
        ("BF16", "TYPE_BF16"),
        ("INT64", "TYPE_INT64"),
        ("BOOL", "TYPE_BOOL"),
        ("FP8", None),
        ("INT4", None),
        ("FP4", None),
    ],
)
def test_trt_type(trt: str, triton: str | None) -> None:
    assert trt_type(trt) == triton


def test_server_and_short_names() -> None:
    assert server_type("TYPE_STRING") == "TYPE_BYTES"
    assert server_type(None) == "TYPE_INVALID"
    assert server_type("TYPE_FP16") == "TYPE_FP16"
    assert short_type("TYPE_FP16") == "FP16"
    assert short_type(None) == "no Triton type"
