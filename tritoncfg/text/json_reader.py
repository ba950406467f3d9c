"""A JSON reader that keeps the line and column of every key and value (RFC 8259, strict).

Python's `json` module gives no positions, and a finding must point at the key that caused it, so
this small reader builds `JsonNode`s with spans. Scalars are decoded by `json` itself (strings,
numbers), so their values are exactly what `json.loads` gives. Nesting is limited like the
text-format parser's (`RECURSION_LIMIT`). Errors are `SyntaxProblem`s with a position.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import Literal

from tritoncfg.record import field, record
from tritoncfg.text.parser import RECURSION_LIMIT, SyntaxProblem
from tritoncfg.text.span import Span

JsonKind = Literal["object", "array", "string", "number", "true", "false", "null"]
JsonValue = dict[str, "JsonValue"] | list["JsonValue"] | str | int | float | bool | None


@record
class JsonMember:
    key: str
    key_span: Span
    value: JsonNode


@record
class JsonNode:
    kind: JsonKind
    span: Span
    scalar: str | int | float | bool | None = None
    members: list[JsonMember] = field(default_factory=list)  # objects, in file order
    items: list[JsonNode] = field(default_factory=list)  # arrays

    def plain(self) -> JsonValue:
        """The value as `json.loads` gives it (a duplicated key: the last one wins)."""
        if self.kind == "object":
            return {member.key: member.value.plain() for member in self.members}
        if self.kind == "array":
            return [item.plain() for item in self.items]
        return self.scalar


_BLANK = re.compile(r"[ \t\n\r]*")
# possessive repeats (`*+`): no backtracking state per character (see the lexer's strings)
_STRING = re.compile(r'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+"')
# Python's limit on an integer's digits in int(str) (sys.get_int_max_str_digits, 4300 by
# default); RFC 8259 lets a reader limit the range of numbers.
_MAX_DIGITS = 4300
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORDS: dict[str, tuple[JsonKind, bool | None]] = {
    "true": ("true", True),
    "false": ("false", False),
    "null": ("null", None),
}


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0
        self.depth = 0
        # offsets where each line starts, for offset -> line:column
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def where(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.where(start)
        end_line, end_column = self.where(end)
        return Span(line, column, end_line, end_column)

    def fail(self, message: str, offset: int | None = None) -> SyntaxProblem:
        line, column = self.where(self.pos if offset is None else offset)
        return SyntaxProblem(message, Span.point(line, column))

    def skip_blanks(self) -> None:
        match = _BLANK.match(self.source, self.pos)
        assert match is not None
        self.pos = match.end()

    def found(self) -> str:
        if self.pos >= len(self.source):
            return "end of input"
        return repr(self.source[self.pos])

    def document(self) -> JsonNode:
        if self.source.startswith("\ufeff"):
            raise self.fail("JSON text must not begin with a byte order mark (BOM).")
        self.skip_blanks()
        node = self.value()
        self.skip_blanks()
        if self.pos != len(self.source):
            raise self.fail(f"Unexpected {self.found()} after the JSON value.")
        return node

    def value(self) -> JsonNode:
        char = self.source[self.pos : self.pos + 1]
        if char == "{":
            return self.container(self.object_body)
        if char == "[":
            return self.container(self.array_body)
        if char == '"':
            start = self.pos
            return JsonNode("string", self.span(start, self.pos), self.string())
        return self.literal()

    def container(self, body: Callable[[], JsonNode]) -> JsonNode:
        if self.depth >= RECURSION_LIMIT:
            raise self.fail(
                "Message is too deep, the parser exceeded the configured recursion limit of "
                f"{RECURSION_LIMIT}."
            )
        self.depth += 1
        node = body()
        self.depth -= 1
        return node

    def string(self) -> str:
        match = _STRING.match(self.source, self.pos)
        if match is None:
            raise self.fail("Invalid string: unterminated, a control character or a bad escape.")
        self.pos = match.end()
        return json.loads(match.group())  # type: ignore[no-any-return]

    def literal(self) -> JsonNode:
        start = self.pos
        match = _NUMBER.match(self.source, start)
        if match is not None:
            self.pos = match.end()
            text = match.group()
            if any(c in text for c in ".eE"):
                number: int | float = float(text)
            elif len(text.lstrip("-")) > _MAX_DIGITS:  # int() would raise ValueError
                raise self.fail(
                    f"Integer with {len(text.lstrip('-'))} digits: at most {_MAX_DIGITS} are read "
                    "(no field of a model configuration holds more than 20).",
                    start,
                )
            else:
                number = int(text)
            return JsonNode("number", self.span(start, self.pos), number)
        for word, (kind, scalar) in _WORDS.items():
            if self.source.startswith(word, start):
                self.pos = start + len(word)
                return JsonNode(kind, self.span(start, self.pos), scalar)
        raise self.fail(f"Expected a JSON value, found {self.found()}.")

    def expect(self, char: str) -> None:
        self.skip_blanks()
        if self.source[self.pos : self.pos + 1] != char:
            raise self.fail(f'Expected "{char}", found {self.found()}.')
        self.pos += 1

    def object_body(self) -> JsonNode:
        start = self.pos
        self.pos += 1
        members: list[JsonMember] = []
        self.skip_blanks()
        if self.source[self.pos : self.pos + 1] == "}":
            self.pos += 1
            return JsonNode("object", self.span(start, self.pos), members=members)
        while True:
            self.skip_blanks()
            if self.source[self.pos : self.pos + 1] != '"':
                raise self.fail(f"Expected a string key, found {self.found()}.")
            key_start = self.pos
            key = self.string()
            key_span = self.span(key_start, self.pos)
            self.expect(":")
            self.skip_blanks()
            members.append(JsonMember(key, key_span, self.value()))
            self.skip_blanks()
            char = self.source[self.pos : self.pos + 1]
            self.pos += 1
            if char == "}":
                return JsonNode("object", self.span(start, self.pos), members=members)
            if char != ",":
                self.pos -= 1
                raise self.fail(f'Expected "," or "}}", found {self.found()}.')

    def array_body(self) -> JsonNode:
        start = self.pos
        self.pos += 1
        items: list[JsonNode] = []
        self.skip_blanks()
        if self.source[self.pos : self.pos + 1] == "]":
            self.pos += 1
            return JsonNode("array", self.span(start, self.pos), items=items)
        while True:
            self.skip_blanks()
            items.append(self.value())
            self.skip_blanks()
            char = self.source[self.pos : self.pos + 1]
            self.pos += 1
            if char == "]":
                return JsonNode("array", self.span(start, self.pos), items=items)
            if char != ",":
                self.pos -= 1
                raise self.fail(f'Expected "," or "]", found {self.found()}.')


def read_json(source: str) -> JsonNode:
    """The JSON value of `source`, with positions. Raises SyntaxProblem."""
    return _Reader(source).document()


def format_json(source: str) -> str:
    """The canonical form of a JSON config: 2-space indent, keys in file order, lists of scalars
    on one line when short, UTF-8 kept. Raises SyntaxProblem. (JSON has no comments.)"""
    return dump_json(read_json(source).plain())


def dump_json(value: JsonValue) -> str:
    """A JSON value in `format_json`'s style."""
    out: list[str] = []
    _dump(out, value, "")
    return "".join(out) + "\n"


def _dump(out: list[str], value: JsonValue, pad: str) -> None:
    inner = pad + "  "
    if isinstance(value, dict) and value:
        out.append("{\n")
        for index, (key, item) in enumerate(value.items()):
            out.append(f"{inner}{json.dumps(key, ensure_ascii=False)}: ")
            _dump(out, item, inner)
            out.append(",\n" if index < len(value) - 1 else "\n")
        out.append(pad + "}")
    elif isinstance(value, list) and value:
        flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        if not any(isinstance(item, dict | list) for item in value) and len(flat) <= 80:
            out.append(flat)
            return
        out.append("[\n")
        last = len(value) - 1
        for index, item in enumerate(value):
            # each item joined at once: a list of thousands (inputs) would otherwise hold a
            # string object per key, value and comma of the whole document until the end
            piece = [inner]
            _dump(piece, item, inner)
            piece.append(",\n" if index < last else "\n")
            out.append("".join(piece))
        out.append(pad + "]")
    else:
        out.append(json.dumps(value, ensure_ascii=False))
