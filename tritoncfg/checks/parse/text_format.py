"""TC0xx: PARSE. Triton reads config.pbtxt with C++ `TextFormat::ParseFromString`; any failure
rejects the model with `failed to read text proto from <path>` (filesystem/api.cc:
`ReadTextProto`)."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import emitted_rule, model_rule
from tritoncfg.diagnostics import Fix, Severity
from tritoncfg.repository.model import is_json_path
from tritoncfg.text.bind import MAX_TEXT_ERRORS, ErrorKind, TextError
from tritoncfg.text.config import ParsedConfig
from tritoncfg.text.edits import Edit, SourceLines, delete_field
from tritoncfg.text.printer import printed_value
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.text.tree import Field, iter_fields
from tritoncfg.workspace import LoadedModel

PHASE = Phase.PARSE


def _triton_message(model: LoadedModel, error: TextError | None = None) -> str:
    if is_json_path(model.config_path):
        # a JSON config reaches Triton as a load-API override (model_repository_manager.cc)
        detail = f": {error.message}" if error is not None else ""
        return f"Invalid config override{detail}"
    return f"failed to read text proto from {model.config_path}"


def _errors(model: LoadedModel, kind: ErrorKind) -> Iterator[Finding]:
    config = model.config
    if config is None or (not config.errors and config.first_omitted is None):
        return  # most configs: nothing to report, and nothing to work out for it
    # a pbtxt's Triton message is the same for every error, and a file that repeats an error
    # repeats its message: one string each, not one per error (a file may hold 100,000)
    same = None if is_json_path(model.config_path) else _triton_message(model)
    messages: dict[tuple[str, str], str] = {}
    duplicates = None
    if (
        kind == "duplicate-field"
        and config.document is not None
        and any(error.kind == kind for error in config.errors)
    ):
        duplicates = _Duplicates(config.source, config.document.fields, config.errors)
    for error in config.errors:
        if error.kind != kind:
            continue
        message = error.message
        if error.suggestion is not None:
            key = (message, error.suggestion)
            message = messages.get(key) or messages.setdefault(
                key, f'{message} Did you mean "{error.suggestion}"?'
            )
        yield Finding(
            message,
            error.span,
            triton_message=same or _triton_message(model, error),
            fix=duplicates.fix(error) if duplicates is not None else _fix(config, error),
        )
    first = config.first_omitted
    if first is not None and first.kind == kind:
        yield _omitted_summary(model, config.omitted, first)


def _omitted_summary(model: LoadedModel, omitted: int, first: TextError) -> Finding:
    """The one finding that stands for the errors past `MAX_TEXT_ERRORS`, at the first of them."""
    return Finding(
        f"{omitted:,} more text-format errors, from this one on, are not shown: tritoncfg reports"
        f" the first {MAX_TEXT_ERRORS:,} errors of a file (Triton stops at the first); fix"
        " these and lint again",
        first.span,
        triton_message=_triton_message(model, first),
    )


def _fix(config: ParsedConfig, error: TextError) -> Fix | None:
    """Renames to the schema's suggestion."""
    if config.document is None or error.suggestion is None:
        return None
    if error.kind == "unknown-enum-value":
        return Fix(f"rename to {error.suggestion}", (Edit(error.span, error.suggestion),))
    if error.kind == "unknown-field":
        # a different field may mean something else: the user must agree
        return Fix(
            f"rename to {error.suggestion}", (Edit(error.span, error.suggestion),), safe=False
        )
    return None


