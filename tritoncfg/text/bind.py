"""Binding: syntax tree + schema → protobuf message, a source map, and every text-format error.

C++ `TextFormat::Parser` stops at the first error; binding goes on past a bad field so that lint can
report every independent problem of a file at once, up to `MAX_TEXT_ERRORS` (the rest are counted).
The accept/reject verdict is the same.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from tritoncfg.record import record
from tritoncfg.schema.lookup import suggest_enum_value, suggest_field
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

# Errors kept per file; past it they are only counted: a file with an error on every line
# would otherwise cost a finding per line (Triton itself stops at the first).
MAX_TEXT_ERRORS = 1_000


@record(frozen=True)
class TextError:
    """One text-format problem; `message` is the detail protobuf's C++ parser logs."""

    kind: ErrorKind
    message: str
    span: Span
    message_type: str | None = None  # the message type a field name was looked up in
    suggestion: str | None = None  # "did you mean" from the schema


class Location(NamedTuple):
    """Where a field (or one element of a repeated field) is written; spans are computed on demand.
    A tuple: binding makes one per field written, at C speed (`_located`)."""

    field: Field
    item: ListItem | None = None

    @property
    def value_span(self) -> Span:
        return (self.item.value if self.item is not None else self.field.value).span

    @property
    def name_span(self) -> Span:
        """The field name; for an element written in a list, the element's own opening."""
        if self.item is not None and isinstance(self.item.value, Block):
            line, column = self.item.value.span[:2]
            return _new(Span, (line, column, line, column + 1))
        return self.field.name_span


SourceMap = dict[FieldPath, Location]
# `_new(Location, (field, item))`: a Location without NamedTuple's Python `__new__`
_new = tuple.__new__

_MESSAGE = FieldDescriptor.CPPTYPE_MESSAGE


@record(frozen=True)
class _FieldFacts:
    """What binding asks of a field's descriptor, read once per field of the schema (a
    descriptor's attributes are computed on every access)."""

    fd: FieldDescriptor
    name: str
    oneof: str | None
    is_message: bool
    is_repeated: bool
    has_presence: bool
    is_map: bool
    map_value_is_message: bool
    convert: Converter  # of a scalar field's values (a message field's raises)


_FACTS: dict[Descriptor, dict[str, _FieldFacts]] = {}


def _facts_of(descriptor: Descriptor) -> dict[str, _FieldFacts]:
    """The fields of a message type by name, with their facts (computed once per type)."""
    found = _FACTS.get(descriptor)
    if found is None:
        found = _FACTS[descriptor] = {fd.name: _field_facts(fd) for fd in descriptor.fields}
    return found


def _field_facts(fd: FieldDescriptor) -> _FieldFacts:
    is_message = fd.cpp_type == _MESSAGE
    is_map = is_message and _message_type(fd).GetOptions().map_entry
    return _FieldFacts(
        fd=fd,
        name=fd.name,
        oneof=fd.containing_oneof.name if fd.containing_oneof is not None else None,
        is_message=is_message,
        is_repeated=fd.is_repeated,
        has_presence=fd.has_presence,
        is_map=is_map,
        map_value_is_message=is_map
        and _message_type(fd).fields_by_name["value"].cpp_type == _MESSAGE,
        convert=_not_scalar if is_message else converter_for(fd),
    )


def _not_scalar(_scalar: Scalar, fd: FieldDescriptor) -> object:
    raise AssertionError(f"{fd.full_name} is a message field")


class ErrorLog:
    """The text errors of one file: the first `MAX_TEXT_ERRORS` kept, the others counted, with
    where the first of them is."""

    def __init__(self) -> None:
        self.errors: list[TextError] = []
        self.omitted = 0
        self.first_omitted: TextError | None = None

    def keep(self, error: TextError) -> None:
        if len(self.errors) < MAX_TEXT_ERRORS:
            self.errors.append(error)
            return
        if self.first_omitted is None:
            self.first_omitted = error
        self.omitted += 1

    def absorb(self, inner: ErrorLog) -> None:
        """Keep a nested log's errors (and its count) as if they were reported here."""
        for error in inner.errors:
            self.keep(error)
        if inner.omitted and self.first_omitted is None:
            self.first_omitted = inner.first_omitted
        self.omitted += inner.omitted


