"""TC860-TC863: the TensorRT backend's binding checks when it creates an instance
(tensorrt_backend `ValidateIOHelper`, `InitializeExecuteInputBinding`,
`InitializeShapeInputBinding`, `InitializeConfigShapeOutputBindings`): data types, and dims
against the engine's (non-exact: -1 on either side matches), shape tensors apart.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import (
    dims_differ,
    dims_explanation,
    dims_message,
    first_instance_name,
    full_dims,
    shape_string,
    shaped_tensors,
    type_name,
)
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.io.tensors import tensors
from tritoncfg.checks.model_formats.tensorrt_plan import PHASE, trt_view
from tritoncfg.diagnostics import Severity
from tritoncfg.models.dtypes import TRT_CONFIG_TYPES, server_type, short_type
from tritoncfg.models.io import TensorInfo
from tritoncfg.models.locate import backend_format
from tritoncfg.workspace import LoadedModel

SHAPE_INPUT_TYPES = ("TYPE_INT32", "TYPE_INT64")


@model_rule(
    "TC860",
    severity=Severity.ERROR,
    summary="A TensorRT model's input or output has a data_type TensorRT cannot bind.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_unsupported_datatype(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `tensorrt` model input or output whose `data_type` is not one of TYPE_FP32,
    TYPE_FP16, TYPE_BF16, TYPE_INT8, TYPE_UINT8, TYPE_INT32, TYPE_INT64, TYPE_BOOL (no strings,
    no FP64, no 16-bit or unsigned 32/64-bit integers).

    ## Why it matters
    The TensorRT backend has no binding for other types and refuses the model: `unsupported
    datatype TYPE_FP64 for input 'x' for model 'm'`.

    ## Example
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"  input [ { name: "x" data_type: TYPE_FP64 dims: [ 16 ] } ]
    ```

    ## Fix
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"  input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]
    ```
    """
    config = ctx.config(model)
    if backend_format(config) != "tensorrt":
        return
    name = ctx.completion(model).name
    for kind, i, tensor in tensors(config):
        written = type_name(tensor)
        if written is None or written in TRT_CONFIG_TYPES:
            continue
        yield Finding(
            f"{kind} '{tensor.name}' is {written}, which TensorRT cannot bind; use one of "
            + ", ".join(sorted(TRT_CONFIG_TYPES)),
            at(model, kind, i, "data_type", value=True),
            triton_message=(
                f"unsupported datatype {written} for {kind} '{tensor.name}' for model '{name}'"
            ),
        )


def _type_problem(kind: str, tensor_name: str, written: str, info: TensorInfo) -> str | None:
    """The `unexpected datatype ...` text (without ` for <instance>`) of a binding, or None."""
    engine = server_type(info.data_type)
    if info.is_shape_tensor and kind == "input":
        if written not in SHAPE_INPUT_TYPES:
            return (
                f"unexpected datatype {server_type(written)} in model configuration for shape "
                f"input '{tensor_name}', expecting TYPE_INT32 or TYPE_INT64"
            )
        if info.data_type != written:
            return (
                f"unexpected datatype {engine} in engine for shape input '{tensor_name}', "
                f"expecting {server_type(written)}"
            )
        return None
    if info.is_shape_tensor and written != "TYPE_INT64":  # the source lacks a closing quote
        return (
            f"unexpected datatype '{written} in model configuration for shape output "
            f"'{tensor_name}', expecting TYPE_INT64"
        )
    if info.data_type != written:
        return (
            f"unexpected datatype {engine} for inference {kind} '{tensor_name}', expecting "
            f"{server_type(written)}"
        )
    return None


