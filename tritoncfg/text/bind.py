"""Binding: syntax tree + schema → protobuf message, a source map, and every text-format error.

C++ `TextFormat::Parser` stops at the first error; binding goes on past a bad field so that lint can
report every independent problem of a file at once. The accept/reject verdict is the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from tritoncfg.schema.lookup import enum_value_names, field_names, suggest
from tritoncfg.text.scalars import Converter, UnknownEnumValue, converter_for
from tritoncfg.text.span import Span
from tritoncfg.text.tree import Block, Field, ListItem, ListValue, Scalar

ErrorKind = Literal[
    "syntax",
    "unknown-field",
    "duplicate-field",
    "oneof-conflict",
    "unknown-enum-value",
    "invalid-value",
]

FieldPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class TextError:
    """One text-format problem; `message` is the detail protobuf's C++ parser logs."""

    kind: ErrorKind
    message: str
    span: Span
    message_type: str | None = None  # the message type a field name was looked up in
    suggestion: str | None = None  # "did you mean" from the schema


@dataclass(slots=True)
class Location:
    """Where a field (or one element of a repeated field) is written; spans are computed on demand."""

    field: Field
    item: ListItem | None = None

    @property
    def value_span(self) -> Span:
        return (self.item.value if self.item is not None else self.field.value).span

    @property
    def name_span(self) -> Span:
        """The field name; for an element written in a list, the element's own opening."""
        if self.item is not None and isinstance(self.item.value, Block):
            span = self.item.value.span
            return Span(span.line, span.column, span.line, span.column + 1)
        return self.field.name_span


SourceMap = dict[FieldPath, Location]

_MESSAGE = FieldDescriptor.CPPTYPE_MESSAGE


