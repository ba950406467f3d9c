"""TC870-TC874: the OpenVINO backend's checks of the config against the IR `model.xml`
(openvino_backend `src/openvino.cc`, `ModelState::ValidateInputs` / `ValidateOutputs`, and
`CompareDimsSupported` in `openvino_utils.cc`), read with `tritoncfg.models.openvino`.

The backend validates the config it ends up with: in the default mode after its auto-complete
(`ctx.io_config`), in strict mode the config as written and core-completed.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import (
    Tensor,
    allowed_list,
    did_you_mean,
    shape_string,
    tensor_dims,
)
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.models.io import ModelIO, TensorInfo, Unknowable
from tritoncfg.models.openvino import ELEMENT_TYPES, dim_matches
from tritoncfg.schema import DataType, ModelConfig
from tritoncfg.workspace import LoadedModel

PHASE = Phase.INSTANCE
_SUPPORTED_TYPES = frozenset(ELEMENT_TYPES.values())  # ModelConfigDataTypeToOpenVINOElement


def _ir(model: LoadedModel, ctx: CheckContext) -> tuple[ModelConfig, ModelIO] | None:
    io = ctx.model_io(model)
    if not isinstance(io, ModelIO) or io.format != "openvino":
        return None
    return ctx.io_config(model), io


def _sides(
    config: ModelConfig, io: ModelIO
) -> tuple[tuple[str, list[Tensor], tuple[TensorInfo, ...]], ...]:
    """("input", config inputs, IR inputs) and the same for outputs."""
    return (
        ("input", list(config.input), io.inputs),
        ("output", list(config.output), io.outputs),
    )


@model_rule(
    "TC870",
    severity=Severity.ERROR,
    summary="The config lists another number of inputs than the OpenVINO IR has.",
    phase=PHASE,
    gate=gates.openvino,
)
def openvino_input_count_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Compares the number of inputs of the config with the Parameter layers of `model.xml`.

    ## Why it matters
    The OpenVINO backend refuses the model: `unable to load model '<m>', configuration expects
    1 inputs, model provides 2`. Every input of the IR must be listed, and no other.

    ## Example
    ```text
    m/1/model.xml     Parameter layers 'a' and 'b'
    m/config.pbtxt    backend: "openvino"  input [ { name: "a" ... } ]  output [ ... ]
    ```

    ## Fix
    List every Parameter of the IR as an input, or list none and let the backend complete them.
    """
    found = _ir(model, ctx)
    if found is None:
        return
    config, io = found
    if len(config.input) == len(io.inputs):
        return
    yield Finding(
        f"the config lists {len(config.input)} input(s) but the OpenVINO model has "
        f"{len(io.inputs)}: {allowed_list(t.name for t in io.inputs) or '(none)'}",
        at(model, "input") if config.input else at(model),
        triton_message=(
            f"unable to load model '{config.name}', configuration expects {len(config.input)} "
            f"inputs, model provides {len(io.inputs)}"
        ),
    )


