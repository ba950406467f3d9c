"""TC304, TC306-TC312: the rest of `ValidateModelInput` / `ValidateModelOutput`
(model_config_utils.cc): a tensor's reshape, the NHWC/NCHW format, shape tensors and non-linear IO
formats; and duplicate tensor names, which core never checks but Model::Init mishandles."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.io.tensors import (
    PHASE,
    ShapeProblem,
    has_duplicate_name,
    has_layout_format,
    has_non_linear_io,
    has_shape_problems,
    has_shape_tensor,
    io_finding,
    platform_known,
    shape_findings,
    tensors,
)
from tritoncfg.complete.autofill import TENSORRT_PLAN
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import ModelConfig, ModelInput
from tritoncfg.workspace import LoadedModel


@model_rule(
    "TC304",
    severity=Severity.ERROR,
    summary="An empty reshape (a scalar) in a model with max_batch_size 0.",
    phase=PHASE,
    when=has_shape_problems,
)
def io_empty_reshape_non_batching(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `reshape { shape: [ ] }` on an input or output of a non-batching model.
    With batching, an empty reshape of `dims: [ 1 ]` is fine.

    ## Why it matters
    Triton refuses the model: `model input 'x' cannot have empty reshape for non-batching model
    as scalar tensors are not supported for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.EMPTY_RESHAPE_NON_BATCHING)


@model_rule(
    "TC306",
    severity=Severity.ERROR,
    summary="The dims or reshape of a reshaped tensor hold more elements than int64 can count.",
    phase=PHASE,
    when=has_shape_problems,
)
def io_element_count_overflow(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input or output with a `reshape` whose `dims` or `reshape.shape` multiply past
    2^63-1 before the first -1. Triton counts elements only for reshaped tensors.

    ## Why it matters
    Triton refuses the model: `element count for tensor 'x dims' exceeds maximum size of
    9223372036854775807 for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4294967296, 4294967296 ] reshape { shape: [ 1 ] } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] reshape { shape: [ 4, 4 ] } } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.ELEMENT_COUNT_OVERFLOW)


@model_rule(
    "TC307",
    severity=Severity.ERROR,
    summary="dims and reshape of a tensor do not describe the same number of elements.",
    phase=PHASE,
    when=has_shape_problems,
)
def io_reshape_size_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input or output whose `dims` and `reshape.shape` differ in element count,
    with a -1 on one side only, with a different number of -1,
    or with fixed sizes between the -1 that do not match: `[2, 4, -1, 6]` may become
    `[8, -1, 1, 6]`, but `[2, -1]` may not become `[-1, 2]`. An empty reshape of
    a one-element tensor is fine in a batching model.

    ## Why it matters
    Triton refuses the model: `model input 'x' has different size for dims and reshape for
    <model>` (or `has different number of variable-size dimensions for dims and reshape`).

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 4
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 3, 2 ] reshape { shape: [ 5 ] } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 4
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 3, 2 ] reshape { shape: [ 6 ] } } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.RESHAPE_MISMATCH)


@model_rule(
    "TC308",
    severity=Severity.ERROR,
    summary="An input with format FORMAT_NHWC or FORMAT_NCHW does not have exactly 3 dims.",
    phase=PHASE,
    when=has_layout_format,
)
def input_format_needs_3_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input whose `format` is `FORMAT_NHWC` or `FORMAT_NCHW` and whose `dims` (without
    the batch dimension) are not 3 values.

    ## Why it matters
    Triton refuses the model: `model input NHWC/NCHW require 3 dims for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "image" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 224, 224 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "image" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224, 224 ] } ]
    ```
    """
    for i, io in enumerate(ctx.io_config(model).input):
        layout = io.format in (ModelInput.FORMAT_NHWC, ModelInput.FORMAT_NCHW)
        if layout and len(io.dims) not in (0, 3):  # no dims at all is TC303's finding
            yield io_finding(
                model,
                ctx,
                f"input '{io.name}' has format {ModelInput.Format.Name(io.format)}, which needs "
                f"3 dims (C, H, W in some order, without the batch dimension), not {len(io.dims)}",
                ("input", i, "format"),
                "model input NHWC/NCHW require 3 dims",
                value=True,
            )


