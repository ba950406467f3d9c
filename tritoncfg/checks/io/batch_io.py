"""TC320-TC325: `batch_input` and `batch_output`, as Triton's `ValidateBatchIO` checks them after
the inputs and outputs (model_config_utils.cc). Triton stops at the first problem; every one is
reported here."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.io.tensors import PHASE, backend_completes_io, io_finding
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import BatchInput, BatchOutput, DataType, ModelConfig
from tritoncfg.workspace import LoadedModel

_BATCH_DATA_TYPES = (DataType.TYPE_INT32, DataType.TYPE_FP32)
_TYPE_NAMES = {number: name for name, number in DataType.items()}
_KIND_NAMES = {
    "batch_input": {number: name for name, number in BatchInput.Kind.items()},
    "batch_output": {number: name for name, number in BatchOutput.Kind.items()},
}


def _batch_entries(config: ModelConfig) -> Iterator[tuple[str, int, BatchInput | BatchOutput]]:
    """("batch_input" | "batch_output", index, entry), in Triton's order."""
    for i, batch_input in enumerate(config.batch_input):
        yield "batch_input", i, batch_input
    for j, batch_output in enumerate(config.batch_output):
        yield "batch_output", j, batch_output


def _kind_name(field: str, entry: BatchInput | BatchOutput) -> str | None:
    """The kind's enum name, or None for a number the schema does not define (Triton prints '')."""
    return _KIND_NAMES[field].get(entry.kind)


def _word(field: str) -> str:
    return field.removeprefix("batch_")


