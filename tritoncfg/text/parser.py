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

from tritoncfg.text.lexer import Kind, LexError, Token, tokenize
from tritoncfg.text.span import Span
from tritoncfg.text.tree import Block, Comment, Document, Field, ListItem, ListValue, Scalar


class SyntaxProblem(Exception):
    """The file is not protobuf text format; the position is where the parser stopped."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


_CLOSERS = {"{": "}", "<": ">"}


def _describe(token: Token) -> str:
    return "end of input" if token.kind is Kind.END else f'"{token.text}"'


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.pending: list[Comment] = []
        self.last_line = 0  # last line holding a consumed token or comment

    # -- token access ---------------------------------------------------------------------
    def peek(self) -> Token:
        """The next significant token; comments before it move to `pending`."""
        tokens = self.tokens
        token = tokens[self.pos]
        while token.kind is Kind.COMMENT:
            self.pending.append(
                Comment(token.text, token.span, blank_before=token.line - self.last_line >= 2)
            )
            self.last_line = token.line
            self.pos += 1
            token = tokens[self.pos]
        return token

    def lookahead(self) -> Token:
        """The next significant token, leaving comments where they are."""
        tokens = self.tokens
        index = self.pos
        while tokens[index].kind is Kind.COMMENT:
            index += 1
        return tokens[index]

    def advance(self) -> Token:
        token = self.peek()
        self.pos += 1
        self.last_line = token.line
        return token

    def try_symbol(self, text: str) -> Token | None:
        token = self.lookahead()
        if token.kind is Kind.SYMBOL and token.text == text:
            return self.advance()
        return None

    def expect_symbol(self, text: str) -> Token:
        token = self.peek()
        if token.kind is Kind.SYMBOL and token.text == text:
            return self.advance()
        raise SyntaxProblem(f'Expected "{text}", found {_describe(token)}.', token.span)

    def trailing_comment(self, line: int) -> Comment | None:
        """A comment right after the last consumed token, on its line."""
        token = self.tokens[self.pos]
        if token.kind is Kind.COMMENT and token.line == line:
            self.pos += 1
            return Comment(token.text, token.span)
        return None

    def take_pending(self) -> list[Comment]:
        taken, self.pending = self.pending, []
        return taken

    # -- grammar --------------------------------------------------------------------------
    def document(self) -> Document:
        fields = self.fields(closer=None)
        return Document(fields, end_comments=self.take_pending())

    def fields(self, closer: str | None) -> list[Field]:
        fields: list[Field] = []
        while True:
            token = self.peek()
            if token.kind is Kind.END:
                if closer is not None:
                    raise SyntaxProblem(f'Expected "{closer}", found end of input.', token.span)
                return fields
            if closer is not None and token.kind is Kind.SYMBOL and token.text == closer:
                return fields
            fields.append(self.field())

    def field(self) -> Field:
        leading = self.take_pending()
        token = self.peek()
        blank_before = token.line - self.last_line >= 2 if not leading else False
        if leading and token.line - leading[-1].span.line >= 2:
            blank_before = True
        if token.kind is not Kind.IDENT:
            if token.kind is Kind.SYMBOL and token.text == "[":
                raise SyntaxProblem(
                    "Extension and Any fields ([...]) are not allowed in a model configuration.",
                    token.span,
                )
            raise SyntaxProblem(f"Expected identifier, found {_describe(token)}.", token.span)
        self.advance()
        colon = self.try_symbol(":") is not None
        value = self.value()
        end_line = self.last_line
        trailing = self.trailing_comment(end_line)
        if not self.try_symbol(","):
            self.try_symbol(";")
        if trailing is None:
            trailing = self.trailing_comment(self.last_line)
        if self.pending:  # comments written inside the field itself (e.g. between name and value)
            leading.extend(self.take_pending())
        return Field(
            name=token.text,
            name_span=token.span,
            value=value,
            span=token.span.cover(value.span),
            colon=colon,
            leading=leading,
            trailing=trailing,
            blank_before=blank_before,
        )

    def value(self) -> Scalar | Block | ListValue:
        token = self.peek()
        if token.kind is Kind.SYMBOL and token.text == "[":
            return self.list_value()
        return self.item_value()

    def item_value(self) -> Scalar | Block:
        token = self.peek()
        if token.kind is Kind.SYMBOL and token.text in _CLOSERS:
            return self.block()
        return self.scalar()

    def block(self) -> Block:
        opener = self.advance()
        closer = _CLOSERS[opener.text]
        open_comment = self.trailing_comment(opener.line)
        fields = self.fields(closer)
        end_comments = self.take_pending()
        close = self.advance()
        return Block(
            fields,
            opener.span.cover(close.span),
            angle=opener.text == "<",
            open_comment=open_comment,
            end_comments=end_comments,
        )

    def list_value(self) -> ListValue:
        opener = self.advance()
        open_comment = self.trailing_comment(opener.line)
        items: list[ListItem] = []
        close = self.try_symbol("]")
        while close is None:
            self.peek()
            leading = self.take_pending()
            value = self.item_value()
            item = ListItem(value, leading, self.trailing_comment(self.last_line))
            items.append(item)
            close = self.try_symbol("]")
            if close is None:
                self.expect_symbol(",")
                if item.trailing is None:
                    item.trailing = self.trailing_comment(self.last_line)
                if self.pending:
                    item.leading.extend(self.take_pending())
        return ListValue(
            items,
            opener.span.cover(close.span),
            open_comment=open_comment,
            end_comments=self.take_pending(),
        )

    def scalar(self) -> Scalar:
        token = self.advance()
        negative = False
        start = token.span
        if token.kind is Kind.SYMBOL and token.text == "-":
            negative = True
            token = self.advance()
            if token.kind not in (Kind.INT, Kind.FLOAT, Kind.IDENT):
                raise SyntaxProblem(
                    f'Expected a number after "-", found {_describe(token)}.', token.span
                )
        if token.kind is Kind.STRING:
            parts = [token.text]
            span = token.span
            while self.lookahead().kind is Kind.STRING:
                nxt = self.advance()
                parts.append(nxt.text)
                span = span.cover(nxt.span)
            return Scalar("string", tuple(parts), False, span)
        if token.kind is Kind.IDENT:
            return Scalar("identifier", (token.text,), negative, start.cover(token.span))
        if token.kind is Kind.INT:
            return Scalar("integer", (token.text,), negative, start.cover(token.span))
        if token.kind is Kind.FLOAT:
            return Scalar("float", (token.text,), negative, start.cover(token.span))
        raise SyntaxProblem(f"Expected a value, found {_describe(token)}.", token.span)


def parse_tree(source: str) -> Document:
    """Parse text-format source into a syntax tree. Raises SyntaxProblem."""
    try:
        tokens = tokenize(source)
    except LexError as exc:
        raise SyntaxProblem(exc.message, Span.point(exc.line, exc.column)) from None
    return _Parser(tokens).document()
