"""Config bytes as text: UTF-8, or an error that says where the first byte that is not UTF-8 is."""

from __future__ import annotations

from tritoncfg.text.span import Span


class Utf8Error(ValueError):
    """Bytes that are not UTF-8. `span` is the first bad byte's line and column (in characters,
    as every other position); `reason` says it in words, with its byte offset and byte column."""

    def __init__(self, error: UnicodeDecodeError) -> None:
        data, start = error.object, error.start
        line_start = data.rfind(b"\n", 0, start) + 1
        line = data.count(b"\n", 0, start) + 1
        column = len(data[line_start:start].decode("utf-8")) + 1  # what precedes it decodes
        self.reason = (
            f"invalid UTF-8 at byte offset {start} (line {line}, byte column "
            f"{start - line_start + 1})"
        )
        self.span = Span.point(line, column)
        super().__init__(self.reason)


def decode_utf8(data: bytes) -> str:
    """`data` decoded as UTF-8 (no newline translation). Raises Utf8Error."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Utf8Error(error) from None
