"""A protobuf message as config text in `tritoncfg fmt` style: what `complete`, `convert`, `gen`
and `new` print for a message that has no source text."""

from __future__ import annotations

from typing import Any

from google.protobuf import message_factory, text_encoding
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tritoncfg.text.printer import format_source


def render_message(message: Message) -> str:
    """A message's set fields as config text in `tritoncfg fmt` style (lists for repeated
    fields, as Triton's docs write them)."""
    return format_source("\n".join(_field_text(fd, v) for fd, v in message.ListFields()) + "\n")


def _field_text(fd: FieldDescriptor, value: Any) -> str:
    """One field as text on one line (`render_message` lays it out)."""
    if fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        entry_type = fd.message_type
        assert entry_type is not None
        if entry_type.GetOptions().map_entry:
            # Any: a map entry's class takes `key=`; Message's stubs declare no fields
            entry_class: Any = message_factory.GetMessageClass(entry_type)
            entries = []
            for key in sorted(value):  # as protobuf's text printers do: stable across runs
                entry = entry_class(key=key)
                if isinstance(value[key], Message):
                    entry.value.CopyFrom(value[key])
                else:
                    entry.value = value[key]
                entries.append(_block(entry))
            return f"{fd.name} [ {', '.join(entries)} ]"
        if fd.is_repeated:
            return f"{fd.name} [ {', '.join(_block(v) for v in value)} ]"
        return f"{fd.name} {_block(value)}"
    if fd.is_repeated:
        return f"{fd.name}: [ {', '.join(_scalar(fd, v) for v in value)} ]"
    return f"{fd.name}: {_scalar(fd, value)}"


def _block(message: Message) -> str:
    inner = " ".join(_field_text(fd, v) for fd, v in message.ListFields())
    return f"{{ {inner} }}" if inner else "{ }"


def _scalar(fd: FieldDescriptor, value: Any) -> str:
    if fd.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
        assert fd.enum_type is not None
        known = fd.enum_type.values_by_number.get(value)
        return known.name if known is not None else str(value)
    if fd.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return "true" if value else "false"
    if fd.cpp_type == FieldDescriptor.CPPTYPE_STRING:
        raw = value if isinstance(value, bytes) else value.encode("utf-8")
        return '"' + text_encoding.CEscape(raw, as_utf8=not isinstance(value, bytes)) + '"'
    return repr(value) if isinstance(value, float) else str(value)
