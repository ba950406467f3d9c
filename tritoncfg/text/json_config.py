"""JSON configs: a `.json` file → the same `ParsedConfig` a config.pbtxt gives, with positions.

Triton reads a model's config from `config.pbtxt` only; JSON is what its HTTP API returns
(`GET /v2/models/<m>/config`) and what the load API takes as a config override
(`model_repository_manager.cc`: `JsonToModelConfig`, protobuf's `JsonStringToMessage` with
case-insensitive enum names and unknown fields rejected). tritoncfg reads such a file with
protobuf's `json_format` into the same `inference.ModelConfig`, and keeps where each key is written
(json_reader.py), so findings point at JSON lines. The source map has the same field paths as for
text format; its nodes are stand-in syntax-tree nodes that carry the JSON spans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from tritoncfg.record import record
from tritoncfg.schema import ModelConfig
from tritoncfg.schema.lookup import suggest_field
from tritoncfg.text.bind import ErrorKind, ErrorLog, FieldPath, Location, SourceMap, TextError
from tritoncfg.text.config import ParsedConfig, bound_config, parse
from tritoncfg.text.json_reader import JsonMember, JsonNode, JsonValue, read_json
from tritoncfg.text.parser import SyntaxProblem
from tritoncfg.text.tree import Block, Field, ListItem, ListValue, Scalar

if TYPE_CHECKING:
    from google.protobuf.message import Message as ProtoMessage

_MESSAGE = FieldDescriptor.CPPTYPE_MESSAGE
_ENUM = FieldDescriptor.CPPTYPE_ENUM


def parse_json(source: str, path: str | None = None) -> ParsedConfig:
    """Parse a JSON config. Never raises for bad input: problems are in `.errors`."""
    message = ModelConfig()
    try:
        root = read_json(source)
    except SyntaxProblem as exc:
        return ParsedConfig(
            source, path, None, message, [TextError("syntax", exc.message, exc.span)]
        )
    if root.kind != "object":
        error = TextError("syntax", "A model configuration must be a JSON object.", root.span)
        return ParsedConfig(source, path, None, message, [error])
    binder = _JsonBinder()
    binder.bind(root, message, ())
    return bound_config(source, path, None, message, binder, binder.locations)


def _stand_in(node: JsonNode) -> Scalar | Block:
    """A syntax-tree value with the JSON node's span (what a `Location` reads)."""
    if node.kind == "object":
        return Block([], node.span)
    text = str(node.scalar) if node.kind != "array" else "["
    return Scalar("string", (text,), False, *node.span)


def _field_node(name: str, member: JsonMember) -> Field:
    value: Scalar | Block | ListValue = (
        ListValue([ListItem(_stand_in(item)) for item in member.value.items], member.value.span)
        if member.value.kind == "array"
        else _stand_in(member.value)
    )
    return Field(name, member.key_span.line, member.key_span.column, value, True)


def _message_type(fd: FieldDescriptor) -> Descriptor:
    assert fd.message_type is not None, fd.full_name
    return fd.message_type


def _is_map(fd: FieldDescriptor) -> bool:
    return fd.cpp_type == _MESSAGE and bool(_message_type(fd).GetOptions().map_entry)


def _lookup(descriptor: Descriptor, key: str) -> FieldDescriptor | None:
    found = descriptor.fields_by_name.get(key)
    if found is None:
        found = next((fd for fd in descriptor.fields if fd.json_name == key), None)
    return found