@model_rule(
    "TC320",
    severity=Severity.ERROR,
    summary="A batch_input or batch_output does not name exactly one source_input.",
    phase=PHASE,
    gate=gates.batch_io,
)
def batch_io_source_count(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `batch_input` (any kind) or `batch_output` whose `source_input` list does not
    hold exactly one name.

    ## Why it matters
    Triton refuses the model: `batch input kind 'BATCH_ELEMENT_COUNT' expects 1 source input,
    got 0 for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "x_count" data_type: TYPE_INT32 } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "x_count" data_type: TYPE_INT32 source_input: "x" } ]
    ```
    """
    for field, i, entry in _batch_entries(ctx.io_config(model)):
        kind = _kind_name(field, entry)
        count = len(entry.source_input)
        if kind is None or count == 1:
            continue  # an unknown kind is TC321's
        yield io_finding(
            model,
            ctx,
            f"{field} #{i} of kind {kind} needs exactly one source_input (the input it "
            f"describes), not {count}",
            (field, i, "source_input") if count else (field, i),
            f"batch {_word(field)} kind '{kind}' expects 1 source input, got {count}",
        )


@model_rule(
    "TC321",
    severity=Severity.ERROR,
    summary="A batch_input or batch_output kind given as a number the schema does not define.",
    phase=PHASE,
    gate=gates.batch_io,
)
def batch_io_unknown_kind(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `batch_input.kind` or `batch_output.kind` written as a number that names no kind:
    text format accepts any number for these open enums.

    ## Why it matters
    Triton refuses the model: `unknown batch input kind '' for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_input [ { kind: 9 target_name: "n" data_type: TYPE_INT32 source_input: "x" } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32 source_input: "x" } ]
    ```
    """
    for field, i, entry in _batch_entries(ctx.io_config(model)):
        if _kind_name(field, entry) is None:
            yield io_finding(
                model,
                ctx,
                f"{field} #{i} has kind {entry.kind}, which is not a kind; use one of "
                + ", ".join(_KIND_NAMES[field].values()),
                (field, i, "kind"),
                f"unknown batch {_word(field)} kind ''",
                value=True,
            )


@model_rule(
    "TC322",
    severity=Severity.ERROR,
    summary="A batch_input data_type other than TYPE_INT32 or TYPE_FP32 (or unset).",
    phase=PHASE,
    gate=gates.batch_io,
)
def batch_input_data_type(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `batch_input` whose `data_type` is not `TYPE_INT32` or `TYPE_FP32`; an unset
    type fails too.

    ## Why it matters
    Triton refuses the model: `batch input data type must be TYPE_INT32 or TYPE_FP32 for
    <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT64 source_input: "x" } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32 source_input: "x" } ]
    ```
    """
    for i, entry in enumerate(ctx.io_config(model).batch_input):
        if entry.data_type not in _BATCH_DATA_TYPES:
            written = (
                "no data_type"
                if entry.data_type == DataType.TYPE_INVALID
                else f"data_type {_TYPE_NAMES.get(entry.data_type, str(entry.data_type))}"
            )
            yield io_finding(
                model,
                ctx,
                f"batch_input #{i} has {written}; a batch input is TYPE_INT32 or TYPE_FP32",
                ("batch_input", i, "data_type"),
                "batch input data type must be TYPE_INT32 or TYPE_FP32",
                value=True,
            )


@model_rule(
    "TC323",
    severity=Severity.ERROR,
    summary="A batch_input or batch_output source_input that is not an input of the model.",
    phase=PHASE,
    gate=gates.batch_io,
)
def batch_io_unknown_source_input(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports every `source_input` of a `batch_input` or `batch_output` that names no `input`.
    In the default auto-complete mode, a backend that adds inputs from the
    model file (ONNX Runtime, TensorRT, TensorFlow, OpenVINO, DALI) may still supply it: a
    warning.

    ## Why it matters
    Triton refuses the model: `unknown source input name 'X' for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32 source_input: "X" } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32 source_input: "x" } ]
    ```
    """
    config = ctx.io_config(model)
    inputs = {io.name for io in config.input}
    filler = backend_completes_io(model, ctx)
    for field, i, entry in _batch_entries(config):
        for j, source in enumerate(entry.source_input):
            if source in inputs:
                continue
            message = f"{field} #{i} reads source_input '{source}', which is not an input"
            yield io_finding(
                model,
                ctx,
                f"{message}, unless {filler} adds it from the model file"
                if filler
                else f"{message}; name one of the inputs",
                (field, i, "source_input", j),
                None if filler else f"unknown source input name '{source}'",
                value=True,
                severity=Severity.WARNING if filler else None,
            )


@model_rule(
    "TC324",
    severity=Severity.ERROR,
    summary="A batch_output target_name that is not an output of the model.",
    phase=PHASE,
    gate=gates.batch_io,
)
def batch_output_unknown_target(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports every `target_name` of a `batch_output` that names no `output`. In the
    default auto-complete mode, a backend that adds outputs from the model file may still
    supply it: a warning.

    ## Why it matters
    Triton refuses the model: `unknown target output name 'Y' for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "Y" source_input: "x" } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y" source_input: "x" } ]
    ```
    """
    config = ctx.io_config(model)
    outputs = {io.name for io in config.output}
    filler = backend_completes_io(model, ctx)
    for i, entry in enumerate(config.batch_output):
        for j, target in enumerate(entry.target_name):
            if target in outputs:
                continue
            message = f"batch_output #{i} targets '{target}', which is not an output"
            yield io_finding(
                model,
                ctx,
                f"{message}, unless {filler} adds it from the model file"
                if filler
                else f"{message}; name one of the outputs",
                ("batch_output", i, "target_name", j),
                None if filler else f"unknown target output name '{target}'",
                value=True,
                severity=Severity.WARNING if filler else None,
            )


@model_rule(
    "TC325",
    severity=Severity.ERROR,
    summary="A batch_output names the same target output twice.",
    phase=PHASE,
    gate=gates.batch_io,
)
def batch_output_duplicate_target(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `target_name` given a second time within one `batch_output`.

    ## Why it matters
    Triton refuses the model: `target output name 'y' can only be specified once for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: [ "y", "y" ] source_input: "x" } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
    batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: [ "y" ] source_input: "x" } ]
    ```
    """
    for i, entry in enumerate(ctx.io_config(model).batch_output):
        seen: set[str] = set()
        for j, target in enumerate(entry.target_name):
            if target in seen:
                yield io_finding(
                    model,
                    ctx,
                    f"batch_output #{i} names target '{target}' twice; remove the repeat",
                    ("batch_output", i, "target_name", j),
                    f"target output name '{target}' can only be specified once",
                    value=True,
                )
            seen.add(target)