class Binder(ErrorLog):
    def __init__(self) -> None:
        super().__init__()
        self.locations: SourceMap = {}

    def error(self, kind: ErrorKind, message: str, span: Span, **extra: str | None) -> None:
        self.keep(TextError(kind, message, span, **extra))

    def duplicate(self, node: Field, facts: _FieldFacts, message: Message) -> None:
        self.error(
            "duplicate-field",
            f'Non-repeated field "{facts.name}" is specified multiple times.',
            node.name_span,
            message_type=message.DESCRIPTOR.full_name,
        )

    def bind_fields(self, fields: list[Field], message: Message, path: FieldPath) -> None:
        """Bind `fields` into `message`, which starts empty: only this call sets its fields."""
        descriptor = cast("Descriptor", message.DESCRIPTOR)
        facts_by_name = _facts_of(descriptor)
        locations = self.locations
        for node in fields:
            facts = facts_by_name.get(node.name)
            if facts is None:
                self.error(
                    "unknown-field",
                    f'Message type "{descriptor.full_name}" has no field named "{node.name}".',
                    node.name_span,
                    message_type=descriptor.full_name,
                    suggestion=suggest_field(descriptor, node.name),
                )
                continue
            oneof = facts.oneof
            if oneof is not None:
                current = message.WhichOneof(oneof)
                if current is not None and current != facts.name:
                    self.error(
                        "oneof-conflict",
                        f'Field "{facts.name}" is specified along with field "{current}", '
                        f'another member of oneof "{oneof}".',
                        node.name_span,
                        message_type=descriptor.full_name,
                    )
                    continue
            field_path = (*path, facts.name)
            # a field not written before in this message is not set: the message started empty
            seen = field_path in locations
            if not seen:
                locations[field_path] = _new(Location, (node, None))
            if facts.is_message:
                self.bind_message_field(node, facts, message, field_path)
            else:
                self.bind_scalar_field(node, facts, message, field_path, seen)

    # -- message fields -------------------------------------------------------------------
    def bind_message_field(
        self, node: Field, facts: _FieldFacts, message: Message, path: FieldPath
    ) -> None:
        value = node.value
        if isinstance(value, Block) and facts.is_repeated and not facts.is_map:
            container = getattr(message, facts.name)  # `input { ... }`: a new element
            element_path = (*path, len(container))
            self.locations[element_path] = _new(Location, (node, None))
            self.bind_fields(value.fields, container.add(), element_path)
            return
        if isinstance(value, ListValue):
            if not facts.is_repeated:
                self.error("syntax", 'Expected "{", found "[".', value.span)
                return
            for item in value.items:
                if not isinstance(item.value, Block):
                    self.error(
                        "syntax", f'Expected "{{", found "{item.value.text}".', item.value.span
                    )
                    continue
                self.bind_sub_message(node, item.value, facts, message, path, item)
            return
        if isinstance(value, Scalar):
            self.error("syntax", f'Expected "{{", found "{value.text}".', value.span)
            return
        if not facts.is_repeated and message.HasField(facts.name):
            self.duplicate(node, facts, message)
            return
        self.bind_sub_message(node, value, facts, message, path, None)

    def bind_sub_message(
        self,
        node: Field,
        block: Block,
        facts: _FieldFacts,
        message: Message,
        path: FieldPath,
        item: ListItem | None,
    ) -> None:
        if not facts.is_repeated:
            sub = getattr(message, facts.name)
            sub.SetInParent()
            self.bind_fields(block.fields, sub, path)
            return
        container = getattr(message, facts.name)
        if facts.is_map:
            entry = container.GetEntryClass()()
            inner = Binder()
            inner.bind_fields(block.fields, entry, ())
            self.absorb(inner)
            entry_path: FieldPath = (
                *path,
                entry.key,
            )  # maps are addressed by key; the last entry wins
            self.locations[entry_path] = _new(Location, (node, item))
            for sub_path, location in inner.locations.items():
                self.locations[(*entry_path, *sub_path)] = location
            if facts.map_value_is_message:
                container[entry.key].CopyFrom(entry.value)
            else:
                container[entry.key] = entry.value
            return
        index = len(container)
        self.locations[(*path, index)] = _new(Location, (node, item))
        self.bind_fields(block.fields, container.add(), (*path, index))

    # -- scalar fields --------------------------------------------------------------------
    def bind_scalar_field(
        self, node: Field, facts: _FieldFacts, message: Message, path: FieldPath, seen: bool
    ) -> None:
        """`seen`: the field was written before in this message (so it may be set already)."""
        value = node.value
        fd = facts.fd
        if node.colon and isinstance(value, Scalar):  # `name: value`, most fields
            try:
                converted = facts.convert(value, fd)
            except ValueError as exc:
                self.conversion_error(exc, value, fd)
                return
            if facts.is_repeated:
                container = getattr(message, facts.name)
                self.locations[(*path, len(container))] = _new(Location, (node, None))
                container.append(converted)
                return
            if seen:
                if _is_set(message, facts):
                    self.duplicate(node, facts, message)
                    return
                # an earlier one did not convert
                self.locations[path] = _new(Location, (node, None))
            setattr(message, facts.name, converted)
            return
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
        convert = facts.convert
        if isinstance(value, ListValue):
            if not facts.is_repeated:
                self.error("invalid-value", f"Expected {_expected(fd)}, got: [", value.span)
                return
            container = getattr(message, facts.name)
            for item in value.items:
                if isinstance(item.value, Block):
                    self.error(
                        "invalid-value", f"Expected {_expected(fd)}, got: {{", item.value.span
                    )
                    continue
                converted = self.convert(convert, item.value, fd)
                if converted is not None:
                    self.locations[(*path, len(container))] = _new(Location, (node, item))
                    container.append(converted)
            return

    def convert(self, convert: Converter, scalar: Scalar, fd: FieldDescriptor) -> object | None:
        try:
            return convert(scalar, fd)
        except ValueError as exc:
            self.conversion_error(exc, scalar, fd)
        return None

    def conversion_error(self, exc: ValueError, scalar: Scalar, fd: FieldDescriptor) -> None:
        if isinstance(exc, UnknownEnumValue):
            enum = _enum_type(fd)
            self.error(
                "unknown-enum-value",
                str(exc),
                scalar.span,
                message_type=enum.full_name,
                suggestion=suggest_enum_value(enum, exc.value, enum.full_name),
            )
        else:
            self.error("invalid-value", str(exc), scalar.span)


def _message_type(fd: FieldDescriptor) -> Descriptor:
    assert fd.message_type is not None, fd.full_name
    return fd.message_type


def _enum_type(fd: FieldDescriptor) -> EnumDescriptor:
    assert fd.enum_type is not None, fd.full_name
    return fd.enum_type


def _is_set(message: Message, facts: _FieldFacts) -> bool:
    """C++ `Reflection::HasField`: proto3 scalars without presence count as set when non-default."""
    if facts.has_presence:
        return bool(message.HasField(facts.name))
    value = getattr(message, facts.name)
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
