"""What a python model's `auto_complete_config` asks of the config, read from `model.py` with
`ast`: the file is parsed, never imported or run.

The python backend calls `TritonPythonModel.auto_complete_config` once at load (python_backend
`src/python_be.cc`, TRITONBACKEND_ModelInitialize, unless --disable-auto-complete-config), with
a `pb_utils.ModelConfig` whose `set_max_batch_size`, `add_input` and `add_output` raise on a
value that contradicts the config (`src/resources/triton_python_backend_utils.py`). Only calls
whose argument is known without running anything are read: literals, names bound once to a
literal (in the module or the function), `for` loops over such a list, and `if` tests on those;
a call under any other `if`, a `while` or a `try` may not run, and is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.record import record
from tritoncfg.text.span import Span

if TYPE_CHECKING:
    import ast

METHODS = ("set_max_batch_size", "add_input", "add_output")
MODEL_CLASS = "TritonPythonModel"
FUNCTION = "auto_complete_config"
SIZE_LIMIT = 4 * 1024 * 1024  # bytes of model.py read; a larger file is not read
_UNKNOWN = object()  # a value that depends on something not in the file


@record(frozen=True)
class AutoCompleteCall:
    """One call that runs whenever auto_complete_config runs, with its argument's value."""

    method: str  # one of METHODS
    value: object  # int for set_max_batch_size, dict for add_input / add_output
    span: Span  # the call, in model.py


def read_autocomplete_calls(path: Path) -> tuple[AutoCompleteCall, ...]:
    """The calls of `path`'s auto_complete_config whose argument is known; () for a file that
    cannot be read or parsed (the python backend reports that one itself)."""
    import ast

    from tritoncfg.confined import PathRefused, read_regular

    try:
        source = read_regular(path, limit=SIZE_LIMIT).decode("utf-8")
        tree = ast.parse(source, str(path))
    except (OSError, PathRefused, UnicodeDecodeError, SyntaxError, ValueError):
        return ()
    function = _auto_complete_function(tree)
    if function is None:
        return ()
    constants = _known_names(tree, function)
    lines = source.splitlines()
    found: list[AutoCompleteCall] = []
    _walk(function.body, constants, lines, found)
    return tuple(found)


def _auto_complete_function(tree: ast.Module) -> ast.FunctionDef | None:
    import ast

    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == MODEL_CLASS:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == FUNCTION:
                    return item
    return None


def _constants(body: list[ast.stmt]) -> dict[str, object]:
    """Names assigned exactly once in `body` (not nested), to a value known without running."""
    import ast

    counts: dict[str, int] = {}
    values: dict[str, object] = {}
    for node in body:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    counts[target.id] = counts.get(target.id, 0) + 1
                    given = None if isinstance(node, ast.AugAssign) else node.value
                    values[target.id] = _UNKNOWN if given is None else _value(given, values)
    return {n: v for n, v in values.items() if counts[n] == 1 and v is not _UNKNOWN}


def _known_names(tree: ast.Module, function: ast.FunctionDef) -> dict[str, object]:
    """The constants auto_complete_config sees: its own, and the module's it does not rebind."""
    import ast

    stores: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    module = {n: v for n, v in _constants(tree.body).items() if n not in stores}
    local = {n: v for n, v in _constants(function.body).items() if stores.get(n) == 1}
    return module | local


def _walk(
    body: list[ast.stmt], env: dict[str, object], lines: list[str], found: list[AutoCompleteCall]
) -> None:
    """The calls of `body` that run whenever it runs (loops over known lists unrolled)."""
    import ast

    for node in body:
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            items = _value(node.iter, env)
            if isinstance(items, list | tuple):
                for item in items:
                    _walk(node.body, {**env, node.target.id: item}, lines, found)
        elif isinstance(node, ast.If):
            test = _truth(node.test, env)
            if test is not None:
                _walk(node.body if test else node.orelse, env, lines, found)
        elif isinstance(node, ast.With):
            _walk(node.body, env, lines, found)
        elif isinstance(node, ast.Expr | ast.Assign | ast.Return | ast.AnnAssign):
            for call in ast.walk(node):
                if isinstance(call, ast.Call):
                    _record(call, env, lines, found)


def _record(
    call: ast.Call, env: dict[str, object], lines: list[str], found: list[AutoCompleteCall]
) -> None:
    import ast

    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in METHODS):
        return
    if len(call.args) != 1 or call.keywords:
        return
    value = _value(call.args[0], env)
    if value is not _UNKNOWN:
        found.append(AutoCompleteCall(func.attr, value, _span(call, lines)))


def _value(node: ast.expr, env: dict[str, object]) -> object:
    """The value of a literal expression (names looked up in `env`), or _UNKNOWN."""
    import ast

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id, _UNKNOWN)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _value(node.operand, env)
        return -operand if isinstance(operand, int) and not isinstance(operand, bool) else _UNKNOWN
    if isinstance(node, ast.List | ast.Tuple):
        items = [_value(item, env) for item in node.elts]
        return _UNKNOWN if any(i is _UNKNOWN for i in items) else items
    if isinstance(node, ast.Dict):
        keys = [key for key in node.keys if key is not None]
        if len(keys) != len(node.keys):  # `**other`
            return _UNKNOWN
        pairs = [(_value(k, env), _value(v, env)) for k, v in zip(keys, node.values, strict=True)]
        if any(k is _UNKNOWN or v is _UNKNOWN for k, v in pairs):
            return _UNKNOWN
        try:
            return dict(pairs)
        except TypeError:  # an unhashable key
            return _UNKNOWN
    return _UNKNOWN


def _truth(test: ast.expr, env: dict[str, object]) -> bool | None:
    """An `if` test on known values (`MAX_BATCH_SIZE > 0`), or None when it is not known."""
    import ast
    import operator

    compare: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Eq: operator.eq,
        ast.NotEq: operator.ne,
    }
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in compare:
        left, right = _value(test.left, env), _value(test.comparators[0], env)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        try:
            return bool(compare[type(test.ops[0])](left, right))
        except TypeError:
            return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand, env)
        return None if inner is None else not inner
    value = _value(test, env)
    return None if value is _UNKNOWN else bool(value)


def _span(node: ast.expr, lines: list[str]) -> Span:
    """The node's span in characters (ast counts columns in UTF-8 bytes)."""

    def column(line: int, offset: int | None) -> int:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return len(text.encode("utf-8")[: offset or 0].decode("utf-8", "replace")) + 1

    end_line = node.end_lineno or node.lineno
    return Span(
        node.lineno,
        column(node.lineno, node.col_offset),
        end_line,
        column(end_line, node.end_col_offset),
    )


__all__ = ["METHODS", "AutoCompleteCall", "read_autocomplete_calls"]
