"""Tokenizer for protobuf text format, following C++ `io::Tokenizer` as `TextFormat::Parser` uses it.

Comments are kept as tokens (the parser attaches them to nodes). Numbers follow C++ rules:
`0x1F` is hex, a leading `0` means octal (`08` is an error), `1f` / `1.5f` are floats.
"""

from __future__ import annotations

import re
from sys import intern

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


# One token and the blanks before it, within one line: C++'s tokenizer lets no token (strings and
# comments included) cross a line break, so the lexer goes line by line and never counts newlines.
# `findall` gives plain tuples (blanks, ident, symbol, number, string, comment, other), one group
# set, and the column follows from the lengths: no match objects. Trailing blanks match nothing.
# `symbol` is printable ASCII punctuation, always valid; `other` is what is left (a lone `.`, a
# control or non-ASCII character), checked by `_symbol`. A string is matched with possessive
# repeats (`*+`), which keep no backtracking state: `(?:[^"\\]|\\.)*` kept a frame per character,
# and a 10 MB string literal cost 2.7 GB to lex.
_TOKEN = re.compile(
    r"""([ \t\r\f\v]*)(?:
    ([A-Za-z_][A-Za-z0-9_]*)
  | ([!$%&()*+,\-/:;<=>?@[\\\]^`{|}~])
  | (0[xX][0-9A-Fa-f]*|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]*)?[fF]?)
  | ("[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|$)|'[^'\\]*+(?:\\.[^'\\]*+)*+(?:'|$))
  | (\#.*)
  | ([^ \t\r\f\v])
    )""",
    re.VERBOSE | re.DOTALL,
)
_OCTAL_DIGITS = frozenset("01234567")
_ESCAPE_OK = re.compile(
    r"""\\(?:[abfnrtv\\?'"]|[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"""
)
_ANY_ESCAPE = re.compile(r"\\.")
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
_NUMBER_GLUE = _IDENT_CHARS | {"."}  # what may not follow a number directly


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


def _check_string(text: str, line: int, column: int) -> None:
    quote = text[0]
    if len(text) < 2 or text[-1] != quote or ("\\" in text and _ends_escaped(text)):
        raise LexError("String literals cannot cross line boundaries.", line, column)
    body = text[1:-1]
    if "\\" in body:
        for escape in _ANY_ESCAPE.finditer(body):
            if not _ESCAPE_OK.match(body, escape.start()):
                raise LexError("Invalid escape sequence in string literal.", line, column)


def _ends_escaped(text: str) -> bool:
    backslashes = len(text[:-1]) - len(text[:-1].rstrip("\\"))
    return backslashes % 2 == 1


# Lexed lines, by their text. Most lines of a config repeat, within the file and across a model
# repository (`}`, `data_type: TYPE_FP32`, `dims: [ -1 ]`, a licence header: 92% of the non-empty
# lines of 318 distinct real-world configs repeat an earlier one), so each is lexed once.
# Bounded: a file of unique lines (a large generated config) refills it now and then.
_KNOWN_LINES: dict[str, list[Token]] = {}
_KNOWN_LINES_MAX = 4096
_KNOWN_LINE_LENGTH = 200  # longer lines are rare and seldom repeat: not kept


def tokenize(source: str) -> list[Token]:
    """Split `source` into tokens, comments included; ends with an END token.

    Names and numbers are interned: a large config repeats the same few (`input`, `TYPE_FP32`,
    `224`), and the tree keeps them, so one object each saves much of its memory."""
    tokens: list[Token] = []
    append = tokens.append
    known_lines = _KNOWN_LINES
    line = 0
    text = ""
    for text in source.split("\n"):
        line += 1
        if not text:
            continue
        known = known_lines.get(text)
        if known is not None:  # the same tokens, on this line
            for kind, word, _, column in known:
                append((kind, word, line, column))
            continue
        if len(text) > _KNOWN_LINE_LENGTH:
            _lex_line(text, line, tokens)
            continue
        found: list[Token] = []
        _lex_line(text, line, found)
        tokens += found
        if len(known_lines) >= _KNOWN_LINES_MAX:
            known_lines.clear()
        known_lines[text] = found
    append((END, "", line, len(text) + 1))
    return tokens


# Lines up to this length are split by one `findall`; a longer one match by match, so that a line
# of megabytes (or of NUL bytes, an error at its first) holds one match at a time, not a tuple of
# seven strings per token of the whole line.
_FINDALL_LINE_LENGTH = 4096


def _lex_line(text: str, line: int, found: list[Token]) -> None:
    """Append the tokens of one line to `found` (a LexError for a bad one)."""
    add = found.append
    if text[0] == "#":  # a comment line (a licence header is dozens): no regex needed
        add((COMMENT, text.rstrip(), line, 1))
        return
    column = 1
    matches = (
        _TOKEN.findall(text)
        if len(text) <= _FINDALL_LINE_LENGTH
        else (match.groups("") for match in _TOKEN.finditer(text))
    )
    for blanks, ident, symbol, number, string, comment, other in matches:
        column += len(blanks)
        if symbol:
            add((SYMBOL, symbol, line, column))
            column += 1
        elif ident:
            add((IDENT, intern(ident), line, column))
            column += len(ident)
        elif number:
            end = column - 1 + len(number)
            if (
                number.isdigit()
                and (number[0] != "0" or len(number) == 1)
                and (end == len(text) or text[end] not in _NUMBER_GLUE)
            ):
                kind = INT  # plain decimal, the common case
            else:
                kind = _number_kind(number, text, end, line, column)
            add((kind, intern(number), line, column))
            column += len(number)
        elif string:
            if len(string) < 2 or string[-1] != string[0] or "\\" in string:
                _check_string(string, line, column)
            add((STRING, string, line, column))
            column += len(string)
        elif comment:
            add((COMMENT, comment.rstrip(), line, column))
            column += len(comment)
        else:
            add((SYMBOL, _symbol(other, line, column), line, column))
            column += 1


def _symbol(char: str, line: int, column: int) -> str:
    if char < " " or char == "\x7f":
        raise LexError("Invalid control characters encountered in text.", line, column)
    if not char.isascii():
        raise LexError(f"Unexpected character {char!r} outside a string.", line, column)
    return char


def _number_kind(word: str, text: str, end: int, line: int, column: int) -> int:
    """INT or FLOAT for a number token; LexError for a malformed one or one glued to a word."""
    try:
        kind = INT if word.isdigit() and (word[0] != "0" or len(word) == 1) else _check_number(word)
    except ValueError as exc:
        raise LexError(str(exc), line, column) from None
    if end < len(text) and (text[end] in _IDENT_CHARS or text[end] == "."):
        message = (
            "Need space between number and identifier."
            if text[end] != "."
            else "Already saw decimal point or exponent; can't have another one."
            if kind == FLOAT
            else "Hex and octal numbers must be integers."
        )
        raise LexError(message, line, column)
    return kind
