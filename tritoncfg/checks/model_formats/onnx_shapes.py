"""TC806-TC809: the ONNX Runtime backend's type and shape checks of each configured tensor
(onnxruntime_backend `ValidateInputs/Outputs`, `CompareDimsSupported`): the
data type, dims against the model's shape, the batch dimension, scalars.

Inputs compare loosely (a variable model dimension accepts any config value) but a config -1
against a fixed model dimension fails; outputs compare exactly. `reshape.shape` stands in for
`dims` where there is one.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import (
    dims_differ,
    dims_explanation,
    dims_message,
    full_dims,
    model_shape,
    shape_string,
    shaped_tensors,
    type_name,
)
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.model_formats.onnx_model import (
    NOT_TENSORS,
    PHASE,
    OrtView,
    batching_fails_at_autofill,
    ort_view,
    written_tensors,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.models.dtypes import server_type, short_type
from tritoncfg.workspace import LoadedModel


def autofilled_note(view: OrtView) -> str:
    return (
        f" (auto-complete set max_batch_size to {view.max_batch_size}: every model tensor has a "
        "variable first dimension)"
        if view.autofilled
        else ""
    )


@model_rule(
    "TC807",
    severity=Severity.ERROR,
    summary="A config input or output shape does not match the ONNX model's shape.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_dims_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Compares each `input` and `output` shape (the batch dimension first when `max_batch_size >
    0`, then `dims`, or `reshape.shape`) with the model's, as the ONNX Runtime backend does:
    ranks must be equal; an input may give any size where the model's is variable, but not -1
    where the model's is fixed; an output must match exactly, -1 where the model is variable.

    ## Why it matters
    The backend refuses the model: `model 'm', tensor 'INPUT0': the model expects 2 dimensions
    (shape [-1,16]) but the model configuration specifies 3 dimensions (an initial batch
    dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete
    shape [-1,16,1])`. A common cause is writing the batch dimension in `dims` as well.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" data_type: TYPE_FP32 dims: [ 8, 16 ] } ]
    m/1/model.onnx   input x: float [batch, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]
    m/1/model.onnx   input x: float [batch, 16]
    ```
    """
    view = ort_view(model, ctx)
    if view is None:
        return
    config = ctx.config(model)
    name = ctx.completion(model).name
    for item in shaped_tensors(written_tensors(view, config), config):
        shape = item.info.wildcard_shape
        if not shape or (view.batching and shape[0] != -1):
            continue  # scalars: TC809; a fixed batch dimension: TC808
        exact = item.kind == "output"
        full = full_dims(item.dims, view.batching)
        where = dims_differ(shape, full, exact=exact, config_wildcards=False)
        if where is None:
            continue
        explained = dims_explanation(item.kind, item.info, item.dims, view.batching, where, exact)
        yield Finding(
            explained + autofilled_note(view),
            at(model, *item.path),
            triton_message=dims_message(name, item.tensor.name, shape, item.dims, view.batching),
        )


