"""What the user asks `new` for, checked: model names and `NAME:DTYPE:DIMS` tensors."""

from __future__ import annotations

import re

from tritoncfg.record import record
from tritoncfg.schema import DataType

# A model name is a directory of the repository and a path segment of /v2/models/<name>: letters,
# digits, '_', '-', '.'; a leading '.' would be a hidden directory, which Triton still polls as a
# model, and "." / ".." are not directories of their own.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_TENSOR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:/-]*")
NAME_MAX = 255  # bytes in one path component (Linux, macOS and Windows file systems alike)
DATA_TYPES = tuple(n for n in DataType.keys() if n != "TYPE_INVALID")  # noqa: SIM118 (an enum wrapper)


class ScaffoldError(Exception):
    """A request `new` cannot carry out; the message says what to change."""


def validate_name(name: str, what: str = "model name") -> str:
    if not name:
        raise ScaffoldError(f"empty {what}")
    if "/" in name or "\\" in name:
        raise ScaffoldError(f"{what} {name!r} contains a path separator; give a plain name")
    if len(name.encode("utf-8")) > NAME_MAX:
        raise ScaffoldError(
            f"{what} {name[:24]!r}... is {len(name.encode('utf-8'))} bytes long; it names a "
            f"folder, and a file name is at most {NAME_MAX} bytes"
        )
    if name in {".", ".."} or not _NAME.fullmatch(name):
        raise ScaffoldError(
            f"{what} {name!r} is not a valid model name: use letters, digits, '_', '-' and '.', "
            "not starting with '.' (Triton would poll a hidden directory as a model)"
        )
    return name


@record(frozen=True)
class TensorSpec:
    name: str
    data_type: str  # TYPE_*
    dims: tuple[int, ...]


def parse_tensor(text: str) -> TensorSpec:
    """`NAME:DTYPE:DIMS`, e.g. `image:FP32:3,224,224` (`-1` for a variable dimension)."""
    name, sep, rest = text.rpartition(":")
    head, sep2, dtype = name.rpartition(":")
    if not sep or not sep2:
        raise ScaffoldError(f"tensor {text!r} is not NAME:DTYPE:DIMS (e.g. input:FP32:3,224,224)")
    name, dims_text = head, rest
    if not _TENSOR_NAME.fullmatch(name):
        raise ScaffoldError(f"tensor {text!r}: {name!r} is not a tensor name")
    data_type = dtype.upper() if dtype.upper().startswith("TYPE_") else "TYPE_" + dtype.upper()
    if data_type not in DATA_TYPES:
        known = ", ".join(t.removeprefix("TYPE_") for t in DATA_TYPES)
        raise ScaffoldError(f"tensor {text!r}: unknown data type {dtype!r} (one of {known})")
    try:
        dims = tuple(int(d) for d in dims_text.replace("x", ",").split(","))
    except ValueError:
        raise ScaffoldError(f"tensor {text!r}: dims {dims_text!r} are not integers") from None
    if any(d < -1 or d == 0 for d in dims):
        raise ScaffoldError(f"tensor {text!r}: a dimension is a size > 0 or -1 (variable)")
    return TensorSpec(name, data_type, dims)


__all__ = ["DATA_TYPES", "NAME_MAX", "ScaffoldError", "TensorSpec", "parse_tensor", "validate_name"]
