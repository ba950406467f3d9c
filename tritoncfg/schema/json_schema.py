"""The JSON Schema (draft 2020-12) of a model configuration written as JSON, from the descriptor.

It follows what protobuf's JSON parser (`JsonStringToMessage`, which Triton's `JsonToModelConfig`
uses for a load-API config override) accepts, in the spelling Triton's HTTP API writes:

- properties are the proto field names (`max_batch_size`), as Triton's JSON uses them; the
  lowerCamelCase JSON names protobuf also accepts (`maxBatchSize`) are allowed as aliases;
- enums by name or by number; the canonical spelling is listed (editors offer it), and a pattern
  accepts the name in any letter case, as Triton does (`JsonToModelConfig` in core's
  `model_config_utils.cc` parses with `case_insensitive_enum_parsing`);
- 64-bit integers as strings (protobuf's canonical JSON) or as numbers (what Triton writes);
  32-bit integers as numbers or numeric strings; floats as numbers or "NaN"/"Infinity"/"-Infinity";
- maps as objects, repeated fields as arrays, at most one member of each oneof;
- no other properties (Triton rejects unknown fields).
"""

from __future__ import annotations

import re
from typing import Any, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from tritoncfg.schema import ModelConfig

SCHEMA_ID = "https://github.com/tritoncfg/tritoncfg/blob/main/docs/json.md"
_INT32_RANGE = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
}
_INT64_PATTERN = {
    FieldDescriptor.CPPTYPE_INT64: "^-?[0-9]+$",
    FieldDescriptor.CPPTYPE_UINT64: "^[0-9]+$",
}
_INT64_RANGE = {
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
_FLOAT = {
    "anyOf": [
        {"type": "number"},
        {"enum": ["NaN", "Infinity", "-Infinity"]},
        {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$"},
    ]
}


def model_config_schema() -> dict[str, Any]:
    """The whole schema, every message type of ModelConfig under `$defs`."""
    descriptor = cast("Descriptor", ModelConfig.DESCRIPTOR)
    definitions: dict[str, Any] = {}
    _define(descriptor, definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Triton model configuration (inference.ModelConfig) as JSON",
        "$ref": _ref(descriptor),
        "$defs": dict(sorted(definitions.items())),
    }


def _ref(descriptor: Descriptor) -> str:
    return f"#/$defs/{descriptor.full_name}"


def _define(descriptor: Descriptor, definitions: dict[str, Any]) -> None:
    if descriptor.full_name in definitions:
        return
    definitions[descriptor.full_name] = {}  # placeholder: recursion ends here
    properties: dict[str, Any] = {}
    for fd in descriptor.fields:
        schema = _field_schema(fd, definitions)
        properties[fd.name] = schema
        if fd.json_name != fd.name:
            properties[fd.json_name] = {
                "$ref": f"#/$defs/{descriptor.full_name}/properties/{fd.name}"
            }
    definition: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    exclusive = _oneof_rules(descriptor)
    if exclusive:
        definition["not"] = {"anyOf": exclusive}
    definitions[descriptor.full_name] = definition


def _oneof_rules(descriptor: Descriptor) -> list[dict[str, Any]]:
    """`required` pairs that may not both be present: two members of one oneof."""
    pairs: list[dict[str, Any]] = []
    for oneof in descriptor.oneofs:
        spellings = [sorted({fd.name, fd.json_name}) for fd in oneof.fields]
        for i, first in enumerate(spellings):
            for second in spellings[i + 1 :]:
                pairs.extend({"required": [a, b]} for a in first for b in second)
    return pairs


def _field_schema(fd: FieldDescriptor, definitions: dict[str, Any]) -> dict[str, Any]:
    if fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        message = fd.message_type
        assert message is not None
        if message.GetOptions().map_entry:
            key = message.fields_by_name["key"]
            value = message.fields_by_name["value"]
            schema: dict[str, Any] = {
                "type": "object",
                "additionalProperties": _single(value, definitions),
            }
            if key.cpp_type != FieldDescriptor.CPPTYPE_STRING:
                schema["propertyNames"] = {
                    "pattern": _INT64_PATTERN.get(key.cpp_type, "^-?[0-9]+$")
                }
            return schema
    single = _single(fd, definitions)
    if fd.is_repeated:
        return {"type": "array", "items": single}
    return single


def _enum(enum: EnumDescriptor) -> dict[str, Any]:
    """The names (canonical spelling first, for editors) or numbers, or a name in any letter case:
    protobuf's `case_insensitive_enum_parsing` upper-cases a name that does not match, and every
    name of ModelConfig's enums is upper case. JSON Schema's regular expressions have no
    case-insensitive flag, so each letter is a class of its two cases."""
    names: list[str | int] = [value.name for value in enum.values]
    numbers: list[str | int] = [value.number for value in enum.values]
    any_case = "|".join("".join(_either_case(char) for char in value.name) for value in enum.values)
    return {
        "anyOf": [{"enum": names + numbers}, {"type": "string", "pattern": f"^(?:{any_case})$"}]
    }


def _either_case(char: str) -> str:
    if char.isalpha():
        return f"[{char.upper()}{char.lower()}]"
    return re.escape(char)


def _single(fd: FieldDescriptor, definitions: dict[str, Any]) -> dict[str, Any]:
    """The schema of one value of the field (an item, for a repeated field)."""
    kind = fd.cpp_type
    if kind == FieldDescriptor.CPPTYPE_MESSAGE:
        assert fd.message_type is not None
        _define(fd.message_type, definitions)
        return {"$ref": _ref(fd.message_type)}
    if kind == FieldDescriptor.CPPTYPE_ENUM:
        assert fd.enum_type is not None
        return _enum(fd.enum_type)
    if kind in _INT32_RANGE:
        low, high = _INT32_RANGE[kind]
        pattern = "^[0-9]+$" if low == 0 else "^-?[0-9]+$"
        return {
            "anyOf": [
                {"type": "integer", "minimum": low, "maximum": high},
                {"type": "string", "pattern": pattern},
            ]
        }
    if kind in _INT64_PATTERN:
        low, high = _INT64_RANGE[kind]
        return {
            "anyOf": [
                {"type": "string", "pattern": _INT64_PATTERN[kind]},
                {"type": "integer", "minimum": low, "maximum": high},
            ]
        }
    if kind in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return dict(_FLOAT)
    if kind == FieldDescriptor.CPPTYPE_BOOL:
        return {"type": "boolean"}
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return {"type": "string", "contentEncoding": "base64"}
    return {"type": "string"}
