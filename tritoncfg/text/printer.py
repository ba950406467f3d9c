"""The canonical printer behind `tritoncfg fmt`: a pure function of the syntax tree.

Style: 2-space indent, one field per line, no `,`/`;` separators, `{ }` braces (never `<>`), no `:`
before a message, short scalar lists inline (`dims: [ 3, 224, 224 ]`), repeated messages as written
(list or repetition), at most one blank line, every comment kept at its node.
"""

from __future__ import annotations

from tritoncfg.text.parser import parse_tree
from tritoncfg.text.tree import Block, Comment, Document, Field, ListItem, ListValue, Scalar, Value

INDENT = "  "
MAX_INLINE_WIDTH = 100  # a scalar list longer than this is printed one item per line
FMT_OFF = "tritoncfg: fmt: off"


def is_fmt_off(document: Document) -> bool:
    """A `# tritoncfg: fmt: off` comment before the first field leaves the file alone."""
    return any(FMT_OFF in c.text for c in document.header_comments())


def format_source(source: str) -> str:
    """The canonical form of config text. Raises SyntaxProblem for text that does not parse."""
    document = parse_tree(source)
    if is_fmt_off(document):
        return source
    return format_document(document)


def format_document(document: Document) -> str:
    out: list[str] = []
    _fields(out, document.fields, 0)
    if document.end_comments:
        _comments(out, document.end_comments, 0, at_start=not document.fields)
    return "\n".join(out) + "\n" if out else ""


def _comments(out: list[str], comments: list[Comment], depth: int, *, at_start: bool) -> None:
    pad = INDENT * depth
    for i, comment in enumerate(comments):
        if comment.blank_before and not (at_start and i == 0):
            out.append("")
        out.append(pad + comment.text)


def _fields(out: list[str], fields: list[Field], depth: int) -> None:
    for i, node in enumerate(fields):
        first = i == 0
        if node.leading:
            _comments(out, node.leading, depth, at_start=first)
            if node.blank_before:
                out.append("")
        elif node.blank_before and not first:
            out.append("")
        _field(out, node, depth)


def _suffix(comment: Comment | None) -> str:
    return "" if comment is None else "  " + comment.text


def _field(out: list[str], node: Field, depth: int) -> None:
    pad = INDENT * depth
    value = node.value
    if isinstance(value, Scalar):
        colon = ":" if node.colon else ""
        out.append(f"{pad}{node.name}{colon} {_scalar(value)}{_suffix(node.trailing)}")
    elif isinstance(value, Block):
        _block(out, f"{pad}{node.name} ", value, depth, node.trailing)
    else:
        messages = bool(value.items) and all(isinstance(it.value, Block) for it in value.items)
        # A `:` is required before a scalar list and optional before messages; keep it where the
        # file had it for an empty list, whose field type the printer cannot see.
        colon = "" if messages else (":" if node.colon or value.items else "")
        _list(out, f"{pad}{node.name}{colon} ", value, depth, node.trailing)


def _block(out: list[str], head: str, block: Block, depth: int, trailing: Comment | None) -> None:
    if not block.fields and not block.end_comments and block.open_comment is None:
        out.append(f"{head}{{ }}{_suffix(trailing)}")
        return
    out.append(f"{head}{{{_suffix(block.open_comment)}")
    _fields(out, block.fields, depth + 1)
    if block.end_comments:
        _comments(out, block.end_comments, depth + 1, at_start=not block.fields)
    out.append(f"{INDENT * depth}}}{_suffix(trailing)}")


def _list(out: list[str], head: str, lst: ListValue, depth: int, trailing: Comment | None) -> None:
    has_comments = (
        lst.open_comment is not None
        or lst.end_comments
        or any(it.leading or it.trailing for it in lst.items)
    )
    scalars = all(isinstance(it.value, Scalar) for it in lst.items)
    if not lst.items and not has_comments:
        out.append(f"{head}[ ]{_suffix(trailing)}")
        return
    if scalars and not has_comments:
        inline = f"{head}[ {', '.join(_scalar(it.value) for it in lst.items)} ]"  # type: ignore[arg-type]
        if len(inline) <= MAX_INLINE_WIDTH:
            out.append(inline + _suffix(trailing))
            return
    out.append(f"{head}[{_suffix(lst.open_comment)}")
    inner = INDENT * (depth + 1)
    last = len(lst.items) - 1
    for i, item in enumerate(lst.items):
        _item(out, item, depth + 1, inner, comma="," if i < last else "")
    if lst.end_comments:
        _comments(out, lst.end_comments, depth + 1, at_start=not lst.items)
    out.append(f"{INDENT * depth}]{_suffix(trailing)}")


def _item(out: list[str], item: ListItem, depth: int, pad: str, comma: str) -> None:
    _comments(out, item.leading, depth, at_start=True)
    value = item.value
    if isinstance(value, Scalar):
        out.append(f"{pad}{_scalar(value)}{comma}{_suffix(item.trailing)}")
        return
    _block(out, pad, value, depth, None)
    out[-1] = out[-1] + comma + _suffix(item.trailing)


def _scalar(value: Scalar) -> str:
    if value.kind != "string":
        return value.text
    return " ".join(_quote(part) for part in value.parts)


def _quote(part: str) -> str:
    """Prefer double quotes; a single-quoted literal is converted when that needs no re-escaping."""
    if part[0] == '"':
        return part
    body = part[1:-1]
    if '"' in body or "\\'" in body:
        return part
    return f'"{body}"'


def printed_value(value: Value) -> str:
    """One value on one line, as `fmt` writes it (used in messages and by edits)."""
    if isinstance(value, Scalar):
        return _scalar(value)
    out: list[str] = []
    if isinstance(value, Block):
        _block(out, "", value, 0, None)
    else:
        _list(out, "", value, 0, None)
    return " ".join(line.strip() for line in out)
