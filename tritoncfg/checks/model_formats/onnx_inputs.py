"""TC810-TC812: the ONNX Runtime backend's checks of inputs the batcher treats specially
(onnxruntime_backend `ValidateInputs`, `ValidateBooleanSequenceControl`,
`ValidateTypedSequenceControl`): optional inputs, ragged inputs, and sequence controls.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import model_shape, sequence_controls, shape_string
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.model_formats.onnx_model import PHASE, ort_view
from tritoncfg.checks.model_formats.onnx_shapes import autofilled_note
from tritoncfg.diagnostics import Severity
from tritoncfg.models.dtypes import ONNX_TYPE_NAMES, short_type
from tritoncfg.models.locate import backend_format
from tritoncfg.workspace import LoadedModel


@model_rule(
    "TC810",
    severity=Severity.ERROR,
    summary="An ONNX Runtime model that batches marks an input optional.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_optional_input_with_batching(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `optional: true` on an input of an `onnxruntime` model with `max_batch_size > 0`
    (after auto-complete, which may set it from 0 to 4).

    ## Why it matters
    The ONNX Runtime backend cannot batch requests that leave an input out: `unable to load
    model 'm', optional input 'mask' is not supported for models that support batching`.

    ## Example
    ```text
    m/config.pbtxt   backend: "onnxruntime"  max_batch_size: 8  input [ { name: "mask" optional: true ... } ]
    ```

    ## Fix
    ```text
    m/config.pbtxt   backend: "onnxruntime"  max_batch_size: 0  input [ { name: "mask" optional: true ... } ]
    ```
    """
    config = ctx.config(model)
    if backend_format(config) != "onnxruntime":
        return
    view = ort_view(model, ctx)
    mbs = view.max_batch_size if view is not None else config.max_batch_size
    if mbs == 0 or (view is not None and not view.inputs_written):
        return
    name = ctx.completion(model).name
    for i, tensor in enumerate(config.input):
        if tensor.optional:
            yield Finding(
                f"input '{tensor.name}' is optional but max_batch_size is {mbs}"
                + ("" if view is None else autofilled_note(view))
                + "; the ONNX Runtime backend supports optional inputs only without batching "
                "(max_batch_size: 0)",
                at(model, "input", i, "optional", value=True),
                triton_message=(
                    f"unable to load model '{name}', optional input '{tensor.name}' is not "
                    "supported for models that support batching"
                ),
            )


@model_rule(
    "TC811",
    severity=Severity.ERROR,
    summary="A ragged ONNX Runtime input is optional, or its model shape is not [-1].",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_ragged_input_shape(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input with `allow_ragged_batch: true` that is `optional`, or whose model shape is
    not a single variable dimension.

    ## Why it matters
    The ONNX Runtime backend feeds a ragged input as all the requests' elements concatenated, so
    the model must take a 1-D tensor of any length: `unable to load model 'm', configuration
    expects model provides input with shape [-1]  for ragged input 'x', model provides [-1,16]`.

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" allow_ragged_batch: true dims: [ -1 ] ... } ]
    m/1/model.onnx   input x: float [batch, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "x" allow_ragged_batch: true dims: [ -1 ] ... } ]
    m/1/model.onnx   input x: float [n]
    ```
    """
    view = ort_view(model, ctx)
    if view is None or not view.inputs_written:
        return
    name = ctx.completion(model).name
    head = (
        f"unable to load model '{name}', configuration expects model provides input with shape [-1]"
    )
    inputs = view.by_input
    for i, tensor in enumerate(ctx.config(model).input):
        if not tensor.allow_ragged_batch or tensor.name not in inputs:
            continue
        info = inputs[tensor.name]
        shape = info.wildcard_shape
        if tensor.optional:
            message = (
                f"input '{tensor.name}' is ragged and optional; the ONNX Runtime backend allows "
                "ragged inputs only when they are required"
            )
            triton = (
                f"{head} for ragged input '{tensor.name}', which is not supported for optional "
                "input"
            )
        elif shape is not None and shape != (-1,):
            message = (
                f"input '{tensor.name}' is ragged but the model's shape is {model_shape(info)}; "
                "a ragged input reaches the model as one 1-D tensor of every request's elements, "
                "so the model must take shape [-1]"
            )
            triton = (
                f"{head}  for ragged input '{tensor.name}', model provides {shape_string(shape)}"
            )
        else:
            continue
        yield Finding(
            message, at(model, "input", i, "allow_ragged_batch", value=True), triton_message=triton
        )


@model_rule(
    "TC812",
    severity=Severity.ERROR,
    summary="A sequence control tensor is not a model input of shape [1] and matching type.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_sequence_control_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For each `sequence_batching` control (START, END, READY, CORRID), reports a tensor name that
    is not a model input, a model input whose shape (less the batch dimension) is not `[1]`, or
    whose type is not the control's (`int32_false_true` → int32, `fp32_false_true` → float,
    `bool_false_true` → bool, CORRID's `data_type`).

    ## Why it matters
    The ONNX Runtime backend feeds the controls as inputs and checks them first: `configuration
    specified sequence control 'START', but model does not provide that input`, `... sequence
    control 'START' in model has dims [2] but dims [1] is expected`, or `... the model expects
    data-type BOOL but the model configuration specifies data-type TYPE_INT32`.

    ## Example
    ```text
    m/config.pbtxt   sequence_batching { control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ] }
    m/1/model.onnx   input START: bool [batch, 1]
    ```

    ## Fix
    ```text
    m/config.pbtxt   sequence_batching { control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START bool_false_true: [ false, true ] } ] } ] }
    m/1/model.onnx   input START: bool [batch, 1]
    ```
    """
    view = ort_view(model, ctx)
    if view is None:
        return
    name = ctx.completion(model).name
    inputs = {t.name: t for t in view.io.inputs}  # not the initializers
    for control in sequence_controls(ctx.config(model)):
        span = at(model, *control.path, value=True)
        info = inputs.get(control.name)
        if info is None:
            yield Finding(
                f"{control.kind} feeds '{control.name}', which is not an input of the model "
                f"(its inputs: {', '.join(inputs) or 'none'})",
                span,
                triton_message=(
                    f"configuration specified sequence control '{control.name}', but model does "
                    "not provide that input"
                ),
            )
            continue
        shape = info.wildcard_shape
        if shape is not None:
            debatched = list(shape[1:] if view.batching else shape)
            if debatched != [1]:
                yield Finding(
                    f"the model's control input '{control.name}' has shape {model_shape(info)}; "
                    f"a sequence control must be [1] (after the batch dimension)",
                    span,
                    triton_message=(
                        f"unable to load model '{name}', sequence control '{control.name}' in "
                        f"model has dims {shape_string(debatched)} but dims [1] is expected"
                    ),
                )
        if info.data_type != control.data_type and info.source_type not in ("sequence_type",):
            onnx_name = (
                info.source_type.upper()
                if info.source_type in ONNX_TYPE_NAMES.values()
                else "UNDEFINED"
            )
            yield Finding(
                f"the model's control input '{control.name}' is {short_type(info.data_type)} "
                f"({info.source_type}) but {control.kind} sends {control.data_type}; use the "
                "false/true field of the model's type (int32_false_true, fp32_false_true, "
                "bool_false_true) or CORRID's data_type",
                span,
                triton_message=(
                    f"unable to load model '{name}', sequence control '{control.name}', the model "
                    f"expects data-type {onnx_name} but the model configuration specifies "
                    f"data-type {control.data_type}"
                ),
            )
