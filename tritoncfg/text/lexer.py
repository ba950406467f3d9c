"""Tokenizer for protobuf text format, following C++ `io::Tokenizer` as `TextFormat::Parser` uses it.

Comments are kept as tokens (the parser attaches them to nodes). Numbers follow C++ rules:
`0x1F` is hex, a leading `0` means octal (`08` is an error), `1f` / `1.5f` are floats.
"""

from __future__ import annotations

import re

from tritoncfg.text.span import Span

# Token kinds. A token is a plain tuple (kind, text, line, column): the lexer makes one per
# word of the file, and tuples are the cheapest thing Python can build.
IDENT = 0
INT = 1
FLOAT = 2
STRING = 3
SYMBOL = 4
COMMENT = 5
END = 6

KIND_NAMES = ("identifier", "integer", "float", "string", "symbol", "comment", "end of input")

Token = tuple[int, str, int, int]


def token_span(token: Token) -> Span:
    _, text, line, column = token
    return Span(line, column, line, column + len(text))


class LexError(Exception):
    """A token the C++ tokenizer rejects; carries the position of the offending text."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


_SCANNER = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v\n]+)
  | (?P<comment>\#[^\n]*)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>0[xX][0-9A-Fa-f]*|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]*)?[fF]?)
  | (?P<string>"(?:[^"\\\n]|\\[^\n])*(?:"|(?=\n)|$)|'(?:[^'\\\n]|\\[^\n])*(?:'|(?=\n)|$))
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_OCTAL_DIGITS = frozenset("01234567")
_ESCAPE_OK = re.compile(
    r"""\\(?:[abfnrtv\\?'"]|[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"""
)
_ANY_ESCAPE = re.compile(r"\\.")
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")


def _check_number(text: str) -> int:
    """Classify a number token and raise the C++ tokenizer's error for malformed ones."""
    lower = text.lower()
    if lower.startswith("0x"):
        if len(text) == 2:
            raise ValueError('"0x" must be followed by hex digits.')
        return INT
    is_float = "." in text or "e" in lower or lower.endswith("f")
    if text[0] == "0" and len(text) > 1 and text[1].isdigit():
        digits = text.rstrip("fF")
        if not all(c in _OCTAL_DIGITS for c in digits):
            octal_run = len(digits) - len(digits.lstrip("01234567"))
            if octal_run < len(digits) and digits[octal_run].isdigit():
                raise ValueError("Numbers starting with leading zero must be in octal.")
            raise ValueError("Hex and octal numbers must be integers.")
        if text != digits:
            raise ValueError("Need space between number and identifier.")
        return INT
    if "e" in lower:
        mantissa_end = lower.index("e")
        exponent = lower[mantissa_end + 1 :].lstrip("+-").rstrip("f")
        if not exponent:
            raise ValueError('"e" must be followed by exponent.')
    return FLOAT if is_float else INT


def _check_string(text: str) -> None:
    quote = text[0]
    if len(text) < 2 or text[-1] != quote or _ends_escaped(text):
        raise ValueError("Unexpected end of string.")
    body = text[1:-1]
    if "\\" in body:
        for escape in _ANY_ESCAPE.finditer(body):
            if not _ESCAPE_OK.match(body, escape.start()):
                raise ValueError("Invalid escape sequence in string literal.")


def _ends_escaped(text: str) -> bool:
    backslashes = len(text[:-1]) - len(text[:-1].rstrip("\\"))
    return backslashes % 2 == 1


def tokenize(source: str) -> list[Token]:
    """Split `source` into tokens, comments included; ends with an END token."""
    tokens: list[Token] = []
    append = tokens.append
    line = 1
    line_start = 0
    size = len(source)
    for match in _SCANNER.finditer(source):
        group = match.lastgroup
        start = match.start()
        if group == "ws":
            text = match.group()
            newlines = text.count("\n")
            if newlines:
                line += newlines
                line_start = start + text.rindex("\n") + 1
            continue
        text = match.group()
        column = start - line_start + 1
        if group == "ident":
            append((IDENT, text, line, column))
        elif group == "other":
            if text < " " or text == "\x7f":
                raise LexError("Invalid control characters encountered in text.", line, column)
            if not text.isascii():
                raise LexError(f"Unexpected character {text!r} outside a string.", line, column)
            append((SYMBOL, text, line, column))
        elif group == "number":
            try:
                kind = (
                    INT
                    if text.isdigit() and (text[0] != "0" or len(text) == 1)
                    else _check_number(text)
                )
            except ValueError as exc:
                raise LexError(str(exc), line, column) from None
            end = match.end()
            if end < size and (source[end] in _IDENT_CHARS or source[end] == "."):
                message = (
                    "Need space between number and identifier."
                    if source[end] != "."
                    else "Already saw decimal point or exponent; can't have another one."
                    if kind == FLOAT
                    else "Hex and octal numbers must be integers."
                )
                raise LexError(message, line, column)
            append((kind, text, line, column))
        elif group == "string":
            try:
                _check_string(text)
            except ValueError as exc:
                message = str(exc)
                if message == "Unexpected end of string.":
                    message = "String literals cannot cross line boundaries."
                raise LexError(message, line, column) from None
            append((STRING, text, line, column))
        else:  # comment
            append((COMMENT, text.rstrip(), line, column))
    append((END, "", line, size - line_start + 1))
    return tokens