class _JsonBinder(ErrorLog):
    """Walks the JSON with the schema: source map, then the message through `json_format`,
    with each failure pinned to the deepest member that fails alone."""

    def __init__(self) -> None:
        super().__init__()
        self.locations: SourceMap = {}

    def bind(self, node: JsonNode, message: Message, path: FieldPath) -> None:
        descriptor = cast("Descriptor", message.DESCRIPTOR)
        oneofs: dict[str, str] = {}
        for member in node.members:
            fd = _lookup(descriptor, member.key)
            if fd is not None and fd.containing_oneof is not None and member.value.kind != "null":
                other = oneofs.setdefault(fd.containing_oneof.name, fd.name)
                if other != fd.name:
                    self.keep(
                        TextError(
                            "oneof-conflict",
                            f'Field "{fd.name}" is specified along with field "{other}", '
                            f'another member of oneof "{fd.containing_oneof.name}".',
                            member.key_span,
                            message_type=descriptor.full_name,
                        )
                    )
                    continue
            if fd is None:
                self.keep(
                    TextError(
                        "unknown-field",
                        f'Message type "{descriptor.full_name}" has no field named "{member.key}".',
                        member.key_span,
                        message_type=descriptor.full_name,
                        suggestion=suggest_field(descriptor, member.key),
                    )
                )
                continue
            self.locate(fd, member, (*path, fd.name))
            value = _normalized(member.value, fd)
            try:
                json_format.ParseDict({fd.name: value}, message)
            except (json_format.ParseError, ValueError, TypeError) as exc:
                self.pin(fd, member.value, (*path, fd.name), message, exc)

    def locate(self, fd: FieldDescriptor, member: JsonMember, path: FieldPath) -> None:
        node = _field_node(fd.name, member)
        self.locations.setdefault(path, Location(node))
        value = member.value
        if _is_map(fd):
            value_fd = _message_type(fd).fields_by_name["value"]
            for entry in value.members if value.kind == "object" else []:
                entry_path = (*path, entry.key)
                self.locations[entry_path] = Location(_field_node(fd.name, entry))
                self.locations[(*entry_path, "value")] = Location(_field_node("value", entry))
                if value_fd.cpp_type == _MESSAGE and entry.value.kind == "object":
                    self.locate_members(
                        _message_type(value_fd), entry.value, (*entry_path, "value")
                    )
        elif fd.is_repeated:
            for index, item in enumerate(value.items if value.kind == "array" else []):
                list_value = cast("ListValue", node.value)
                self.locations[(*path, index)] = Location(node, list_value.items[index])
                if fd.cpp_type == _MESSAGE and item.kind == "object":
                    self.locate_members(_message_type(fd), item, (*path, index))
        elif fd.cpp_type == _MESSAGE and value.kind == "object":
            self.locate_members(_message_type(fd), value, path)

    def locate_members(self, descriptor: Descriptor, node: JsonNode, path: FieldPath) -> None:
        for member in node.members:
            fd = _lookup(descriptor, member.key)
            if fd is not None:
                self.locate(fd, member, (*path, fd.name))

    def pin(
        self, fd: FieldDescriptor, node: JsonNode, path: FieldPath, parent: Message, exc: Exception
    ) -> None:
        """Report a member that `json_format` rejects, at its deepest failing part; what does
        parse of a message member is kept (best effort, as binding a pbtxt does)."""
        if fd.cpp_type == _MESSAGE and not _is_map(fd):
            if not fd.is_repeated and node.kind == "object":
                sub = getattr(parent, fd.name)
                sub.SetInParent()
                self.bind(node, sub, path)
                return
            if fd.is_repeated and node.kind == "array":
                container = getattr(parent, fd.name)
                del container[:]
                for index, item in enumerate(node.items):
                    if item.kind != "object":
                        self.fail(fd, item, f"Expected an object for {fd.name}[{index}].")
                        continue
                    self.bind(item, container.add(), (*path, index))
                return
        self.fail(fd, node, _detail(exc))

    def fail(self, fd: FieldDescriptor, node: JsonNode, detail: str) -> None:
        kind: ErrorKind = (
            "unknown-enum-value" if fd.cpp_type == _ENUM and "enum" in detail else "invalid-value"
        )
        self.keep(TextError(kind, detail, node.span))


def _detail(exc: Exception) -> str:
    """json_format's message without its list of every field name."""
    return str(exc).split("\n", 1)[0].strip()


