"""Source positions: every node and every diagnostic points at a span of the file."""

from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    """A region of a text file. Lines and columns are 1-based; the end is exclusive.

    A NamedTuple rather than a dataclass: the parser makes one per token, and tuples are cheap."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int = 1, column: int = 1) -> Span:
        return cls(line, column, line, column + 1)

    def cover(self, other: Span) -> Span:
        """The smallest span holding both."""
        start = min((self.line, self.column), (other.line, other.column))
        end = max((self.end_line, self.end_column), (other.end_line, other.end_column))
        return Span(start[0], start[1], end[0], end[1])

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


FILE_START = Span(1, 1, 1, 1)
# A finding about a whole path (a model directory), with no line: SARIF writes no region,
# GitHub annotations no line, JSON null positions.
NO_LINE = Span(0, 0, 0, 0)
