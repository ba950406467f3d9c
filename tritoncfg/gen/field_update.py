"""How a generator sets fields in a config file: only what differs is edited, at the smallest
field that differs, so the rest of the file — comments, order, layout — stays byte for byte.

For each field to set: one whose value is already the wanted one is left alone; one not written
is added after the last field of its block (top level: after the last top-level field); one
the wanted message leaves unset is removed. A message written once (`dynamic_batching { ... }`)
and each entry of a list of messages (`instance_group [ {...}, {...} ]`) is descended into and
updated field by field, so the comments on the fields that stay are kept; a list written once
(`name [ ... ]`) that grows or shrinks gets entries added after its last or its last removed.
Anything else (a scalar, a list of scalars, a map) is replaced in its place in `tritoncfg fmt`
style; later occurrences of it are removed. A replaced or removed field takes its trailing
comment with it (it described the old value); comment lines before a field stay. The result must bind to exactly the message intended, or GenError says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import Message

from tritoncfg.complete.merge import append_edit, render_message
from tritoncfg.gen.change import GenError
from tritoncfg.schema import ModelConfig
from tritoncfg.text import ParsedConfig, parse
from tritoncfg.text.edits import Edit, apply_edits, delete_field, line_span
from tritoncfg.text.printer import INDENT
from tritoncfg.text.span import Span
from tritoncfg.text.tree import Block, Field, ListValue


def set_fields(parsed: ParsedConfig, wanted: ModelConfig, names: Iterable[str]) -> str:
    """The config text with each top-level field of `names` set to its value in `wanted` (a
    field `wanted` leaves unset is removed). Raises GenError when the file does not parse, and
    checks that the result binds to exactly the expected message."""
    if parsed.document is None or not parsed.ok:
        error = parsed.errors[0]
        raise GenError(
            f"{parsed.path}:{error.span.line}:{error.span.column}: {error.message} (fix it first)"
        )
    names = tuple(names)
    expected = ModelConfig()
    expected.CopyFrom(parsed.message)
    for name in names:
        _copy(wanted, expected, name)
    update = _Update(parsed.source)
    update.block(parsed.document.fields, None, parsed.message, wanted, names)
    text = apply_edits(parsed.source, update.edits)
    check_binds(text, expected)
    return text


def check_binds(text: str, expected: ModelConfig) -> None:
    reparsed = parse(text)
    if not reparsed.ok or reparsed.message != expected:
        raise GenError("internal error: the generated config does not mean what was generated")


class _Update:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = source.splitlines()
        self.edits: list[Edit] = []

    def block(
        self,
        fields: list[Field],
        block: Block | None,
        have: Message,
        want: Message,
        names: Iterable[str],
    ) -> None:
        """Edit the fields `names` of one block (None: the document) from `have` to `want`."""
        appended = type(want)()
        for name in names:
            if _only(have, name) == _only(want, name):
                continue
            written = [f for f in fields if f.name == name]
            if not written:
                _copy(want, appended, name)
            elif not _only(want, name).ListFields():
                self.edits.extend(self._remove(node) for node in written)
            elif not self._descend(written, have, want, name):
                self.edits.append(self._replace(written[0], _only(want, name)))
                self.edits.extend(self._remove(node) for node in written[1:])
        if appended.ListFields():
            self.edits.append(append_edit(self.source, fields, block, render_message(appended)))

    def _descend(self, written: list[Field], have: Message, want: Message, name: str) -> bool:
        """Update a message (or each message of a list of the same length) field by field;
        False when the field is not written so that this can be done."""
        fd = want.DESCRIPTOR.fields_by_name[name]
        entry = fd.message_type
        if entry is None or entry.GetOptions().map_entry:
            return False
        blocks = _blocks(written)
        pairs: list[tuple[Message, Message]]
        if fd.is_repeated:
            olds, news = list(getattr(have, name)), list(getattr(want, name))
            if blocks is None or len(blocks) != len(olds):
                return False
            if len(news) != len(olds):
                resized = self._resize(written[0], len(olds), want, name)
                if resized is None:
                    return False
                blocks = blocks[: len(resized)]
                olds, news = olds[: len(resized)], resized
            pairs = list(zip(olds, news, strict=True))
        else:
            if blocks is None or len(blocks) != 1 or not getattr(want, name).ListFields():
                return False  # an empty message is written `name { }`, as fmt writes it
            if _empty(blocks[0]):  # `name { }`: filled in fmt style, its trailing comment kept
                self.edits.append(self._fill(blocks[0], written[0], _only(want, name)))
                return True
            pairs = [(getattr(have, name), getattr(want, name))]
        every = [sub.name for sub in entry.fields]
        for found, (old, new) in zip(blocks, pairs, strict=True):
            self.block(found.fields, found, old, new, every)
        return True

    def _resize(self, node: Field, count: int, want: Message, name: str) -> list[Message] | None:
        """A list of messages `[ {...}, ... ]` of `count` entries, written once, grown or
        shrunk at its end to `want`'s: entries added after its last, or its last ones removed.
        Returns the entries of `want` it keeps (to update in place); None when it is not
        written so that this can be done (a comment after the entry where the edit goes)."""
        news = list(getattr(want, name))
        kept = min(count, len(news))
        value = node.value
        if not isinstance(value, ListValue) or not kept or value.items[kept - 1].trailing:
            return None
        end = value.items[kept - 1].value.span
        if len(news) < count:
            last = value.items[-1]
            stop = (last.trailing or last.value).span
            self.edits.append(
                Edit(Span(end.end_line, end.end_column, stop.end_line, stop.end_column), "")
            )
            return news
        added = type(want)()
        getattr(added, name).extend(news[kept:])
        line = self.lines[end.end_line - 1]
        pad = line[: len(line) - len(line.lstrip())]
        inner = render_message(added).rstrip("\n").split("\n")[1:-1]  # the entries of `[ ]`
        body = "\n".join(pad + text.removeprefix(INDENT) for text in inner)
        at = Span(end.end_line, end.end_column, end.end_line, end.end_column)
        self.edits.append(Edit(at, ",\n" + body))
        return news[:kept]

    def _replace(self, node: Field, single: Message) -> Edit:
        """The field (and its trailing comment) replaced by `single` rendered, indented as the
        field's line is."""
        line = self.lines[node.line - 1]
        pad = line[: len(line) - len(line.lstrip())]
        text = render_message(single).rstrip("\n").replace("\n", "\n" + pad)
        span = node.span
        if node.trailing is not None:
            span = span.cover(node.trailing.span)
        return Edit(span, text)

    def _fill(self, block: Block, node: Field, single: Message) -> Edit:
        """The empty block of `node` replaced by `single`'s value, laid out as `_replace` does."""
        rendered = self._replace(node, single).text
        return Edit(block.span, rendered[rendered.index("{") :])

    def _remove(self, node: Field) -> Edit:
        """Delete the field with its trailing comment (its whole lines when it is alone there)."""
        if node.trailing is None or self.lines[node.line - 1][: node.column - 1].strip():
            return delete_field(self.source, node)
        return Edit(line_span(self.source, node.line, node.trailing.span.end_line), "")


def _blocks(written: list[Field]) -> list[Block] | None:
    """The message values of a field's occurrences in order (`name { }` or `name [ {}, {} ]`);
    None when one is written otherwise."""
    found: list[Block] = []
    for node in written:
        value = node.value
        if isinstance(value, Block):
            found.append(value)
        elif isinstance(value, ListValue) and all(isinstance(i.value, Block) for i in value.items):
            found.extend(i.value for i in value.items if isinstance(i.value, Block))
        else:
            return None
    return found


def _empty(block: Block) -> bool:
    return not block.fields and block.open_comment is None and not block.end_comments


def _only(message: Message, name: str) -> Message:
    """A message of the same type with only the field `name` of `message` set."""
    single = type(message)()
    single.CopyFrom(message)
    for fd, _ in message.ListFields():
        if fd.name != name:
            single.ClearField(fd.name)
    return single


def _copy(source: Message, target: Message, name: str) -> None:
    target.ClearField(name)
    target.MergeFrom(_only(source, name))


__all__ = ["check_binds", "set_fields"]
