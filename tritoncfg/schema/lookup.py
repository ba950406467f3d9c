"""Names in the schema, and the "did you mean" suggestion that parse errors offer for a wrong one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Final, Protocol

DATA_TYPE_ENUM: Final = "inference.DataType"

# Spellings people bring from numpy, PyTorch or ONNX, mapped to Triton's TYPE_* suffixes.
DATA_TYPE_ALIASES: Final[Mapping[str, str]] = {
    "FLOAT32": "FP32",
    "FLOAT": "FP32",
    "FLOAT16": "FP16",
    "HALF": "FP16",
    "INT": "INT32",
    "LONG": "INT64",
    "DOUBLE": "FP64",
    "BYTES": "STRING",
    "BFLOAT16": "BF16",
    "BOOLEAN": "BOOL",
}

_DATA_TYPE_PREFIX: Final = "TYPE_"


# Structural, because protobuf's stubs type `Msg.DESCRIPTOR` as a union of the pure-Python
# and the upb descriptor classes.
class NamedDescriptor(Protocol):
    @property
    def name(self) -> str: ...


class MessageDescriptorLike(Protocol):
    @property
    def fields(self) -> Sequence[NamedDescriptor]: ...

    def __hash__(self) -> int: ...  # a key of the remembered suggestions


class EnumDescriptorLike(Protocol):
    @property
    def values(self) -> Sequence[NamedDescriptor]: ...

    def __hash__(self) -> int: ...


def field_names(desc: MessageDescriptorLike) -> list[str]:
    """The message's field names, in declaration order."""
    return [field.name for field in desc.fields]


def enum_value_names(enum_desc: EnumDescriptorLike) -> list[str]:
    """The enum's value names, in declaration order."""
    return [value.name for value in enum_desc.values]


def suggest(name: str, candidates: Iterable[str], *, enum_type: str | None = None) -> str | None:
    """The candidate `name` most likely meant, or None when none is close.

    Tries, in order: the same name in another case; for `enum_type="inference.DataType"`, a
    known alias (`TYPE_FLOAT32`, `float32` -> `TYPE_FP32`); then the closest spelling.
    """
    options = list(candidates)
    folded = {candidate.casefold(): candidate for candidate in reversed(options)}
    if (same := folded.get(name.casefold())) is not None:
        return same
    if enum_type == DATA_TYPE_ENUM:
        bare = name.upper().removeprefix(_DATA_TYPE_PREFIX)
        aliased = _DATA_TYPE_PREFIX + DATA_TYPE_ALIASES.get(bare, bare)
        if aliased in options:
            return aliased
    import difflib  # only when a name is wrong: keep it off the import path

    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.6)
    return folded[close[0]] if close else None


# Remembered by descriptor and name: a file may misspell the same name thousands of times, and
# each suggestion costs a difflib search (about 0.3 ms; 100,000 of them were 30 s of a lint).
# Names longer than this are not kept (the cache would hold their text).
_REMEMBERED_LENGTH = 100


def suggest_field(descriptor: MessageDescriptorLike, name: str) -> str | None:
    """`suggest` among the message's field names."""
    if len(name) > _REMEMBERED_LENGTH:
        return suggest(name, field_names(descriptor))
    return _suggest_field(descriptor, name)


def suggest_enum_value(enum_desc: EnumDescriptorLike, name: str, enum_type: str) -> str | None:
    """`suggest` among the enum's value names (`enum_type`: its full name)."""
    if len(name) > _REMEMBERED_LENGTH:
        return suggest(name, enum_value_names(enum_desc), enum_type=enum_type)
    return _suggest_enum_value(enum_desc, name, enum_type)


@lru_cache(maxsize=4096)
def _suggest_field(descriptor: MessageDescriptorLike, name: str) -> str | None:
    return suggest(name, field_names(descriptor))


@lru_cache(maxsize=4096)
def _suggest_enum_value(enum_desc: EnumDescriptorLike, name: str, enum_type: str) -> str | None:
    return suggest(name, enum_value_names(enum_desc), enum_type=enum_type)
