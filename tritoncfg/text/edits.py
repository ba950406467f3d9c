"""Text edits at syntax-tree spans: how fixes and generators change a file and keep the rest of it
byte for byte, comments and layout included."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tritoncfg.record import record
from tritoncfg.text.span import Span

if TYPE_CHECKING:
    from tritoncfg.text.tree import Field


@record(frozen=True)
class Edit:
    """Replace the text of `span` with `text` (an empty span inserts, empty text deletes)."""

    span: Span
    text: str


class EditConflict(ValueError):
    """Two edits touch the same text."""


def line_starts(source: str) -> list[int]:
    """The offset at which each line of `source` starts."""
    starts = [0]
    found = source.find("\n")
    while found != -1:
        starts.append(found + 1)
        found = source.find("\n", found + 1)
    return starts


def offset(starts: list[int], line: int, column: int) -> int:
    return starts[min(line, len(starts)) - 1] + column - 1


def edit_range(starts: list[int], edit: Edit) -> tuple[int, int]:
    """The offsets an edit replaces, from the source's `line_starts`."""
    span = edit.span
    return offset(starts, span.line, span.column), offset(starts, span.end_line, span.end_column)


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """`source` with every edit applied. Raises EditConflict for overlapping edits."""
    starts = line_starts(source)
    ranges = sorted((*edit_range(starts, e), e.text) for e in edits)
    out: list[str] = []
    cursor = 0
    for start, end, text in ranges:
        if start < cursor:
            raise EditConflict(f"overlapping edits at offset {start}")
        out.append(source[cursor:start])
        out.append(text)
        cursor = end
    out.append(source[cursor:])
    return "".join(out)


@record(frozen=True)
class SourceLines:
    """A source's lines and its count of newlines, for many edits of one file: each worked
    out per edit made a fix per repeated field quadratic in the file."""

    lines: list[str]
    newlines: int

    @classmethod
    def of(cls, source: str) -> SourceLines:
        return cls(source.splitlines(), source.count("\n"))


def line_span(source: str, first: int, last: int, known: SourceLines | None = None) -> Span:
    """The span of whole lines first..last, newline included (to delete them)."""
    known = known or SourceLines.of(source)
    if last < known.newlines + 1:
        return Span(first, 1, last + 1, 1)
    lines = known.lines
    return Span(first, 1, last, len(lines[last - 1]) + 1 if lines else 1)


def delete_field(source: str, node: Field, known: SourceLines | None = None) -> Edit:
    """Remove a field and keep every comment: its own line goes if nothing else is on it, and a
    trailing comment stays where it was. `known`: the source's lines, when already split."""
    known = known or SourceLines.of(source)
    lines = known.lines
    span = node.span
    before = lines[span.line - 1][: span.column - 1]
    after = lines[span.end_line - 1][span.end_column - 1 :]
    rest = after.strip().lstrip(",;").strip()
    if not before.strip() and not rest:
        return Edit(line_span(source, span.line, span.end_line, known), "")
    if not before.strip() and rest.startswith("#"):
        return Edit(
            Span(
                span.line,
                span.column,
                span.end_line,
                span.end_column + len(after) - len(after.lstrip()),
            ),
            "",
        )
    trailing_space = len(after) - len(after.lstrip(" "))
    return Edit(Span(span.line, span.column, span.end_line, span.end_column + trailing_space), "")


def insert_before(node: Field, text: str) -> Edit:
    """Insert whole lines before a field (after its leading comments)."""
    return Edit(Span(node.line, 1, node.line, 1), text)
