"""Scalar conversion with C++ `TextFormat::Parser` semantics (ConsumeFieldValue and friends).

Each converter takes a syntax-tree Scalar and returns the Python value, or raises ValueError with
the detail text protobuf's C++ parser logs. Where Python's `text_format` is looser (hex booleans,
`1_000`, `inff`), C++ wins: that is the parser Triton runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from google.protobuf.descriptor import FieldDescriptor

from tritoncfg.text.tree import Scalar

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "?": "?",
    "'": "'",
    '"': '"',
}


def _unsigned_value(text: str) -> int:
    """C++ io::Tokenizer::ParseInteger without the range check (the lexer vetted the syntax)."""
    lower = text.lower()
    if lower.startswith("0x"):
        return int(text[2:], 16)
    if len(text) > 1 and text[0] == "0":
        return int(text, 8)
    return int(text)


def _integer(scalar: Scalar, minimum: int, maximum: int) -> int:
    if scalar.kind != "integer" or (scalar.negative and minimum == 0):
        shown = "-" if scalar.negative and scalar.kind == "integer" else scalar.parts[0]
        raise ValueError(f"Expected integer, got: {shown}")
    value = _unsigned_value(scalar.parts[0])
    if scalar.negative:
        value = -value
    if value < minimum or value > maximum:
        raise ValueError(f"Integer out of range ({scalar.parts[0]})")
    return value


def _float(scalar: Scalar) -> float:
    text = scalar.parts[0]
    if scalar.kind == "integer":
        if text.lower().startswith("0x") or (len(text) > 1 and text[0] == "0"):
            raise ValueError(f"Expect a decimal number, got: {text}")
        value = float(int(text))
    elif scalar.kind == "float":
        value = float(text.rstrip("fF"))
    elif scalar.kind == "identifier" and text.lower() in ("inf", "infinity"):
        value = math.inf
    elif scalar.kind == "identifier" and text.lower() == "nan":
        value = math.nan
    else:
        raise ValueError(f"Expected double, got: {text}")
    return -value if scalar.negative else value


def _bool(scalar: Scalar, field: FieldDescriptor) -> bool:
    text = scalar.parts[0]
    if scalar.kind == "integer" and not scalar.negative:
        value = _unsigned_value(text)
        if value > 1:
            raise ValueError(f"Integer out of range ({text})")
        return value == 1
    if scalar.kind != "identifier" or scalar.negative:
        raise ValueError(f"Expected identifier, got: {'-' if scalar.negative else text}")
    if text in ("true", "True", "t"):
        return True
    if text in ("false", "False", "f"):
        return False
    raise ValueError(f'Invalid value for boolean field "{field.name}". Value: "{text}".')


def unescape(literal: str) -> bytes:
    """The bytes of one quoted C-style literal (quotes included in `literal`)."""
    body = literal[1:-1]
    if "\\" not in body:
        return body.encode("utf-8")
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            j = body.find("\\", i)
            j = n if j < 0 else j
            out += body[i:j].encode("utf-8")
            i = j
            continue
        esc = body[i + 1]
        if esc in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[esc].encode()
            i += 2
        elif esc in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1 : j], 8) & 0xFF)
            i = j
        elif esc == "x":
            j = i + 2
            while j < n and j < i + 4 and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 2 : j], 16))
            i = j
        else:  # \u and \U: the lexer checked the digit count
            width = 4 if esc == "u" else 8
            out += chr(int(body[i + 2 : i + 2 + width], 16)).encode("utf-8", "surrogatepass")
            i += 2 + width
    return bytes(out)


def _string(scalar: Scalar) -> str:
    if scalar.kind != "string":
        raise ValueError(f"Expected string, got: {scalar.text}")
    if len(scalar.parts) == 1 and "\\" not in scalar.parts[0]:
        return scalar.parts[0][1:-1]
    data = b"".join(unescape(p) for p in scalar.parts)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"String field contains invalid UTF-8 data: {exc.reason}") from None


def _enum_converter(field: FieldDescriptor) -> Converter:
    enum = field.enum_type
    assert enum is not None
    by_name = {value.name: value.number for value in enum.values}  # read from the schema once
    numbers = frozenset(by_name.values())
    is_closed = enum.is_closed

    def convert(scalar: Scalar, field: FieldDescriptor) -> int:
        text = scalar.parts[0]
        if scalar.kind == "identifier" and not scalar.negative:
            number = by_name.get(text)
            if number is None:
                raise UnknownEnumValue(text, field)
            return number
        if scalar.kind == "integer":
            number = _integer(scalar, -INT32_MAX - 1, INT32_MAX)
            if number in numbers or not is_closed:
                return number  # proto3 enums are open: any int32 number is accepted
            raise UnknownEnumValue(str(number), field)
        raise ValueError(f"Expected integer or identifier, got: {scalar.text}")

    return convert


class UnknownEnumValue(ValueError):
    def __init__(self, value: str, field: FieldDescriptor) -> None:
        super().__init__(f'Unknown enumeration value of "{value}" for field "{field.name}".')
        self.value = value
        self.field = field


_T = FieldDescriptor
_RANGES = {
    _T.TYPE_INT32: (-INT32_MAX - 1, INT32_MAX),
    _T.TYPE_SINT32: (-INT32_MAX - 1, INT32_MAX),
    _T.TYPE_SFIXED32: (-INT32_MAX - 1, INT32_MAX),
    _T.TYPE_INT64: (-INT64_MAX - 1, INT64_MAX),
    _T.TYPE_SINT64: (-INT64_MAX - 1, INT64_MAX),
    _T.TYPE_SFIXED64: (-INT64_MAX - 1, INT64_MAX),
    _T.TYPE_UINT32: (0, UINT32_MAX),
    _T.TYPE_FIXED32: (0, UINT32_MAX),
    _T.TYPE_UINT64: (0, UINT64_MAX),
    _T.TYPE_FIXED64: (0, UINT64_MAX),
}

Converter = Callable[[Scalar, FieldDescriptor], object]


def _integer_converter(low: int, high: int) -> Converter:
    def convert(scalar: Scalar, _field: FieldDescriptor) -> int:
        text = scalar.parts[0]
        if scalar.kind == "integer" and not scalar.negative and text.isdigit() and text[0] != "0":
            value = int(text)  # plain decimal, the common case
            if value <= high:
                return value
        return _integer(scalar, low, high)

    return convert


def _string_converter(scalar: Scalar, _field: FieldDescriptor) -> str:
    parts = scalar.parts
    if scalar.kind == "string" and len(parts) == 1 and "\\" not in parts[0]:
        return parts[0][1:-1]  # one literal without escapes, the common case
    return _string(scalar)


def converter_for(field: FieldDescriptor) -> Converter:
    """The conversion function for a scalar field's values."""
    ftype = field.type
    if ftype in _RANGES:
        low, high = _RANGES[ftype]
        return _integer_converter(low, high)
    if ftype in (_T.TYPE_FLOAT, _T.TYPE_DOUBLE):
        return lambda s, _f: _float(s)
    if ftype == _T.TYPE_BOOL:
        return _bool
    if ftype == _T.TYPE_STRING:
        return _string_converter
    if ftype == _T.TYPE_BYTES:
        return lambda s, _f: (
            b"".join(unescape(p) for p in s.parts) if s.kind == "string" else _string(s)
        )
    if ftype == _T.TYPE_ENUM:
        return _enum_converter(field)
    raise ValueError(f"unsupported field type {ftype}")