@model_rule(
    "TC871",
    severity=Severity.ERROR,
    summary="A config input or output names no tensor of the OpenVINO IR.",
    phase=PHASE,
    gate=gates.openvino,
)
def openvino_unknown_tensor(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a config input (output) whose name is not the name of an input (output) of
    `model.xml`. A tensor's name is what OpenVINO's `get_any_name()` returns: the smallest of
    the port's `names`.

    ## Why it matters
    The OpenVINO backend refuses the model: `unexpected inference input 'x', allowed inputs
    are: a, b` (or `output`).

    ## Example
    ```text
    m/1/model.xml     Parameter with names="input1,input1:0"
    m/config.pbtxt    input [ { name: "input_1" ... } ]
    ```

    ## Fix
    Use the name the backend reports (here `input1`).
    """
    found = _ir(model, ctx)
    if found is None:
        return
    config, io = found
    if len(config.input) != len(io.inputs):
        return  # TC870: the backend stops at the count
    for direction, written, tensors in _sides(config, io):
        allowed = {t.name for t in tensors}
        for index, tensor in enumerate(written):
            if tensor.name in allowed:
                continue
            listed = allowed_list(allowed)
            yield Finding(
                f"{direction} '{tensor.name}' is not an {direction} of the OpenVINO model"
                f"{did_you_mean(tensor.name, allowed)}; its {direction}s are: {listed or '(none)'}",
                at(model, direction, index, "name", value=True),
                triton_message=(
                    f"unexpected inference {direction} '{tensor.name}', allowed {direction}s "
                    f"are: {listed}"
                ),
            )


@model_rule(
    "TC872",
    severity=Severity.ERROR,
    summary="A data type the OpenVINO backend does not support (STRING, FP64, BF16).",
    phase=PHASE,
    gate=gates.openvino,
)
def openvino_unsupported_data_type(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input or output of an OpenVINO model whose `data_type` is not one of BOOL,
    UINT8-64, INT8-64, FP16 and FP32.

    ## Why it matters
    The backend refuses the model: `unsupported datatype TYPE_STRING for input 'x' for model
    '<m>'`.

    ## Example
    ```text
    m/config.pbtxt    backend: "openvino"  input [ { name: "x" data_type: TYPE_FP64 ... } ]
    ```

    ## Fix
    Convert the IR to a supported precision (FP32, FP16, ...), and use that type.
    """
    found = _ir(model, ctx)
    if found is None:
        return
    config, io = found
    for direction, written, tensors in _sides(config, io):
        names = {t.name for t in tensors}
        for index, tensor in enumerate(written):
            type_name = DataType.Name(tensor.data_type)
            if tensor.name not in names or type_name in _SUPPORTED_TYPES:
                continue
            yield Finding(
                f"{direction} '{tensor.name}' has {type_name}, which the OpenVINO backend "
                "does not support",
                at(model, direction, index, "data_type", value=True),
                triton_message=(
                    f"unsupported datatype {type_name} for {direction} '{tensor.name}' for "
                    f"model '{config.name}'"
                ),
            )


@model_rule(
    "TC873",
    severity=Severity.ERROR,
    summary="A tensor's dims do not match its shape in the OpenVINO IR.",
    phase=PHASE,
    gate=gates.openvino,
)
def openvino_dims_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Compares each config tensor's `dims` (or `reshape.shape`) with the IR's shape as the
    OpenVINO backend's `CompareDimsSupported` does: the rank must be equal (one more for the
    batch dimension when `max_batch_size > 0`); a static model dim must be equal; a dynamic one
    takes any size; a bounded one (`1..8`) only sizes strictly inside it. For inputs, a config
    `-1` and the batch dimension are not compared (the backend reshapes them); for outputs every
    dim is compared, the batch dimension with `max_batch_size`, after the backend set the
    model's batch to it.

    ## Why it matters
    The backend refuses the model: `model '<m>', tensor 'x': the model expects 2 dimensions
    (shape [1,4]) but the model configuration specifies 2 dimensions (shape [1,256])`.

    ## Example
    ```text
    m/1/model.xml     input1: <dim>1</dim><dim>4</dim>
    m/config.pbtxt    input [ { name: "input1" data_type: TYPE_INT32 dims: [ 1, 256 ] } ]
    ```

    ## Fix
    Write the IR's shape (here `dims: [ 1, 4 ]`), or set the parameter `RESHAPE_IO_LAYERS` to
    `yes` to have the backend reshape the inputs.
    """
    found = _ir(model, ctx)
    if found is None:
        return
    config, io = found
    if len(config.input) != len(io.inputs):
        return
    reshape_inputs = config.parameters["RESHAPE_IO_LAYERS"].string_value.lower() in ("yes", "true")
    mbs = config.max_batch_size
    for direction, written, tensors in _sides(config, io):
        by_name = {t.name: t for t in tensors}
        exact = direction == "output"
        if direction == "input" and reshape_inputs:
            continue
        for index, tensor in enumerate(written):
            info = by_name.get(tensor.name)
            if info is None or info.shape is None:
                continue
            dims, path = tensor_dims(tensor)
            error = _compare(config.name, info, dims, mbs, exact=exact)
            if error is not None:
                yield Finding(error, at(model, direction, index, *path), triton_message=error)


def _compare(name: str, info: TensorInfo, dims: list[int], mbs: int, *, exact: bool) -> str | None:
    """`CompareDimsSupported`'s error, or None when the dims are accepted."""
    shape = info.shape or ()
    signed = shape_string(d if isinstance(d, int) else -1 for d in shape)
    head = f"model '{name}', tensor '{info.name}': the model expects {len(shape)} dimensions (shape {signed})"
    if mbs > 0:
        if not shape:
            return (
                f"model '{name}', tensor '{info.name}': for the model to support batching the "
                "shape should have at least 1 dimension"
            )
        full = [mbs, *dims]
        # outputs: the backend's ov::set_batch made dim 0 the max_batch_size before this check
        model_dims = [mbs, *shape[1:]] if exact else list(shape)
        ok = len(shape) == len(full) and all(
            dim_matches(m, c)
            for i, (m, c) in enumerate(zip(model_dims, full, strict=True))
            if exact or (i != 0 and c != -1)
        )
        if ok:
            return None
        return (
            f"{head} but the model configuration specifies {len(full)} dimensions (an initial "
            "batch dimension because max_batch_size > 0 followed by the explicit tensor shape, "
            f"making complete shape {shape_string(full)})"
        )
    ok = len(shape) == len(dims) and all(
        dim_matches(m, c) for m, c in zip(shape, dims, strict=True)
    )
    if ok:
        return None
    return (
        f"{head} but the model configuration specifies {len(dims)} dimensions (shape "
        f"{shape_string(dims)})"
    )


@model_rule(
    "TC874",
    severity=Severity.WARNING,
    summary="The OpenVINO IR .xml cannot be read, so the config was not checked against it.",
    phase=Phase.MODEL_INIT,
    gate=gates.openvino,
)
def openvino_model_unreadable(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `openvino` model whose `model.xml` is not well-formed XML or not an OpenVINO IR
    (no `<net>` with `<layers>`).

    ## Why it matters
    The backend's `read_model` fails on it (`reading model`), and the model does not load. Until
    the file is readable, tritoncfg cannot compare the config with the model (TC870-TC873).

    ## Example
    ```text
    m/config.pbtxt   backend: "openvino"
    m/1/model.xml    an HTML error page saved by a failed download
    ```

    ## Fix
    Convert the model again (`ovc` / `mo`) and copy both `model.xml` and `model.bin`.
    """
    if ctx.config(model).backend != "openvino":
        return
    io = ctx.model_io(model)
    if isinstance(io, Unknowable) and io.cause == "unreadable":
        where = io.path.relative_to(model.dir.path) if io.path is not None else "model.xml"
        yield Finding(f"{where} is not a readable OpenVINO IR ({io.reason})")