@model_rule(
    "TC808",
    severity=Severity.ERROR,
    summary="max_batch_size > 0 but an ONNX model tensor's first dimension is fixed.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_batch_dim_not_dynamic(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    With `max_batch_size > 0`, reports each configured input and output whose model shape has a
    fixed first dimension (e.g. an export traced at batch 1).

    ## Why it matters
    Triton puts the batch in the first dimension, so the model's must be variable; the ONNX
    Runtime backend refuses the model: `model 'm', tensor 'x': for the model to support batching
    the shape should have at least 1 dimension and the first dimension must be -1; but shape
    expected by the model is [1,3,224,224]`.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" dims: [ 3, 224, 224 ] ... } ]  output [ ... ]
    m/1/model.onnx   input x: float [1, 3, 224, 224]
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 0  input [ { name: "x" dims: [ 1, 3, 224, 224 ] ... } ]  output [ ... ]
    m/1/model.onnx   input x: float [1, 3, 224, 224]
    ```
    """
    view = ort_view(model, ctx)
    config = ctx.config(model)
    if view is None or not view.batching or batching_fails_at_autofill(view, config):
        return  # TC802 already says max_batch_size must be 0
    name = ctx.completion(model).name
    for item in shaped_tensors(written_tensors(view, config), config):
        shape = item.info.wildcard_shape
        if not shape or shape[0] == -1:
            continue
        tensor = item.tensor
        yield Finding(
            f"max_batch_size is {view.max_batch_size} but the model's {item.kind} "
            f"'{tensor.name}' has a fixed first dimension {shape[0]} (shape "
            f"{model_shape(item.info)}), where Triton puts the batch; set max_batch_size: 0 "
            "and write the full shape in dims, or export "
            "the model with a dynamic batch axis",
            at(model, *item.path),
            triton_message=(
                f"model '{name}', tensor '{tensor.name}': for the model to support batching the "
                "shape should have at least 1 dimension and the first dimension must be -1; but "
                f"shape expected by the model is {shape_string(shape)}"
            ),
        )


@model_rule(
    "TC809",
    severity=Severity.ERROR,
    summary="An ONNX model tensor is a scalar but the config's dims are not all 1.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_scalar_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input` or `output` whose model tensor is a scalar (rank 0) while the config's
    shape (`reshape.shape` or `dims`) has a dimension other than 1.

    ## Why it matters
    The ONNX Runtime backend accepts only 1s for a scalar: `unable to load model 'm', scalar
    tensor 'x', should only provide 1 in the model configuration when the model doesn't support
    batching. Model configuration provided: [4].` Write `dims: [ 1 ]` (with `reshape: { shape:
    [ ] }` to pass a true scalar).

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "scale" data_type: TYPE_FP32 dims: [ 4 ] } ]
    m/1/model.onnx   input scale: float []
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "scale" data_type: TYPE_FP32 dims: [ 1 ] reshape: { shape: [ ] } } ]
    m/1/model.onnx   input scale: float []
    ```
    """
    view = ort_view(model, ctx)
    if view is None:
        return
    name = ctx.completion(model).name
    config = ctx.config(model)
    for item in shaped_tensors(written_tensors(view, config), config):
        if item.info.shape != () or all(d == 1 for d in item.dims):
            continue
        tensor = item.tensor
        yield Finding(
            f"the model's {item.kind} '{tensor.name}' is a scalar but the config gives it shape "
            f"{shape_string(item.dims)}; write dims: [ 1 ] (and reshape: {{ shape: [ ] }})",
            at(model, *item.path),
            triton_message=(
                f"unable to load model '{name}', scalar tensor '{tensor.name}', should only "
                "provide 1 in the model configuration when the model doesn't support batching. "
                f"Model configuration provided: {shape_string(item.dims)}."
            ),
        )


@model_rule(
    "TC806",
    severity=Severity.ERROR,
    summary="A config input or output data_type differs from the ONNX model's type.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_datatype_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input` or `output` whose `data_type` is not the model tensor's element type
    (float → TYPE_FP32, float16 → TYPE_FP16, int64 → TYPE_INT64, string → TYPE_STRING, ...).

    ## Why it matters
    The ONNX Runtime backend does not convert types; it refuses the model: `unable to load model
    'm', configuration expects datatype TYPE_FP32 for input 'x', model provides TYPE_FP16`. A
    model exported in half precision needs TYPE_FP16 in the config (and FP16 request data).

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]
    m/1/model.onnx   input x: float16 [batch, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "x" data_type: TYPE_FP16 dims: [ 16 ] } ]
    m/1/model.onnx   input x: float16 [batch, 16]
    ```
    """
    view = ort_view(model, ctx)
    if view is None:
        return
    name = ctx.completion(model).name
    for kind, i, tensor, info in written_tensors(view, ctx.config(model)):
        written = type_name(tensor)
        if written is None or written == info.data_type or info.source_type in NOT_TENSORS:
            continue
        fix = (
            f"set data_type: {info.data_type}"
            if info.data_type
            else "Triton has no type for it; export the model with a supported type"
        )
        yield Finding(
            f"the model's {kind} '{tensor.name}' is {short_type(info.data_type)} "
            f"({info.source_type}) but the config says {written}; {fix}",
            at(model, kind, i, "data_type", value=True),
            triton_message=(
                f"unable to load model '{name}', configuration expects datatype {written} for "
                f"{kind} '{tensor.name}', model provides {server_type(info.data_type)}"
            ),
        )