@model_rule(
    "TC309",
    severity=Severity.ERROR,
    summary="is_shape_tensor on a model whose platform is not tensorrt_plan.",
    phase=PHASE,
    when=has_shape_tensor,
)
def shape_tensor_not_tensorrt(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `is_shape_tensor: true` on an input or output of a model that is not a TensorRT
    plan. The platform is the one after auto-complete: `backend: "tensorrt"`
    gets `tensorrt_plan`.

    ## Why it matters
    Triton refuses the model: `shape tensors are only supported for TensorRT platform for
    <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_INT32 dims: [ 2 ] } ]
    ```
    """
    config = ctx.io_config(model)
    if config.platform == TENSORRT_PLAN or not platform_known(model, ctx):
        return
    for kind, i, io in tensors(config):
        if io.is_shape_tensor:
            yield io_finding(
                model,
                ctx,
                f"{kind} '{io.name}' is marked as a shape tensor, which only TensorRT plans "
                f"support (platform is '{config.platform}'); remove `is_shape_tensor`",
                (kind, i, "is_shape_tensor"),
                "shape tensors are only supported for TensorRT platform",
                value=True,
            )


@model_rule(
    "TC310",
    severity=Severity.ERROR,
    summary="is_non_linear_format_io on a model whose platform is not tensorrt_plan.",
    phase=PHASE,
    when=has_non_linear_io,
)
def non_linear_io_not_tensorrt(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `is_non_linear_format_io: true` on an input or output of a model that is not a
    TensorRT plan.

    ## Why it matters
    Triton refuses the model: `Non-linear IO format is only supported for the TensorRT platform
    for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] is_non_linear_format_io: true } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] } ]
    ```
    """
    config = ctx.io_config(model)
    if config.platform == TENSORRT_PLAN or not platform_known(model, ctx):
        return
    for kind, i, io in tensors(config):
        if io.is_non_linear_format_io:
            yield io_finding(
                model,
                ctx,
                f"{kind} '{io.name}' uses a non-linear IO format, which only TensorRT plans "
                f"support (platform is '{config.platform}'); remove `is_non_linear_format_io`",
                (kind, i, "is_non_linear_format_io"),
                "Non-linear IO format is only supported for the TensorRT platform",
                value=True,
            )


@model_rule(
    "TC311",
    severity=Severity.ERROR,
    summary="A TensorRT tensor with is_non_linear_format_io does not have exactly 3 dims.",
    phase=PHASE,
    when=has_non_linear_io,
)
def non_linear_io_needs_3_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input or output of a TensorRT plan with `is_non_linear_format_io: true` whose
    `dims` are not 3 values.

    ## Why it matters
    Triton refuses the model: `Non-linear IO format input requires 3 dims for <model>` (`output`
    for an output).

    ## Example
    ```pbtxt
    platform: "tensorrt_plan"
    input [ { name: "x" data_type: TYPE_FP16 dims: [ 64 ] is_non_linear_format_io: true } ]
    ```

    ## Fix
    ```pbtxt
    platform: "tensorrt_plan"
    input [ { name: "x" data_type: TYPE_FP16 dims: [ 4, 4, 4 ] is_non_linear_format_io: true } ]
    ```
    """
    config = ctx.io_config(model)
    if config.platform != TENSORRT_PLAN:
        return  # TC310 (an unknown platform is never tensorrt_plan)
    for kind, i, io in tensors(config):
        if io.is_non_linear_format_io and len(io.dims) not in (0, 3):  # none at all is TC303
            yield io_finding(
                model,
                ctx,
                f"{kind} '{io.name}' uses a non-linear IO format, which needs 3 dims (without the "
                f"batch dimension), not {len(io.dims)}",
                (kind, i, "dims"),
                f"Non-linear IO format {kind} requires 3 dims",
            )


@model_rule(
    "TC312",
    severity=Severity.WARNING,
    summary="Two inputs (or two outputs) have the same name: Triton loads the model and keeps the "
    "first; required duplicate inputs fail every request.",
    phase=Phase.RUNTIME,
    when=has_duplicate_name,
)
def duplicate_io_name(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input whose name an earlier input already has, and the same for outputs.

    ## Why it matters
    Triton loads the model: core never compares tensor names (`ValidateModelIOConfig` in
    `model_config_utils.cc` runs `ValidateModelInput` / `ValidateModelOutput` on one tensor at a
    time), and `Model::Init` in `model.cc` keeps the first tensor of a name in its input map,
    so the second declaration is shadowed. It is a warning, not an error: lint's errors are what
    Triton refuses to load (a real Triton 2.51 loads such a config).
    The duplicate is not harmless, though: `Model::Init` counts every non-`optional` input as
    required, both copies included, and a request cannot carry one name twice (`input 'x'
    already exists in request`). When the duplicates are required, no request can ever supply
    enough inputs and every one fails (`InferenceRequest::ValidateRequestInputs` in
    `infer_request.cc`): `expected 2 inputs but got 1 inputs for model 'm'`; the message says
    so. A duplicate of an `optional` input, or of an output, only shadows. Two outputs of one
    name that both have labels fail the load: TC332 (`multiple label files for '<name>'`).
    To make lint fail on it, `severity-overrides = { TC312 = "error" }`.

    ## Example
    ```pbtxt
    backend: "python"
    input [
      { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
      { name: "x" data_type: TYPE_FP32 dims: [ 8 ] }
    ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [
      { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
      { name: "y" data_type: TYPE_FP32 dims: [ 8 ] }
    ]
    ```
    """
    config = ctx.io_config(model)
    required = sum(not tensor.optional for tensor in config.input)
    distinct = len({tensor.name for tensor in config.input})
    every_request_fails = required > distinct  # a request names each input at most once
    seen: dict[tuple[str, str], int] = {}
    for kind, i, io in tensors(config):
        if not io.name:
            continue  # TC301
        first = seen.setdefault((kind, io.name), i)
        if first == i:
            continue
        shadowed = (
            f"{kind} '{io.name}' is declared again (first as {kind} #{first}); Triton loads the "
            "model and keeps only the first"
        )
        if kind == "input" and every_request_fails:
            yield Finding(
                f"{shadowed}, but counts {required} required inputs where a request can name "
                f"only {distinct}, so every request fails; rename or remove this one",
                at(model, kind, i, "name", value=True),
                triton_message=_too_few_inputs(config, required, distinct, model.name),
            )
            continue
        effect = "it is optional, so requests still work" if kind == "input" else "an output"
        yield Finding(
            f"{shadowed}, never using this one ({effect}): rename or remove it",
            at(model, kind, i, "name", value=True),
        )


def _too_few_inputs(config: ModelConfig, required: int, distinct: int, name: str) -> str:
    """The start of `InferenceRequest::ValidateRequestInputs`'s message for a request that sends
    every distinct input once."""
    declared = len(config.input)
    if declared == required:
        return f"expected {declared} inputs but got {distinct} inputs for model '{name}'"
    return (
        f"expected number of inputs between {required} and {declared} but got {distinct} "
        f"inputs for model '{name}'"
    )