def _normalized(node: JsonNode, fd: FieldDescriptor) -> JsonValue:
    """The member's plain value, enum names matched case-insensitively as Triton's
    `JsonToModelConfig` does."""
    plain = node.plain()
    if fd.cpp_type == _ENUM:
        return _enum_names(plain, fd)
    if fd.cpp_type == _MESSAGE:
        return _message_enums(plain, fd)
    return plain


def _enum_names(value: JsonValue, fd: FieldDescriptor) -> JsonValue:
    if isinstance(value, list):
        return [_enum_names(item, fd) for item in value]
    if isinstance(value, str) and fd.enum_type is not None:
        upper = {name.upper(): name for name in fd.enum_type.values_by_name}
        return upper.get(value.upper(), value)
    return value


def _message_enums(value: JsonValue, fd: FieldDescriptor) -> JsonValue:
    descriptor = fd.message_type
    if isinstance(value, list):
        return [_message_enums(item, fd) for item in value]
    if not isinstance(value, dict) or descriptor is None:
        return value
    if descriptor.GetOptions().map_entry:
        value_fd = descriptor.fields_by_name["value"]
        return {key: _normalized_plain(item, value_fd) for key, item in value.items()}
    out: dict[str, JsonValue] = {}
    for key, item in value.items():
        sub = _lookup(descriptor, key)
        out[key] = item if sub is None else _normalized_plain(item, sub)
    return out


def _normalized_plain(value: JsonValue, fd: FieldDescriptor) -> JsonValue:
    if fd.cpp_type == _ENUM:
        return _enum_names(value, fd)
    if fd.cpp_type == _MESSAGE:
        return _message_enums(value, fd)
    return value


def message_to_json(config: ProtoMessage) -> dict[str, Any]:
    """Protobuf JSON with the proto field names and 64-bit integers as numbers, as Triton's HTTP
    API writes a config (`GET /v2/models/<m>/config`)."""
    document = json_format.MessageToDict(config, preserving_proto_field_name=True)
    _int64_as_numbers(document, cast("Descriptor", config.DESCRIPTOR))
    return document


def _int64_as_numbers(document: dict[str, Any], descriptor: Descriptor) -> None:
    int64 = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)
    for name, value in document.items():
        fd = descriptor.fields_by_name.get(name)
        if fd is None:
            continue
        kind = fd.message_type
        if kind is not None and kind.GetOptions().map_entry:
            value_fd = kind.fields_by_name["value"]
            for key, item in value.items():
                if value_fd.message_type is not None:
                    _int64_as_numbers(item, value_fd.message_type)
                elif value_fd.cpp_type in int64:
                    value[key] = int(item)
        elif kind is not None:
            for item in value if fd.is_repeated else [value]:
                _int64_as_numbers(item, kind)
        elif fd.cpp_type in int64:
            document[name] = [int(v) for v in value] if fd.is_repeated else int(value)


@record
class Converted:
    text: str = ""
    error: TextError | None = None
    dropped_comments: int = 0


def convert_text(source: str, *, from_json: bool, to_json: bool) -> Converted:
    """`tritoncfg convert`: the config in the other format (or the same one, formatted)."""
    from tritoncfg.text.json_reader import dump_json, format_json
    from tritoncfg.text.printer import format_source
    from tritoncfg.text.render import render_message

    parsed = parse_json(source) if from_json else parse(source)
    if not parsed.ok:
        return Converted(error=parsed.errors[0])
    if from_json:
        text = format_json(source) if to_json else render_message(parsed.message)
        return Converted(text)
    if not to_json:
        return Converted(format_source(source))
    document = parsed.document
    comments = len(list(document.comments())) if document is not None else 0
    message = parsed.message
    del parsed, document  # the tree and source map go before the JSON document is built
    return Converted(dump_json(message_to_json(message)), dropped_comments=comments)
