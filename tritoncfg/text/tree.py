"""The syntax tree of a config.pbtxt: what the file says, with spans and comments.

The tree is schema-free: it records fields, values and comments exactly as written. Binding it to
`inference.ModelConfig` (bind.py) gives what the file means; printing it (printer.py) is `fmt`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, NamedTuple

from tritoncfg.record import field, record
from tritoncfg.text.span import Span

_new = tuple.__new__  # `_new(Span, (line, column, end_line, end_column))`: no Python `__new__`

ScalarKind = Literal["identifier", "integer", "float", "string"]


class Comment(NamedTuple):
    """A comment as written. A tuple, never changed once parsed: a config holds dozens (a
    licence header is a comment per line), and the parser builds each at C speed."""

    text: str  # starts with '#', trailing whitespace removed
    span: Span
    blank_before: bool = False  # a blank line separates it from what comes before


class Scalar(NamedTuple):
    """One value: an identifier, a number (with its sign) or adjacent string literals. A tuple,
    never changed once parsed: a config has a scalar every few bytes, and the parser builds each
    at C speed."""

    kind: ScalarKind
    parts: tuple[str, ...]  # raw tokens; several only for adjacent strings
    negative: bool
    # the span as four ints, not a Span: a large config has a scalar every few bytes, and the
    # tuple of each would be a tenth of its tree's memory
    line: int
    column: int
    end_line: int
    end_column: int

    @property
    def span(self) -> Span:
        return _new(Span, self[3:])  # (line, column, end_line, end_column), at C speed

    @property
    def text(self) -> str:
        """The value as written, normalised: sign attached, string parts joined by one space."""
        body = " ".join(self.parts)
        return "-" + body if self.negative else body


@record
class Block:
    """A message value `{ ... }` (or `< ... >`)."""

    fields: list[Field]
    span: Span
    angle: bool = False
    open_comment: Comment | None = None  # on the line of the opening brace
    end_comments: list[Comment] = field(default_factory=list)  # before the closing brace


@record
class ListItem:
    value: Scalar | Block
    leading: list[Comment] = field(default_factory=list)
    trailing: Comment | None = None


@record
class ListValue:
    """Short repeated syntax `[a, b]`."""

    items: list[ListItem]
    span: Span
    open_comment: Comment | None = None
    end_comments: list[Comment] = field(default_factory=list)


Value = Scalar | Block | ListValue


@record
class Field:
    name: str
    line: int  # where the name starts
    column: int
    value: Value
    colon: bool
    leading: list[Comment] = field(default_factory=list)
    trailing: Comment | None = None
    blank_before: bool = False

    @property
    def name_span(self) -> Span:
        line, column = self.line, self.column
        return _new(Span, (line, column, line, column + len(self.name)))

    @property
    def span(self) -> Span:
        return self.name_span.cover(self.value.span)


@record
class Document:
    fields: list[Field]
    end_comments: list[Comment] = field(default_factory=list)

    def comments(self) -> Iterator[Comment]:
        """Every comment of the document, in source order."""
        found = list(_comments_of_fields(self.fields)) + list(self.end_comments)
        found.sort(key=lambda c: (c.span.line, c.span.column))
        return iter(found)

    def header_comments(self) -> list[Comment]:
        """Comments before the first field (or all, for a document of comments only)."""
        if not self.fields:
            return list(self.end_comments)
        return list(self.fields[0].leading)


def _comments_of_fields(fields: list[Field]) -> Iterator[Comment]:
    for f in fields:
        yield from f.leading
        yield from _comments_of_value(f.value)
        if f.trailing is not None:
            yield f.trailing


def _comments_of_value(value: Value) -> Iterator[Comment]:
    if isinstance(value, Block):
        if value.open_comment is not None:
            yield value.open_comment
        yield from _comments_of_fields(value.fields)
        yield from value.end_comments
    elif isinstance(value, ListValue):
        if value.open_comment is not None:
            yield value.open_comment
        for item in value.items:
            yield from item.leading
            yield from _comments_of_value(item.value)
            if item.trailing is not None:
                yield item.trailing
        yield from value.end_comments


def iter_fields(fields: list[Field]) -> Iterator[tuple[list[Field], Field]]:
    """Every field of a tree with the list (block) that holds it, depth first."""
    for node in fields:
        yield fields, node
        value = node.value
        if isinstance(value, Block):
            yield from iter_fields(value.fields)
        elif isinstance(value, ListValue):
            for item in value.items:
                if isinstance(item.value, Block):
                    yield from iter_fields(item.value.fields)
