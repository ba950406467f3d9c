"""What the user asks `new` for, checked: model names and `NAME:DTYPE:DIMS` tensors."""

from __future__ import annotations

import re

from tritoncfg.record import record
from tritoncfg.repository.names import NAME_MAX, model_name_problem
from tritoncfg.schema import DataType

_TENSOR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:/-]*")
DATA_TYPES = tuple(n for n in DataType.keys() if n != "TYPE_INVALID")  # noqa: SIM118 (an enum wrapper)


class ScaffoldError(Exception):
    """A request `new` cannot carry out; the message says what to change."""


def validate_name(name: str, what: str = "model name") -> str:
    problem = model_name_problem(name, what)
    if problem is not None:
        raise ScaffoldError(problem)
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


def check_unique(tensors: list[TensorSpec], option: str) -> list[TensorSpec]:
    """Refuse a tensor name given twice to one option: Triton keeps the first of a name and still
    counts both as required inputs (lint's TC312), so no request could ever be complete."""
    names = [tensor.name for tensor in tensors]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ScaffoldError(
            f"{option} {', '.join(repr(n) for n in twice)} is given twice; a model's tensor "
            "names are unique"
        )
    return tensors


__all__ = [
    "DATA_TYPES",
    "NAME_MAX",
    "ScaffoldError",
    "TensorSpec",
    "check_unique",
    "parse_tensor",
    "validate_name",
]
