"""`complete --write`: add what the backend's auto-complete found to the config file.

Only what the backend derived from the model file is written, because only that stops being
derived once the config names its tensors (`backend_model.cc:TritonModel::UpdateModelConfig`):

* `max_batch_size` (added, or replacing a written `0` the backend filled in);
* `input` / `output` when the file has none, and inside tensors the file names, their
  `data_type`, `dims` and `reshape` when unset (the TensorRT backend completes those);
* the scheduling choice the backend added (`dynamic_batching { }`) when the file has none;
* `model_transaction_policy` when the backend set it and the file has none.

Left out on purpose: AUTOFILL's name/platform/backend/default_model_filename (derived at every
load, strict mode included), NORMALIZE's defaults (version policy, preferred batch sizes,
sequence idle time, pinned memory) and the instance groups, whose kind, count and GPU ids
depend on the host. A file that does not exist is created with `name` and `backend` too.

The file is changed by text edits at syntax-tree positions, so its comments, order and layout are
kept byte for byte; new text is in `tritoncfg fmt` style. The result is parsed again and must
bind to the original message plus the added values.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tritoncfg.complete.full import FullCompletion
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig, ModelInput, ModelOutput
from tritoncfg.text import ParsedConfig, parse
from tritoncfg.text.edits import Edit, apply_edits
from tritoncfg.text.printer import INDENT
from tritoncfg.text.render import render_message
from tritoncfg.text.span import Span
from tritoncfg.text.tree import Block, Field

WRITTEN_FIELDS = (
    "max_batch_size",
    "input",
    "output",
    "dynamic_batching",
    "sequence_batching",
    "model_transaction_policy",
)
TENSOR_FIELDS = ("data_type", "dims", "reshape")
CREATED_FIELDS = ("name", "backend")


class MergeError(Exception):
    """The merged text would not mean what the completion says (a tritoncfg bug)."""


@record
class Merge:
    text: str
    added: list[str] = field(default_factory=list)  # e.g. "max_batch_size", "input[0].dims"

    @property
    def changed(self) -> bool:
        return bool(self.added)


def fields_to_write(completion: FullCompletion, *, creating: bool = False) -> ModelConfig:
    """The values `--write` writes: the backend-derived fields (empty when the backend's
    auto-complete did not run), plus `name` and `backend` for a new file."""
    wanted = ModelConfig()
    source = completion.backend.config if completion.backend and completion.backend.ran else None
    if source is not None:
        for name in WRITTEN_FIELDS:
            _copy_field(source, wanted, name)
    if creating:
        wanted.name = completion.config.name
        wanted.backend = completion.config.backend
    return wanted


def merge_config(parsed: ParsedConfig | None, wanted: ModelConfig) -> Merge:
    """The config text with every field of `wanted` that it lacks added (`parsed` None: no
    file yet). Raises MergeError when the result does not bind to the expected message."""
    if parsed is None:
        head, rest = ModelConfig(), ModelConfig()
        head.CopyFrom(wanted)
        rest.CopyFrom(wanted)
        for name in CREATED_FIELDS:
            rest.ClearField(name)
        for name in WRITTEN_FIELDS:
            head.ClearField(name)
        text = render_message(head) + render_message(rest)  # name and backend first
        _verify(text, wanted)
        return Merge(text, [fd.name for fd, _ in (*head.ListFields(), *rest.ListFields())])
    if parsed.document is None or not parsed.ok:
        raise MergeError("the config does not parse; fix it first")
    planner = _Planner(parsed)
    planner.plan(wanted)
    if not planner.added:
        return Merge(parsed.source, [])
    text = apply_edits(parsed.source, planner.edits)
    _verify(text, planner.expected)
    return Merge(text, planner.added)


class _Planner:
    def __init__(self, parsed: ParsedConfig) -> None:
        assert parsed.document is not None
        self.parsed = parsed
        self.document = parsed.document
        self.expected = ModelConfig()
        self.expected.CopyFrom(parsed.message)
        self.edits: list[Edit] = []
        self.added: list[str] = []
        self.appended = ModelConfig()  # new top-level fields, printed together at the end

    def plan(self, wanted: ModelConfig) -> None:
        have = self.parsed.message
        for name in WRITTEN_FIELDS:
            fd = ModelConfig.DESCRIPTOR.fields_by_name[name]
            if fd.is_repeated:
                self._tensors(name, wanted)
            elif fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
                other = have.WhichOneof("scheduling_choice") if fd.containing_oneof else None
                if wanted.HasField(name) and not have.HasField(name) and other is None:
                    self._append(name, wanted)
            elif wanted.max_batch_size != have.max_batch_size and wanted.max_batch_size:
                self._max_batch_size(wanted.max_batch_size)
        if self.appended.ListFields():
            text = render_message(self.appended)
            self.edits.append(_append_edit(self.parsed.source, self.document.fields, None, text))

    def _append(self, name: str, wanted: ModelConfig) -> None:
        _copy_field(wanted, self.appended, name)
        _copy_field(wanted, self.expected, name)
        self.added.append(name)

    def _max_batch_size(self, value: int) -> None:
        location = self.parsed.location(("max_batch_size",))
        if location is None:
            self._append("max_batch_size", _with_mbs(value))
            return
        self.edits.append(Edit(location.value_span, str(value)))
        self.expected.max_batch_size = value
        self.added.append("max_batch_size")

    def _tensors(self, name: str, wanted: ModelConfig) -> None:
        want: list[ModelInput | ModelOutput] = list(getattr(wanted, name))
        have: list[ModelInput | ModelOutput] = list(getattr(self.parsed.message, name))
        if not want:
            return
        if not have:
            location = self.parsed.location((name,))
            if location is None:
                self._append(name, wanted)
                return
            # `input: [ ]` is written: the field is replaced by the completed one
            block = ModelConfig()
            _copy_field(wanted, block, name)
            text = render_message(block).rstrip("\n")
            self.edits.append(Edit(location.field.span, text))
            _copy_field(wanted, self.expected, name)
            self.added.append(name)
            return
        for index, (written, completed) in enumerate(zip(have, want, strict=False)):
            if written.name == completed.name:
                self._tensor_fields(name, index, written, completed)

    def _tensor_fields(
        self,
        name: str,
        index: int,
        written: ModelInput | ModelOutput,
        completed: ModelInput | ModelOutput,
    ) -> None:
        extra = type(completed)()
        for sub in TENSOR_FIELDS:
            if _unset(written, sub) and not _unset(completed, sub):
                _copy_field(completed, extra, sub)
        if not extra.ListFields():
            return
        location = self.parsed.location((name, index))
        assert location is not None
        value = location.item.value if location.item is not None else location.field.value
        assert isinstance(value, Block)
        self.edits.append(
            _append_edit(self.parsed.source, value.fields, value, render_message(extra))
        )
        target = getattr(self.expected, name)[index]
        for fd, _ in extra.ListFields():
            _copy_field(extra, target, fd.name)
            self.added.append(f"{name}[{index}].{fd.name}")


def _append_edit(source: str, fields: list[Field], block: Block | None, text: str) -> Edit:
    """Insert `text` (canonical lines) after the last of `fields` (top level: before the
    trailing comments), or into an empty `block` before its closing brace. Where the last field
    or the brace shares its line with other text, the new fields go on that line."""
    lines = source.split("\n")
    new = text.rstrip("\n").split("\n")
    flat = " ".join(line.strip() for line in new)
    if block is not None and block.span.line == block.span.end_line and not fields:
        brace = block.span.end_column - 1
        lead = "" if lines[block.span.line - 1][: brace - 1].endswith(" ") else " "
        return Edit(_at(block.span.end_line, brace), f"{lead}{flat} ")
    if fields:
        last = fields[-1].span
        rest = lines[last.end_line - 1][last.end_column - 1 :].strip().lstrip(",;").strip()
        if rest and not rest.startswith("#"):
            return Edit(_at(last.end_line, last.end_column), " " + flat)
        pad = _leading_space(lines[fields[-1].line - 1])
        line = last.end_line + 1
    elif block is not None:
        pad = _leading_space(lines[block.span.end_line - 1]) + INDENT
        line = block.span.end_line  # the closing brace, alone on its line
    else:
        pad, line = "", len(lines) + 1
    body = "".join(pad + text_line + "\n" if text_line else "\n" for text_line in new)
    if line <= len(lines):
        return Edit(_at(line, 1), body)
    tail = lines[-1]  # no newline at the end of the file
    return Edit(_at(len(lines), len(tail) + 1), ("\n" if tail else "") + body)


append_edit = _append_edit  # the generators add top-level fields the same way


def _at(line: int, column: int) -> Span:
    return Span(line, column, line, column)


def _leading_space(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _copy_field(source: Message, target: Message, name: str) -> None:
    fd = source.DESCRIPTOR.fields_by_name[name]
    value = getattr(source, name)
    if fd.is_repeated:
        container = getattr(target, name)
        del container[:]
        container.extend(value)
    elif fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        if source.HasField(name):
            getattr(target, name).CopyFrom(value)
    else:
        setattr(target, name, value)


def _unset(message: Message, name: str) -> bool:
    fd = message.DESCRIPTOR.fields_by_name[name]
    if fd.is_repeated:
        return not getattr(message, name)
    if fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        return not message.HasField(name)
    return not getattr(message, name)


def _with_mbs(value: int) -> ModelConfig:
    config = ModelConfig()
    config.max_batch_size = value
    return config


def _verify(text: str, expected: ModelConfig) -> None:
    reparsed = parse(text)
    if not reparsed.ok:
        error = reparsed.errors[0]
        raise MergeError(f"the merged config does not parse at {error.span}: {error.message}")
    if reparsed.message != expected:
        raise MergeError("the merged config does not bind to the completed values")


__all__ = [
    "CREATED_FIELDS",
    "TENSOR_FIELDS",
    "WRITTEN_FIELDS",
    "Merge",
    "MergeError",
    "append_edit",
    "fields_to_write",
    "merge_config",
    "render_message",
]
