"""A semantic diff of two protobuf messages: field paths with old → new values.

`instance_group[0].count: 1 → 2`, `parameters["k"].string_value: "a" → "b"`,
`dynamic_batching: (absent) → { preferred_batch_size: [ 8 ] }`. Pure: two messages in, changes out.

What counts as a difference is what protobuf itself distinguishes: a proto3 scalar at its default
is the same as an absent one (Triton cannot tell them apart either), while a message field that is
present but empty (`dynamic_batching { }`) differs from an absent one, because Triton acts on
presence. Repeated fields are compared by position, maps by key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Literal, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from tritoncfg.record import record

ChangeKind = Literal["added", "removed", "changed"]
ABSENT = "(absent)"


@record(frozen=True)
class Change:
    """One difference. `old`/`new` are rendered values; None means the field is absent there."""

    path: str
    old: str | None
    new: str | None

    @property
    def kind(self) -> ChangeKind:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "changed"

    def __str__(self) -> str:
        return f"{self.path}: {self.old or ABSENT} → {self.new or ABSENT}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "old": self.old, "new": self.new}


def semantic_diff(old: Message, new: Message) -> list[Change]:
    """Every difference between two messages of the same type, in field declaration order."""
    if old.DESCRIPTOR.full_name != new.DESCRIPTOR.full_name:
        raise TypeError(f"cannot diff {old.DESCRIPTOR.full_name} with {new.DESCRIPTOR.full_name}")
    return list(_diff_message(old, new, ""))


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _set_fields(message: Message) -> dict[str, FieldDescriptor]:
    return {field.name: field for field, _ in message.ListFields()}


def _diff_message(old: Message, new: Message, prefix: str) -> Iterator[Change]:
    present_old, present_new = _set_fields(old), _set_fields(new)
    for field in cast(Sequence[FieldDescriptor], old.DESCRIPTOR.fields):
        if field.name not in present_old and field.name not in present_new:
            continue
        path = _join(prefix, field.name)
        if _is_map(field):
            yield from _diff_map(field, getattr(old, field.name), getattr(new, field.name), path)
        elif field.is_repeated:
            yield from _diff_repeated(
                field, list(getattr(old, field.name)), list(getattr(new, field.name)), path
            )
        elif field.name not in present_old:
            yield Change(path, None, render(field, getattr(new, field.name)))
        elif field.name not in present_new:
            yield Change(path, render(field, getattr(old, field.name)), None)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            yield from _diff_message(getattr(old, field.name), getattr(new, field.name), path)
        else:
            yield from _diff_scalar(field, getattr(old, field.name), getattr(new, field.name), path)


def _diff_scalar(field: FieldDescriptor, old: Any, new: Any, path: str) -> Iterator[Change]:
    if old != new:
        yield Change(path, render(field, old), render(field, new))


def _diff_repeated(
    field: FieldDescriptor, old: list[Any], new: list[Any], path: str
) -> Iterator[Change]:
    if field.type != FieldDescriptor.TYPE_MESSAGE:
        if old != new:
            yield Change(path, _render_list(field, old), _render_list(field, new))
        return
    for index in range(max(len(old), len(new))):
        item = f"{path}[{index}]"
        if index >= len(old):
            yield Change(item, None, render(field, new[index]))
        elif index >= len(new):
            yield Change(item, render(field, old[index]), None)
        else:
            yield from _diff_message(old[index], new[index], item)


def _diff_map(field: FieldDescriptor, old: Any, new: Any, path: str) -> Iterator[Change]:
    value_field = _message_type(field).fields_by_name["value"]
    for key in sorted(set(old) | set(new), key=str):
        item = f"{path}[{json.dumps(key) if isinstance(key, str) else key}]"
        if key not in old:
            yield Change(item, None, render(value_field, new[key]))
        elif key not in new:
            yield Change(item, render(value_field, old[key]), None)
        elif value_field.type == FieldDescriptor.TYPE_MESSAGE:
            yield from _diff_message(old[key], new[key], item)
        else:
            yield from _diff_scalar(value_field, old[key], new[key], item)


def _message_type(field: FieldDescriptor) -> Descriptor:
    assert field.message_type is not None, field.full_name
    return field.message_type


def _enum_type(field: FieldDescriptor) -> EnumDescriptor:
    assert field.enum_type is not None, field.full_name
    return field.enum_type


def _is_map(field: FieldDescriptor) -> bool:
    return (
        field.is_repeated
        and field.type == FieldDescriptor.TYPE_MESSAGE
        and _message_type(field).GetOptions().map_entry
    )


def render(field: FieldDescriptor, value: Any) -> str:
    """One value as it reads in a config: enums by name, strings quoted, messages on one line."""
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        body = _inline(value)
        return f"{{ {body} }}" if body else "{ }"
    if field.type == FieldDescriptor.TYPE_ENUM:
        named = _enum_type(field).values_by_number.get(value)
        return named.name if named is not None else str(value)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "true" if value else "false"
    if field.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        text = value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value
        return json.dumps(text, ensure_ascii=False)
    return str(value)


def _inline(message: Message) -> str:
    """A message on one line, as a config writes it: `name: "x" dims: [ 4, -1 ]`."""
    parts: list[str] = []
    for field, value in message.ListFields():
        if _is_map(field):
            value_field = _message_type(field).fields_by_name["value"]
            key_field = _message_type(field).fields_by_name["key"]
            items = (
                f"{{ key: {render(key_field, k)} value: {render(value_field, value[k])} }}"
                for k in sorted(value, key=str)
            )
            parts.append(f"{field.name} [ {', '.join(items)} ]")
        elif field.is_repeated:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                parts.append(f"{field.name} [ {', '.join(render(field, v) for v in value)} ]")
            else:
                parts.append(f"{field.name}: {_render_list(field, list(value))}")
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            parts.append(f"{field.name} {render(field, value)}")
        else:
            parts.append(f"{field.name}: {render(field, value)}")
    return " ".join(parts)


def _render_list(field: FieldDescriptor, values: list[Any]) -> str:
    return "[ " + ", ".join(render(field, v) for v in values) + " ]" if values else "[ ]"


__all__ = ["ABSENT", "Change", "ChangeKind", "render", "semantic_diff"]