@model_rule(
    "TC861",
    severity=Severity.ERROR,
    summary="A config input or output data_type differs from the TensorRT engine's.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_datatype_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input` or `output` whose `data_type` is not the engine tensor's type (FLOAT →
    TYPE_FP32, HALF → TYPE_FP16, ...; FP8, INT4 and FP4 I/O have no Triton type), and shape
    tensors that are not INT32/INT64 (inputs) or INT64 (outputs).

    ## Why it matters
    The TensorRT backend refuses the model when it creates the instance: `unexpected datatype
    TYPE_FP16 for inference input 'x', expecting TYPE_FP32 for m_0_0`. An engine built with
    FP16 I/O needs TYPE_FP16 in the config.

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]
    m/1/model.plan   x: HALF [-1, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "x" data_type: TYPE_FP16 dims: [ 16 ] } ]
    m/1/model.plan   x: HALF [-1, 16]
    ```
    """
    view = trt_view(model, ctx)
    if view is None:
        return
    config = ctx.config(model)
    instance = first_instance_name(config, ctx)
    for kind, i, tensor, info in view.written(config):
        written = type_name(tensor)
        if written is None or written not in TRT_CONFIG_TYPES:
            continue  # unset: auto-complete fills it (or core rejects it); TC860
        problem = _type_problem(kind, tensor.name, written, info)
        if problem is None:
            continue
        yield Finding(
            f"the engine's {kind} '{tensor.name}' is {short_type(info.data_type)} "
            f"(DataType.{info.source_type}) but the config says {written}"
            + (f"; set data_type: {info.data_type}" if info.data_type else ""),
            at(model, kind, i, "data_type", value=True),
            triton_message=f"{problem} for {instance}",
        )


@model_rule(
    "TC862",
    severity=Severity.ERROR,
    summary="A config input or output shape does not match the TensorRT engine's.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_dims_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Compares each execution tensor's shape (the batch dimension first when `max_batch_size > 0`,
    then `dims` or `reshape.shape`) with the engine's: the ranks must be equal, and fixed sizes
    must agree where neither side is -1.

    ## Why it matters
    The TensorRT backend refuses the model: `model 'm', tensor 'x': the model expects 4
    dimensions (shape [-1,3,512,864]) but the model configuration specifies 5 dimensions (an
    initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape,
    making complete shape [-1,-1,3,512,864])`.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" dims: [ -1, 3, 512, 864 ] ... } ]
    m/1/model.plan   x: [-1, 3, 512, 864]
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" dims: [ 3, 512, 864 ] ... } ]
    m/1/model.plan   x: [-1, 3, 512, 864]
    ```
    """
    view = trt_view(model, ctx)
    if view is None or view.batching is None:
        return
    batching = view.batching
    name = ctx.completion(model).name
    for item in shaped_tensors(view.written(ctx.config(model)), ctx.config(model)):
        kind, tensor_name, dims, path, info = (
            item.kind,
            item.tensor.name,
            item.dims,
            item.path,
            item.info,
        )
        engine = info.wildcard_shape or ()
        if info.is_shape_tensor:
            continue  # TC863
        if batching and not engine:
            yield Finding(
                f"max_batch_size > 0 but the engine's {kind} '{tensor_name}' is a scalar, "
                "which has no batch dimension; set max_batch_size: 0",
                at(model, *path),
                triton_message=(
                    f"model '{name}', tensor '{tensor_name}': for the model to support batching "
                    "the shape should have at least 1 dimension; but shape expected by the model "
                    f"is {shape_string(engine)}"
                ),
            )
            continue
        where = dims_differ(engine, full_dims(dims, batching), exact=False, config_wildcards=True)
        if where is None:
            continue
        yield Finding(
            dims_explanation(kind, info, dims, batching, where, False, "engine"),
            at(model, *path),
            triton_message=dims_message(name, tensor_name, engine, dims, batching),
        )


@model_rule(
    "TC863",
    severity=Severity.ERROR,
    summary="A shape tensor's config dims do not match the TensorRT engine's.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_shape_tensor_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For the engine's shape tensors (0-d or 1-D tensors of shape values), checks the config's
    dims as the TensorRT backend does: the same rank, and for a 1-D one the number of values,
    plus one when `max_batch_size > 0` (Triton prepends the batch size), never -1.

    ## Why it matters
    The backend refuses the model: `unable to load model 'm_0_0', binding 'shape' shape expected
    by framework [3] doesn't match model configuration shape [3]` (its message names the
    instance).

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "shape" data_type: TYPE_INT32 dims: [ 3 ] is_shape_tensor: true } ]
    m/1/model.plan   shape: INT32 [3], a shape tensor
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "shape" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]
    m/1/model.plan   shape: INT32 [3], a shape tensor
    ```
    """
    view = trt_view(model, ctx)
    if view is None or view.batching is None:
        return
    offset = 1 if view.batching else 0
    config = ctx.config(model)
    instance = first_instance_name(config, ctx)
    for item in shaped_tensors(view.written(config), config):
        tensor_name, dims, path, info = item.tensor.name, item.dims, item.path, item.info
        engine = info.wildcard_shape or ()
        if not info.is_shape_tensor:
            continue
        if len(engine) > 1:
            yield Finding(
                f"the engine's shape tensor '{tensor_name}' has shape {shape_string(engine)}; "
                "TensorRT shape tensors are 0-d or 1-D",
                at(model, *path),
                triton_message=(
                    f"unable to load model '{instance}', shape binding '{tensor_name}' can only be "
                    f"0-d or 1-D tensor, got {shape_string(engine)}"
                ),
            )
            continue
        if len(dims) == len(engine) and (
            not engine or (dims[0] != -1 and dims[0] + offset == engine[0])
        ):
            continue
        want = f"[{engine[0] - offset}]" if engine else "[] (a scalar)"
        batch = (
            " (one less than its values: Triton adds the batch size)" if offset and engine else ""
        )
        yield Finding(
            f"the engine's shape tensor '{tensor_name}' has shape {shape_string(engine)}, so its "
            f"dims must be {want}{batch}; the config says {shape_string(dims)}",
            at(model, *path),
            triton_message=(
                f"unable to load model '{instance}', binding '{tensor_name}' shape expected by "
                f"framework {shape_string(engine)} doesn't match model configuration shape "
                f"{shape_string(dims)}"
            ),
        )
