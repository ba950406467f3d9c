"""Triton's tensor-size helpers (`triton::common` GetElementCount, GetDataTypeByteSize,
GetByteSize), shared by the warmup, sequence-state and I/O rules, with Triton's sentinels and
texts."""

from __future__ import annotations

from collections.abc import Sequence

INT64_MAX = 2**63 - 1
WILDCARD, INVALID, OVERFLOW = -1, -2, -3  # triton::common::{WILDCARD,INVALID,OVERFLOW}_SIZE

# GetDataTypeByteSize; every other type (TYPE_STRING, TYPE_INVALID, unknown numbers) is 0
TYPE_BYTES = {
    **dict.fromkeys(("TYPE_BOOL", "TYPE_UINT8", "TYPE_INT8"), 1),
    **dict.fromkeys(("TYPE_UINT16", "TYPE_INT16", "TYPE_FP16", "TYPE_BF16"), 2),
    **dict.fromkeys(("TYPE_UINT32", "TYPE_INT32", "TYPE_FP32"), 4),
    **dict.fromkeys(("TYPE_UINT64", "TYPE_INT64", "TYPE_FP64"), 8),
}


def dims_text(dims: Sequence[int]) -> str:
    """`triton::common::DimsListToString`: `[1,-1,3]`."""
    return "[" + ",".join(str(d) for d in dims) + "]"


def element_count(dims: list[int]) -> int:
    """GetElementCount: the count (0 for no dims), or the first negative dim decides: WILDCARD for
    -1, INVALID below; OVERFLOW beyond int64."""
    count = 0
    for i, dim in enumerate(dims):
        if dim == WILDCARD:
            return WILDCARD
        if dim < 0:
            return INVALID
        if i == 0:
            count = dim
        elif dim != 0 and count > INT64_MAX // dim:
            return OVERFLOW
        else:
            count *= dim
    return count


def byte_size(data_type: str, dims: list[int], name: str) -> int | str:
    """GetByteSize(dtype, dims, name): the size, WILDCARD (variable, or a type of no fixed size),
    or the error text Triton gives."""
    if data_type == "TYPE_STRING":
        count = element_count(dims)
        if count == INVALID:
            return f"tensor '{name}' contains an invalid dimension in shape {dims_text(dims)}"
        if count == OVERFLOW:
            return f"element count for tensor '{name}' exceeds maximum size of {INT64_MAX}"
        if count != WILDCARD and count > INT64_MAX // 4:
            return f"byte size for tensor '{name}' exceeds maximum size of {INT64_MAX}"
        return count if count == WILDCARD else 4 * count
    size = TYPE_BYTES.get(data_type, 0)
    if size == 0:
        return (
            WILDCARD  # an unset type is "variable size" (GenerateWarmupData's misleading message)
        )
    count = element_count(dims)
    if count == INVALID:
        return f"tensor '{name}' contains an invalid dimension {dims_text(dims)}"
    if count == OVERFLOW or count > INT64_MAX // size:
        return f"byte size for tensor '{name}' exceeds maximum size of {INT64_MAX}"
    return count if count == WILDCARD else count * size