class _Duplicates:
    """Removal of a field that repeats the first of its name in its message with the same value.
    The fields are looked up once for all the errors, and each first field printed once: per
    error, a search of the whole tree made a file of repeated fields quadratic (20,000 of them:
    minutes)."""

    def __init__(self, source: str, fields: list[Field], errors: list[TextError]) -> None:
        self.source = source
        self.lines = SourceLines.of(source)
        wanted = {error.span for error in errors if error.kind == "duplicate-field"}
        firsts: dict[tuple[int, str], Field] = {}
        self.found: dict[Span, tuple[Field, Field]] = {}
        for siblings, node in iter_fields(fields):
            first = firsts.setdefault((id(siblings), node.name), node)
            if first is not node and node.name_span in wanted:
                self.found[node.name_span] = (first, node)
        self.printed: dict[int, str] = {}  # by id of a first field

    def fix(self, error: TextError) -> Fix | None:
        pair = self.found.get(error.span)
        if pair is None:
            return None
        first, node = pair
        printed = self.printed.get(id(first))
        if printed is None:
            printed = self.printed[id(first)] = printed_value(first.value)
        if printed != printed_value(node.value):
            return None
        return Fix(
            f"remove the repeated {node.name}", (delete_field(self.source, node, self.lines),)
        )