class Binder:
    def __init__(self) -> None:
        self.errors: list[TextError] = []
        self.locations: SourceMap = {}

    def error(self, kind: ErrorKind, message: str, span: Span, **extra: str | None) -> None:
        self.errors.append(TextError(kind, message, span, **extra))

    def bind_fields(self, fields: list[Field], message: Message, path: FieldPath) -> None:
        descriptor = message.DESCRIPTOR
        for node in fields:
            fd = cast("FieldDescriptor | None", descriptor.fields_by_name.get(node.name))
            if fd is None:
                self.error(
                    "unknown-field",
                    f'Message type "{descriptor.full_name}" has no field named "{node.name}".',
                    node.name_span,
                    message_type=descriptor.full_name,
                    suggestion=suggest(node.name, field_names(descriptor)),
                )
                continue
            oneof = fd.containing_oneof
            if oneof is not None:
                current = message.WhichOneof(oneof.name)
                if current is not None and current != fd.name:
                    self.error(
                        "oneof-conflict",
                        f'Field "{fd.name}" is specified along with field "{current}", '
                        f'another member of oneof "{oneof.name}".',
                        node.name_span,
                        message_type=descriptor.full_name,
                    )
                    continue
            field_path = (*path, fd.name)
            if field_path not in self.locations:
                self.locations[field_path] = Location(node)
            if fd.cpp_type == _MESSAGE:
                self.bind_message_field(node, fd, message, field_path)
            else:
                self.bind_scalar_field(node, fd, message, field_path)

    # -- message fields -------------------------------------------------------------------
    def bind_message_field(
        self, node: Field, fd: FieldDescriptor, message: Message, path: FieldPath
    ) -> None:
        value = node.value
        if isinstance(value, ListValue):
            if not fd.is_repeated:
                self.error("syntax", 'Expected "{", found "[".', value.span)
                return
            for item in value.items:
                if not isinstance(item.value, Block):
                    self.error(
                        "syntax", f'Expected "{{", found "{item.value.text}".', item.value.span
                    )
                    continue
                self.bind_sub_message(node, item.value, fd, message, path, item)
            return
        if isinstance(value, Scalar):
            self.error("syntax", f'Expected "{{", found "{value.text}".', value.span)
            return
        if not fd.is_repeated and message.HasField(fd.name):
            self.error(
                "duplicate-field",
                f'Non-repeated field "{fd.name}" is specified multiple times.',
                node.name_span,
                message_type=message.DESCRIPTOR.full_name,
            )
            return
        self.bind_sub_message(node, value, fd, message, path, None)

    def bind_sub_message(
        self,
        node: Field,
        block: Block,
        fd: FieldDescriptor,
        message: Message,
        path: FieldPath,
        item: ListItem | None,
    ) -> None:
        if not fd.is_repeated:
            sub = getattr(message, fd.name)
            sub.SetInParent()
            self.bind_fields(block.fields, sub, path)
            return
        container = getattr(message, fd.name)
        if _message_type(fd).GetOptions().map_entry:
            entry = container.GetEntryClass()()
            inner = Binder()
            inner.bind_fields(block.fields, entry, ())
            self.errors.extend(inner.errors)
            entry_path: FieldPath = (
                *path,
                entry.key,
            )  # maps are addressed by key; the last entry wins
            self.locations[entry_path] = Location(node, item)
            for sub_path, location in inner.locations.items():
                self.locations[(*entry_path, *sub_path)] = location
            if _message_type(fd).fields_by_name["value"].cpp_type == _MESSAGE:
                container[entry.key].CopyFrom(entry.value)
            else:
                container[entry.key] = entry.value
            return
        index = len(container)
        self.locations[(*path, index)] = Location(node, item)
        self.bind_fields(block.fields, container.add(), (*path, index))

    # -- scalar fields --------------------------------------------------------------------
    def bind_scalar_field(
        self, node: Field, fd: FieldDescriptor, message: Message, path: FieldPath
    ) -> None:
        value = node.value
        if not node.colon:
            shown = (
                "["
                if isinstance(value, ListValue)
                else "{"
                if isinstance(value, Block)
                else value.text
            )
            self.error("syntax", f'Expected ":", found "{shown}".', value.span)
            return
        if isinstance(value, Block):
            self.error("invalid-value", f"Expected {_expected(fd)}, got: {{", value.span)
            return
        convert = converter_for(fd)
        if isinstance(value, ListValue):
            if not fd.is_repeated:
                self.error("invalid-value", f"Expected {_expected(fd)}, got: [", value.span)
                return
            container = getattr(message, fd.name)
            for item in value.items:
                if isinstance(item.value, Block):
                    self.error(
                        "invalid-value", f"Expected {_expected(fd)}, got: {{", item.value.span
                    )
                    continue
                converted = self.convert(convert, item.value, fd)
                if converted is not None:
                    self.locations[(*path, len(container))] = Location(node, item)
                    container.append(converted)
            return
        converted = self.convert(convert, value, fd)
        if converted is None:
            return
        if fd.is_repeated:
            container = getattr(message, fd.name)
            self.locations[(*path, len(container))] = Location(node)
            container.append(converted)
            return
        if _is_set(message, fd):
            self.error(
                "duplicate-field",
                f'Non-repeated field "{fd.name}" is specified multiple times.',
                node.name_span,
                message_type=message.DESCRIPTOR.full_name,
            )
            return
        self.locations[path] = Location(node)
        setattr(message, fd.name, converted)

    def convert(self, convert: Converter, scalar: Scalar, fd: FieldDescriptor) -> object | None:
        try:
            return convert(scalar, fd)
        except UnknownEnumValue as exc:
            enum = _enum_type(fd)
            self.error(
                "unknown-enum-value",
                str(exc),
                scalar.span,
                message_type=enum.full_name,
                suggestion=suggest(exc.value, enum_value_names(enum), enum_type=enum.full_name),
            )
        except ValueError as exc:
            self.error("invalid-value", str(exc), scalar.span)
        return None


def _message_type(fd: FieldDescriptor) -> Descriptor:
    assert fd.message_type is not None, fd.full_name
    return fd.message_type


def _enum_type(fd: FieldDescriptor) -> EnumDescriptor:
    assert fd.enum_type is not None, fd.full_name
    return fd.enum_type


def _is_set(message: Message, fd: FieldDescriptor) -> bool:
    """C++ `Reflection::HasField`: proto3 scalars without presence count as set when non-default."""
    if fd.has_presence:
        return bool(message.HasField(fd.name))
    value = getattr(message, fd.name)
    if isinstance(value, float):
        return value != 0.0 or str(value).startswith("-")
    return bool(value)


def _expected(fd: FieldDescriptor) -> str:
    if fd.type == FieldDescriptor.TYPE_STRING:
        return "string"
    if fd.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return "double"
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return "integer or identifier"
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return "identifier"
    return "integer"
