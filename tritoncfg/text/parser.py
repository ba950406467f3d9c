"""Recursive-descent parser: tokens → syntax tree, keeping every comment at its node.

Grammar (C++ `TextFormat::Parser`, schema-free part):
    field  := IDENT [':'] value [',' | ';']
    value  := block | list | scalar
    block  := '{' field* '}' | '<' field* '>'
    list   := '[' [item (',' item)*] ']'      item := block | scalar
    scalar := ['-'] (IDENT | NUMBER) | STRING+
Whether a `:` was required, and whether a value fits its field, is decided when binding to the schema.
"""

from __future__ import annotations

from tritoncfg.gcpause import collector_paused
from tritoncfg.text.lexer import (
    COMMENT,
    END,
    FLOAT,
    IDENT,
    INT,
    STRING,
    SYMBOL,
    LexError,
    Token,
    token_span,
    tokenize,
)
from tritoncfg.text.span import Span
from tritoncfg.text.tree import (
    Block,
    Comment,
    Document,
    Field,
    ListItem,
    ListValue,
    Scalar,
    ScalarKind,
    Value,
)


class SyntaxProblem(Exception):
    """The file is not protobuf text format; the position is where the parser stopped."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


_CLOSERS = {"{": "}", "<": ">"}
_NO_COMMENTS: list[Comment] = []  # shared by every node without comments; never appended to

# How deep messages may nest. C++ `TextFormat::Parser` defaults to INT_MAX (`recursion_limit_`,
# text_format.cc) and so overflows the stack on a few thousand levels; protobuf's binary decoder
# (`CodedInputStream`) stops at 100, and so does tritoncfg, with C++'s own error text. The deepest
# nesting ModelConfig itself allows is under 10 levels.
RECURSION_LIMIT = 100
_SCALAR_KINDS: dict[int, ScalarKind] = {IDENT: "identifier", INT: "integer", FLOAT: "float"}
# The same by token kind, for the kinds up to FLOAT (token kinds are small ints, IDENT = 0).
_KIND_NAMES: tuple[ScalarKind, ...] = ("identifier", "integer", "float")
assert (IDENT, INT, FLOAT) == (0, 1, 2)


# `Span(...)` runs the Python `__new__` a NamedTuple has; the parser makes a span per comment and
# per block, and a scalar per value, and tuple's own `__new__` makes the same tuple at half the
# cost: `_new(Span, (line, column, end_line, end_column))`.
_new = tuple.__new__


# The parts of a one-word scalar (`TYPE_FP32`, `1`, `true`), one tuple per word: a large config
# repeats a few words thousands of times, and a tuple each was a twentieth of its tree.
# Bounded like the lexer's lines.
_WORDS: dict[str, tuple[str]] = {}
_WORDS_MAX = 4096


def _word(text: str) -> tuple[str]:
    if len(_WORDS) >= _WORDS_MAX:
        _WORDS.clear()
    parts = _WORDS[text] = (text,)
    return parts


def _comment(token: Token, blank_before: bool) -> Comment:
    text, line, column = token[1], token[2], token[3]
    return _new(Comment, (text, _new(Span, (line, column, line, column + len(text))), blank_before))


def _describe(token: Token) -> str:
    return "end of input" if token[0] == END else f'"{token[1]}"'


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.pending: list[Comment] = []
        self.last_line = 0  # last line holding a consumed token or comment
        self.depth = 0  # blocks open around the current token

    # -- token access ---------------------------------------------------------------------
    def peek(self) -> Token:
        """The next significant token; comments before it move to `pending`."""
        token = self.tokens[self.pos]
        if token[0] != COMMENT:
            return token
        tokens = self.tokens
        pos = self.pos
        last_line = self.last_line
        append = self.pending.append
        while token[0] == COMMENT:
            line = token[2]
            append(_comment(token, line - last_line >= 2))
            last_line = line
            pos += 1
            token = tokens[pos]
        self.pos = pos
        self.last_line = last_line
        return token

    def lookahead(self) -> Token:
        """The next significant token, leaving comments where they are."""
        tokens = self.tokens
        index = self.pos
        while tokens[index][0] == COMMENT:
            index += 1
        return tokens[index]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token[0] == COMMENT:
            token = self.peek()
        self.pos += 1
        self.last_line = token[2]
        return token

    def try_symbol(self, text: str) -> Token | None:
        token = self.lookahead()
        if token[0] == SYMBOL and token[1] == text:
            return self.advance()
        return None

    def expect_symbol(self, text: str) -> Token:
        token = self.peek()
        if token[0] == SYMBOL and token[1] == text:
            return self.advance()
        raise SyntaxProblem(f'Expected "{text}", found {_describe(token)}.', token_span(token))

    def trailing_comment(self, line: int) -> Comment | None:
        """A comment right after the last consumed token, on its line."""
        token = self.tokens[self.pos]
        if token[0] == COMMENT and token[2] == line:
            self.pos += 1
            return _comment(token, False)
        return None

    def plain_scalar(self, pos: int) -> Scalar | None:
        """The value at `pos` when it has the common shape: one identifier, number or string
        token, or `-` right before a number (no comment between), and for a string no string
        after it (`scalar` would join them). Built here without the token-by-token path of
        `scalar`, which gives the same node; the caller moves `pos` past it (two tokens when
        negative) and `last_line` to its end."""
        tokens = self.tokens
        token = tokens[pos]
        kind = token[0]
        if kind <= FLOAT:
            line, column, text = token[2], token[3], token[1]
            parts = _WORDS.get(text)
            if parts is None:
                parts = _word(text)
            return _new(
                Scalar, (_KIND_NAMES[kind], parts, False, line, column, line, column + len(text))
            )
        if kind == STRING:
            after = pos + 1
            while tokens[after][0] == COMMENT:
                after += 1
            if tokens[after][0] == STRING:
                return None  # adjacent strings: `scalar` joins them, and places their comments
            line, column, text = token[2], token[3], token[1]
            return _new(Scalar, ("string", (text,), False, line, column, line, column + len(text)))
        if kind == SYMBOL and token[1] == "-":
            number = tokens[pos + 1]
            if number[0] <= FLOAT:
                end_line, text = number[2], number[1]
                return _new(
                    Scalar,
                    (
                        _KIND_NAMES[number[0]],
                        _WORDS.get(text) or _word(text),
                        True,
                        token[2],
                        token[3],
                        end_line,
                        number[3] + len(text),
                    ),
                )
        return None

    def take_pending(self) -> list[Comment]:
        """The comments read so far; the one shared empty list when there are none (most
        nodes have no comment, and an empty list per node is a fifth of a large tree's memory).
        Nothing may append to a list this returns: extend with `+`."""
        if not self.pending:
            return _NO_COMMENTS
        taken, self.pending = self.pending, []
        return taken

    def drop_consumed(self) -> None:
        """Free the tokens of the top-level fields already parsed. Called when they are over a
        quarter of the list, the copying stays linear in all; the peak memory of a large file
        is then its tree, not its tree and every token."""
        if self.pos > 4096:
            del self.tokens[: self.pos]
            self.pos = 0

    # -- grammar --------------------------------------------------------------------------
    def document(self) -> Document:
        fields = self.fields(closer=None)
        return Document(fields, end_comments=self.take_pending())

    def fields(self, closer: str | None) -> list[Field]:
        fields: list[Field] = []
        append = fields.append
        tokens = self.tokens  # drop_consumed shortens this list in place
        while True:
            token = tokens[self.pos]
            if token[0] == COMMENT:
                token = self.peek()
            kind = token[0]
            if kind == IDENT:
                append(self.field(token))
                if closer is None and self.pos > len(self.tokens) >> 2:
                    self.drop_consumed()
                continue
            if kind == SYMBOL and token[1] == closer:
                return fields
            if kind == END:
                if closer is not None:
                    raise SyntaxProblem(
                        f'Expected "{closer}", found end of input.', token_span(token)
                    )
                return fields
            if kind == SYMBOL and token[1] == "[":
                raise SyntaxProblem(
                    "Extension and Any fields ([...]) are not allowed in a model configuration.",
                    token_span(token),
                )
            raise SyntaxProblem(
                f"Expected identifier, found {_describe(token)}.", token_span(token)
            )

    def field(self, token: Token) -> Field:
        leading = self.pending  # `take_pending`, inline: some 20 fields per config
        if leading:
            self.pending = []
            blank_before = token[2] - leading[-1].span.line >= 2
        else:
            leading = _NO_COMMENTS
            blank_before = token[2] - self.last_line >= 2
        tokens = self.tokens
        pos = self.pos + 1  # the name; peek() already moved the comments before it
        nxt = tokens[pos]
        colon = nxt[0] == SYMBOL and nxt[1] == ":"
        if colon:
            pos += 1
        plain = self.plain_scalar(pos) if nxt[0] != COMMENT else None
        value: Value
        if plain is not None:  # `name: value`, most fields
            value = plain
            pos += 2 if plain.negative else 1
            last_line = plain.end_line
        else:
            self.pos = pos
            self.last_line = token[2]
            if nxt[0] == COMMENT:
                colon = self.try_symbol(":") is not None
            value = self.value()
            pos = self.pos
            last_line = self.last_line
        nxt = tokens[pos]
        trailing = None
        if nxt[0] == COMMENT and nxt[2] == last_line:
            trailing = _comment(nxt, False)
            pos += 1
            nxt = tokens[pos]
        if nxt[0] == SYMBOL and (nxt[1] == "," or nxt[1] == ";"):
            pos += 1
            last_line = nxt[2]
        self.pos = pos
        self.last_line = last_line
        if nxt[0] == COMMENT and not self.try_symbol(","):
            self.try_symbol(";")
        if trailing is None:  # `trailing_comment`, inline
            after = tokens[self.pos]
            if after[0] == COMMENT and after[2] == self.last_line:
                self.pos += 1
                trailing = _comment(after, False)
        if self.pending:  # comments written inside the field itself (e.g. between name and value)
            leading = leading + self.take_pending()
        return Field(
            token[1],
            token[2],
            token[3],
            value,
            colon,
            leading,
            trailing,
            blank_before,
        )

    def value(self) -> Scalar | Block | ListValue:
        token = self.peek()
        if token[0] == SYMBOL:
            if token[1] == "[":
                return self.list_value()
            if token[1] in _CLOSERS:
                return self.block()
        return self.scalar()

    def item_value(self) -> Scalar | Block:
        token = self.peek()
        if token[0] == SYMBOL and token[1] in _CLOSERS:
            return self.block()
        return self.scalar()

    def block(self) -> Block:
        opener = self.advance()
        if self.depth >= RECURSION_LIMIT:
            raise SyntaxProblem(
                "Message is too deep, the parser exceeded the configured recursion limit of "
                f"{RECURSION_LIMIT}.",
                token_span(opener),
            )
        self.depth += 1
        closer = _CLOSERS[opener[1]]
        open_comment = self.trailing_comment(opener[2])
        fields = self.fields(closer)
        end_comments = self.take_pending()
        close = self.advance()
        self.depth -= 1
        return Block(
            fields,
            _new(Span, (opener[2], opener[3], close[2], close[3] + 1)),
            opener[1] == "<",
            open_comment,
            end_comments,
        )

    def list_value(self) -> ListValue:
        opener = self.advance()
        open_comment = self.trailing_comment(opener[2])
        tokens = self.tokens
        items: list[ListItem] = []
        close = self.try_symbol("]")
        while close is None:
            plain = None if self.pending else self.plain_scalar(self.pos)
            value: Scalar | Block
            if plain is not None:  # `[ 1, 2 ]`: nothing to peek past, no comment to take
                value = plain
                leading = _NO_COMMENTS
                self.pos += 2 if plain.negative else 1
                self.last_line = plain.end_line
            else:
                self.peek()
                leading = self.take_pending()
                value = self.item_value()
            pos = self.pos
            after = tokens[pos]
            trailing = None
            if after[0] == COMMENT and after[2] == self.last_line:  # `trailing_comment`
                trailing = _comment(after, False)
                pos += 1
                self.pos = pos
                after = tokens[pos]
            item = ListItem(value, leading, trailing)
            items.append(item)
            if after[0] == SYMBOL and (after[1] == "," or after[1] == "]") and not self.pending:
                # the usual case: `,` or `]` right after the item (and its trailing comment), as
                # `try_symbol` and `expect_symbol` below would take it, without their calls
                self.pos = pos + 1
                self.last_line = after[2]
                if after[1] == "]":
                    close = after
                    break
                if trailing is None:  # a comment after the comma, on its line
                    comment = tokens[pos + 1]
                    if comment[0] == COMMENT and comment[2] == after[2]:
                        item.trailing = _comment(comment, False)
                        self.pos = pos + 2
                continue
            close = self.try_symbol("]")
            if close is None:
                self.expect_symbol(",")
                if item.trailing is None:
                    item.trailing = self.trailing_comment(self.last_line)
                if self.pending:
                    item.leading = item.leading + self.take_pending()
        return ListValue(
            items,
            _new(Span, (opener[2], opener[3], close[2], close[3] + 1)),
            open_comment,
            self.take_pending(),
        )

    def scalar(self) -> Scalar:
        token = self.advance()
        kind = token[0]
        negative = False
        line, column = token[2], token[3]
        if kind == SYMBOL and token[1] == "-":
            negative = True
            token = self.advance()
            kind = token[0]
            if kind not in _SCALAR_KINDS:
                raise SyntaxProblem(
                    f'Expected a number after "-", found {_describe(token)}.', token_span(token)
                )
        if kind == STRING:
            parts = [token[1]]
            end = token
            while self.lookahead()[0] == STRING:
                end = self.advance()
                parts.append(end[1])
            return Scalar("string", tuple(parts), False, line, column, end[2], end[3] + len(end[1]))
        scalar_kind = _SCALAR_KINDS.get(kind)
        if scalar_kind is None:
            raise SyntaxProblem(f"Expected a value, found {_describe(token)}.", token_span(token))
        return Scalar(
            scalar_kind,
            (token[1],),
            negative,
            line,
            column,
            token[2],
            token[3] + len(token[1]),
        )


def parse_tree(source: str) -> Document:
    """Parse text-format source into a syntax tree. Raises SyntaxProblem.

    The cyclic GC is paused meanwhile (gcpause.py): the tokens and nodes form no cycles."""
    with collector_paused():
        try:
            tokens = tokenize(source)
        except LexError as exc:
            raise SyntaxProblem(exc.message, Span.point(exc.line, exc.column)) from None
        return _Parser(tokens).document()