@model_rule(
    "TC001",
    severity=Severity.ERROR,
    summary="The file is not valid protobuf text format.",
    phase=PHASE,
    needs_valid_config=False,
)
def text_format_syntax_error(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports text that protobuf's text-format parser cannot read: an unbalanced brace, a missing
    `:` before a scalar, a value that is not a value (`${var}` template leftovers), a malformed
    number (`08`, `1.2.3`) or string.

    ## Why it matters
    Triton rejects the whole model with `failed to read text proto from <path>`; the real reason
    goes only to the server's stderr, as a `[libprotobuf ERROR ...]` line.

    ## Example
    ```pbtxt
    max_batch_size 8
    ```

    ## Fix
    ```pbtxt
    max_batch_size: 8
    ```
    """
    return _errors(model, "syntax")


@model_rule(
    "TC002",
    severity=Severity.ERROR,
    summary="A field name that the model configuration schema does not have.",
    phase=PHASE,
    needs_valid_config=False,
    fixable=True,
)
def unknown_field(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a field name that does not exist in the message it is written in, names that message
    type and suggests the closest field of it. Names are exact and case-sensitive.

    ## Why it matters
    Triton refuses to load the model (`Message type "inference.ModelConfig" has no field named
    "max_batch_sise".` on stderr, `failed to read text proto` in the log).

    ## Example
    ```pbtxt
    max_batch_sise: 8
    ```

    ## Fix
    ```pbtxt
    max_batch_size: 8
    ```
    """
    return _errors(model, "unknown-field")


@model_rule(
    "TC003",
    severity=Severity.ERROR,
    summary="A non-repeated field is given twice.",
    phase=PHASE,
    needs_valid_config=False,
    fixable=True,
)
def duplicate_field(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a singular field written twice in one message. As in C++ protobuf, a scalar whose
    first occurrence holds the default value (`max_batch_size: 0`) may be given again; a
    message field (`dynamic_batching { }`) never may.

    ## Why it matters
    Triton refuses to load the model: `Non-repeated field "max_batch_size" is specified multiple
    times.`

    ## Example
    ```pbtxt
    max_batch_size: 8
    max_batch_size: 8
    ```

    With `--fix`, a field repeated with the same value is removed (comments stay); with two
    different values you must choose.

    ## Fix
    ```pbtxt
    max_batch_size: 8
    ```
    """
    return _errors(model, "duplicate-field")


@model_rule(
    "TC004",
    severity=Severity.ERROR,
    summary="Two members of one oneof are set (e.g. dynamic_batching and sequence_batching).",
    phase=PHASE,
    needs_valid_config=False,
)
def oneof_conflict(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a second member of a oneof: the scheduler (`dynamic_batching`, `sequence_batching`,
    `ensemble_scheduling`), the version policy (`latest`, `all`, `specific`), the sequence
    strategy (`direct`, `oldest`), warmup input data (`zero_data`, `random_data`,
    `input_data_file`), initial state data. Even a member set to its default counts.

    ## Why it matters
    Triton refuses to load the model: `Field "sequence_batching" is specified along with field
    "dynamic_batching", another member of oneof "scheduling_choice".`

    ## Example
    ```pbtxt
    dynamic_batching { }
    sequence_batching { }
    ```

    ## Fix
    ```pbtxt
    dynamic_batching { }
    ```
    """
    return _errors(model, "oneof-conflict")


@model_rule(
    "TC005",
    severity=Severity.ERROR,
    summary="An enum name that does not exist (e.g. TYPE_FLOAT32, KIND_GPUS).",
    phase=PHASE,
    needs_valid_config=False,
    fixable=True,
)
def unknown_enum_value(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an enum identifier the schema does not define and suggests the closest one, knowing
    the spellings people bring from numpy, PyTorch and ONNX (`FLOAT32` → `TYPE_FP32`).

    ## Why it matters
    Triton refuses to load the model: `Unknown enumeration value of "TYPE_FLOAT32" for field
    "data_type".`

    ## Example
    ```pbtxt
    input [ { name: "x" data_type: TYPE_FLOAT32 dims: [ 4 ] } ]
    ```

    ## Fix
    ```pbtxt
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    ```
    """
    return _errors(model, "unknown-enum-value")


@model_rule(
    "TC006",
    severity=Severity.ERROR,
    summary="A value of the wrong kind or out of range for its field.",
    phase=PHASE,
    needs_valid_config=False,
)
def invalid_value(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a value the field's type cannot hold: an unquoted string (`backend: python`), a float
    for an integer (`max_batch_size: 1.0`), a number out of range, a negative value for an
    unsigned field, a boolean other than `true`/`false`/`True`/`False`/`t`/`f`/`0`/`1`.

    ## Why it matters
    Triton refuses to load the model (`Expected string, got: python.` on stderr).

    ## Example
    ```pbtxt
    backend: python
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    ```
    """
    return _errors(model, "invalid-value")


@model_rule(
    "TC007",
    severity=Severity.ERROR,
    summary="The config file cannot be read (permissions, invalid UTF-8, outside the repository).",
    phase=PHASE,
    needs_valid_config=False,
)
def unreadable_config(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a config file that exists but cannot be read as UTF-8 text inside the repository.

    ## Why it matters
    Triton cannot load a model whose config it cannot read.

    ## Example
    A `config.pbtxt` saved in Latin-1 with an accented character, or with mode 000.

    ## Fix
    Save the file as UTF-8 and make it readable.
    """
    error = model.read_error
    if error is not None:
        span = FILE_START if error.span is None else error.span  # invalid UTF-8: the byte
        yield Finding(f"cannot read the config: {error.reason}", span, triton_message=None)


# A config Triton cannot read is always an error: no selection, per-path ignore, severity
# override or noqa comment hides these (as ruff reports syntax errors whatever is selected).
PARSE_ERRORS = frozenset(
    rule.code
    for rule in (
        text_format_syntax_error,
        unknown_field,
        duplicate_field,
        oneof_conflict,
        unknown_enum_value,
        invalid_value,
        unreadable_config,
    )
)

CHECKS_SKIPPED = emitted_rule(
    "TC009",
    "CHECKS_SKIPPED",
    severity=Severity.INFO,
    summary="Configuration checks were skipped because the config does not parse.",
    phase=PHASE,
    doc="""
    ## What it does
    Says, once per model, that the checks of the model's meaning (batching, inputs, instance
    groups, ...) did not run because its config has parse errors (TC001-TC007). The engine
    emits it; this rule itself finds nothing.

    ## Why it matters
    Triton stops at the parse error too, so what those checks would say is not Triton's verdict
    yet; a clean lint after fixing the parse errors may still report them.

    ## Example
    A config with `max_batch_sise: 8` and, further down, `preferred_batch_size: [ 16 ]`.

    ## Fix
    Fix the parse errors and lint again.
    """,
    module=__name__,
)
