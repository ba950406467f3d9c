"""Hypothesis strategies for model configurations, generated from the ModelConfig descriptor.

`configs()` draws a random `ModelConfig` by walking the schema (every field type, repeated fields,
maps, oneofs, nested messages to a bounded depth); `config_texts()` prints it as text format with
comments sprinkled in; `mutated()` damages a text by token deletions, insertions and swaps, with
tokens that are hostile on purpose (stray braces, NULs, a BOM, unterminated strings).
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import text_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

from tritoncfg.schema import ModelConfig

MAX_DEPTH = 3
_INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}


def _scalar(fd: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = fd.cpp_type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return st.one_of(st.integers(max(low, -4), 64), st.integers(low, high))
    if kind == FieldDescriptor.CPPTYPE_FLOAT:
        return st.floats(allow_nan=False, width=32)
    if kind == FieldDescriptor.CPPTYPE_DOUBLE:
        return st.floats(allow_nan=False)
    if kind == FieldDescriptor.CPPTYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.CPPTYPE_ENUM:
        assert fd.enum_type is not None
        return st.sampled_from([value.number for value in fd.enum_type.values])
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=8)
    return st.one_of(st.sampled_from(["x", "INPUT0", "onnxruntime", ""]), st.text(max_size=8))


def _fill(draw: st.DrawFn, message: Message, depth: int) -> Message:
    descriptor: Descriptor = message.DESCRIPTOR
    fields = list(descriptor.fields)
    if not fields:
        return message
    chosen = draw(st.lists(st.sampled_from(fields), max_size=6 if depth == 0 else 3, unique=True))
    for fd in chosen:
        if fd.containing_oneof is not None and message.WhichOneof(fd.containing_oneof.name):
            continue
        _set(draw, message, fd, depth)
    return message


def _set(draw: st.DrawFn, message: Message, fd: FieldDescriptor, depth: int) -> None:
    is_message = fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE
    if is_message and depth >= MAX_DEPTH:
        return
    if is_message and fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        key_fd = fd.message_type.fields_by_name["key"]
        value_fd = fd.message_type.fields_by_name["value"]
        container = getattr(message, fd.name)
        for key in draw(st.lists(_scalar(key_fd), max_size=2, unique=True)):
            if value_fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
                _fill(draw, container[key], depth + 1)
            else:
                container[key] = draw(_scalar(value_fd))
        return
    count = draw(st.integers(0, 2)) if fd.is_repeated else 1
    for _ in range(count):
        if is_message:
            target = getattr(message, fd.name)
            sub = target.add() if fd.is_repeated else target
            sub.SetInParent()
            _fill(draw, sub, depth + 1)
        elif fd.is_repeated:
            getattr(message, fd.name).append(draw(_scalar(fd)))
        else:
            setattr(message, fd.name, draw(_scalar(fd)))


@st.composite
def configs(draw: st.DrawFn) -> ModelConfig:
    config = ModelConfig()
    _fill(draw, config, 0)
    return config


@st.composite
def config_texts(draw: st.DrawFn) -> tuple[ModelConfig, str]:
    """A config and its text, with a comment at the end of some lines."""
    config = draw(configs())
    lines = text_format.MessageToString(config).split("\n")
    out = []
    for index, line in enumerate(lines):
        if draw(st.booleans()) and draw(st.booleans()):
            line += f"  # comment {index}"
        out.append(line)
    if draw(st.booleans()):
        out.insert(0, "# header")
    return config, "\n".join(out) + "\n"


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|[0-9.eE+-]+|#[^\n]*|\s+|.')
HOSTILE = [
    "{", "}", "<", ">", "[", "]", ":", ",", ";", "-", '"', "'", '"x"', "0x", "08", "1e", "1.5f",
    "TYPE_FP32", "input", "max_batch_size", "dims", "#", "\n", "\x00", "\ufeff", "\r", "\\",
    "optimization {", "nan", "-inf", "99999999999999999999999",
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """`text` with a few token deletions, insertions and swaps."""
    tokens = _TOKEN.findall(text) or [""]
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["delete", "insert", "swap"]))
        index = draw(st.integers(0, max(0, len(tokens) - 1)))
        if action == "delete" and len(tokens) > 1:
            del tokens[index]
        elif action == "insert":
            tokens.insert(index, draw(st.sampled_from(HOSTILE)))
        elif len(tokens) > 1:
            other = draw(st.integers(0, len(tokens) - 1))
            tokens[index], tokens[other] = tokens[other], tokens[index]
    return "".join(tokens)
