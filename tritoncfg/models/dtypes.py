"""Framework data types → Triton's `TYPE_*` names, as the ONNX Runtime and TensorRT backends
map them.

Plain tables (no onnx or tensorrt import): ONNX types by their `TensorProto.DataType` number,
TensorRT types by their `trt.DataType` member name.
"""

from __future__ import annotations

# onnxruntime_backend `OnnxDataTypeToModelConfigDataType`; complex, float8/4, int4 have no TYPE_*.
ONNX_TO_TRITON: dict[int, str] = {
    1: "TYPE_FP32",  # FLOAT
    2: "TYPE_UINT8",
    3: "TYPE_INT8",
    4: "TYPE_UINT16",
    5: "TYPE_INT16",
    6: "TYPE_INT32",
    7: "TYPE_INT64",
    8: "TYPE_STRING",
    9: "TYPE_BOOL",
    10: "TYPE_FP16",  # FLOAT16
    11: "TYPE_FP64",  # DOUBLE
    12: "TYPE_UINT32",
    13: "TYPE_UINT64",
    16: "TYPE_BF16",  # BFLOAT16
}

# `TensorProto.DataType` names, lower-cased as numpy-minded users write them ("float16").
ONNX_TYPE_NAMES: dict[int, str] = {
    0: "undefined",
    1: "float",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    8: "string",
    9: "bool",
    10: "float16",
    11: "double",
    12: "uint32",
    13: "uint64",
    14: "complex64",
    15: "complex128",
    16: "bfloat16",
    17: "float8e4m3fn",
    18: "float8e4m3fnuz",
    19: "float8e5m2",
    20: "float8e5m2fnuz",
    21: "uint4",
    22: "int4",
    23: "float4e2m1",
}

# tensorrt_backend `ConvertTrtTypeToDataType`: FP8, INT4, FP4 (and newer types) map to INVALID.
TRT_TO_TRITON: dict[str, str] = {
    "FLOAT": "TYPE_FP32",
    "HALF": "TYPE_FP16",
    "BF16": "TYPE_BF16",
    "INT8": "TYPE_INT8",
    "UINT8": "TYPE_UINT8",
    "INT32": "TYPE_INT32",
    "INT64": "TYPE_INT64",
    "BOOL": "TYPE_BOOL",
}

# `ConvertDataTypeToTrtType`: the config types the TensorRT backend can bind at all.
TRT_CONFIG_TYPES: frozenset[str] = frozenset(TRT_TO_TRITON.values())


def onnx_type(elem_type: int) -> tuple[str | None, str]:
    """(Triton TYPE_* or None, ONNX name) of a `TensorProto` element type."""
    name = ONNX_TYPE_NAMES.get(elem_type, f"elem_type {elem_type}")
    return ONNX_TO_TRITON.get(elem_type), name


def trt_type(name: str) -> str | None:
    """Triton TYPE_* of a `trt.DataType` member name ("HALF" → "TYPE_FP16"), None when none."""
    return TRT_TO_TRITON.get(name)


def server_type(data_type: str | None) -> str:
    """`"TYPE_" + TRITONSERVER_DataTypeString(...)`, the way the backends print a type in their
    messages: TYPE_STRING is `TYPE_BYTES` on the server side, and no type is `TYPE_INVALID`."""
    if data_type is None:
        return "TYPE_INVALID"
    return "TYPE_BYTES" if data_type == "TYPE_STRING" else data_type


def short_type(data_type: str | None) -> str:
    """`FP16` for TYPE_FP16 (for tritoncfg's own messages)."""
    return "no Triton type" if data_type is None else data_type.removeprefix("TYPE_")


__all__ = [
    "ONNX_TO_TRITON",
    "ONNX_TYPE_NAMES",
    "TRT_CONFIG_TYPES",
    "TRT_TO_TRITON",
    "onnx_type",
    "server_type",
    "short_type",
    "trt_type",
]
