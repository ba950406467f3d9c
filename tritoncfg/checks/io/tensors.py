"""TC301-TC303, TC305: inputs and outputs as Triton's `ValidateIOShape` checks each one
(model_config_utils.cc: `ValidateModelInput`, `ValidateModelOutput`): name, data type, dims. The
reshape rules are in `features`.

The family's base is here too. Triton validates I/O at load in strict mode (VALIDATE_IO) and, in the
default auto-complete mode, at MODEL_INIT after the backend completed the config; every message ends
in ` for <model>`. Every problem of a tensor is reported, in Triton's order; a check whose inputs
are already wrong is skipped."""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum, auto

from tritoncfg.checks.common.tensor_size import INT64_MAX, OVERFLOW, element_count
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.models.io import ModelIO
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig, ModelInput, ModelOutput
from tritoncfg.text import FieldPath
from tritoncfg.workspace import LoadedModel

PHASE = Phase.VALIDATE_IO
WILDCARD = -1
# Backends that add inputs, outputs, dims and data types from the model file in auto-complete mode.
AUTO_COMPLETING_BACKENDS = frozenset({"onnxruntime", "tensorrt", "tensorflow", "openvino", "dali"})

Tensor = ModelInput | ModelOutput


def io_phase(ctx: CheckContext) -> Phase:
    """Strict mode checks I/O at load; otherwise Model::Init does, after backend auto-complete."""
    return PHASE if ctx.strict else Phase.MODEL_INIT


def backend_completes_io(model: LoadedModel, ctx: CheckContext) -> str | None:
    """In default mode, the backend that may still add tensors and fill dims and data types
    before Triton checks them ("the onnxruntime backend"), or None when none will.

    A backend tritoncfg cannot determine (Triton fails at AUTOFILL, reported elsewhere; often a
    model file that is absent here) may be one that does."""
    if ctx.strict:
        return None
    completion = ctx.completion(model)
    if completion.autofill_error is not None:
        return "the backend"
    backend = completion.config.backend
    if backend not in AUTO_COMPLETING_BACKENDS:
        return None
    if isinstance(ctx.model_io(model), ModelIO):
        return None  # the model file was read: ctx.io_config already holds what the backend fills
    return f"the {backend} backend"


def platform_known(model: LoadedModel, ctx: CheckContext) -> bool:
    """Whether the platform after AUTOFILL is known (the checks against tensorrt_plan need it)."""
    return ctx.completion(model).autofill_error is None


def io_finding(
    model: LoadedModel,
    ctx: CheckContext,
    message: str,
    path: FieldPath,
    triton: str | None,
    *,
    value: bool = False,
    severity: Severity | None = None,
) -> Finding:
    """A finding at `path`; Triton's text gets ValidateModelIOConfig's ` for <model>` suffix."""
    return Finding(
        message,
        at(model, *path, value=value),
        triton_message=None if triton is None else f"{triton} for {ctx.completion(model).name}",
        severity=severity,
        phase=io_phase(ctx),
    )


def tensors(config: ModelConfig) -> Iterator[tuple[str, int, Tensor]]:
    """Inputs then outputs, in config order, as ("input" | "output", index, tensor)."""
    for i, tensor in enumerate(config.input):
        yield "input", i, tensor
    for j, out in enumerate(config.output):
        yield "output", j, out


class ShapeProblem(Enum):
    """What `ValidateIOShape` finds wrong with a tensor; each kind is one rule's."""

    NO_NAME = auto()
    NO_DATA_TYPE = auto()
    NO_DIMS = auto()
    EMPTY_RESHAPE_NON_BATCHING = auto()
    BAD_DIM = auto()
    ELEMENT_COUNT_OVERFLOW = auto()
    RESHAPE_MISMATCH = auto()


@record(frozen=True)
class _Problem:
    kind: ShapeProblem
    path: FieldPath
    triton: str  # Triton's text without the ` for <model>` suffix
    message: str
    value: bool = False  # point at the value rather than the field name


def _wrap64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def _chunks(dims: list[int]) -> list[int]:
    """Products of the fixed dims between wildcards (C++ int64 arithmetic, which wraps)."""
    found = [1]
    for dim in dims:
        if dim == WILDCARD:
            found.append(1)
        else:
            found[-1] = _wrap64(found[-1] * dim)
    return found


def _bad(dim: int) -> bool:
    return dim < 1 and dim != WILDCARD


def _shape_problems(kind: str, i: int, io: Tensor, max_batch_size: int) -> Iterator[_Problem]:
    """`ValidateIOShape` for one tensor, in Triton's order, without stopping at the first."""
    prefix = f"model {kind} '{io.name}' "
    where = f"{kind} '{io.name}'"
    dims, has_reshape = list(io.dims), io.HasField("reshape")
    shape = list(io.reshape.shape)
    if not io.name:
        yield _Problem(
            ShapeProblem.NO_NAME,
            (kind, i),
            f"model {kind} must specify 'name'",
            f"{kind} #{i} has no name; give it the tensor name the model uses",
        )
    if io.data_type == 0:
        yield _Problem(
            ShapeProblem.NO_DATA_TYPE,
            (kind, i, "data_type"),
            prefix + "must specify 'data_type'",
            f"{where} has no data_type; set it, e.g. `data_type: TYPE_FP32`",
            value=True,
        )
    if not dims:
        yield _Problem(
            ShapeProblem.NO_DIMS,
            (kind, i),
            prefix + "must specify 'dims'",
            f"{where} has no dims; set them without the batch dimension, e.g. "
            "`dims: [ 3, 224, 224 ]` (`dims: [ 1 ]` for one value per batch item)",
        )
    if has_reshape and not shape and max_batch_size == 0:
        yield _Problem(
            ShapeProblem.EMPTY_RESHAPE_NON_BATCHING,
            (kind, i, "reshape"),
            prefix + "cannot have empty reshape for non-batching model as scalar tensors are not "
            "supported",
            f"{where} has an empty reshape, which makes it a scalar, and max_batch_size is 0; "
            "Triton does not support scalar tensors: remove the reshape or give it a shape",
        )
    for j, dim in enumerate(dims):
        if _bad(dim):
            yield _Problem(
                ShapeProblem.BAD_DIM,
                (kind, i, "dims", j),
                prefix
                + "dimension must be integer >= 1, or -1 to indicate a variable-size dimension",
                f"dimension {dim} of {where} is not allowed; use a size >= 1, or -1 for a "
                "variable size",
                value=True,
            )
    for j, dim in enumerate(shape if has_reshape else []):
        if _bad(dim):
            yield _Problem(
                ShapeProblem.BAD_DIM,
                (kind, i, "reshape", "shape", j),
                prefix
                + "reshape dimensions must be integer >= 1, or -1 to indicate a variable-size "
                "dimension",
                f"reshape dimension {dim} of {where} is not allowed; use a size >= 1, or -1 for a "
                "variable size",
                value=True,
            )
    if has_reshape:
        yield from _reshape_problems(kind, i, io, dims, shape)


def _reshape_problems(
    kind: str, i: int, io: Tensor, dims: list[int], shape: list[int]
) -> Iterator[_Problem]:
    """Element counts, then dims vs reshape sizes (`ValidateIOShape`)."""
    prefix, where = f"model {kind} '{io.name}' ", f"{kind} '{io.name}'"
    counts: list[int | None] = []  # None: invalid values, reported above, or an overflow
    for part, values in (("dims", dims), ("reshape", shape)):
        count = element_count(values) if not any(map(_bad, values)) else None
        if count == OVERFLOW:
            yield _Problem(
                ShapeProblem.ELEMENT_COUNT_OVERFLOW,
                (kind, i, part),
                f"element count for tensor '{io.name} {part}' exceeds maximum size of {INT64_MAX}",
                f"the {part} of {where} hold more elements than an int64 can count; "
                "check the sizes",
            )
        counts.append(None if count == OVERFLOW else count)
    dims_size, reshape_size = counts
    if not dims or dims_size is None or reshape_size is None:
        return  # nothing meaningful to compare
    sizes = f"dims {list(dims)} and reshape {list(shape)} of {where}"
    if dims_size != reshape_size and (reshape_size != 0 or dims_size != 1):
        yield _Problem(
            ShapeProblem.RESHAPE_MISMATCH,
            (kind, i, "reshape"),
            prefix + "has different size for dims and reshape",
            f"{sizes} do not hold the same number of elements"
            + ("; a -1 must appear on both sides" if WILDCARD in (dims_size, reshape_size) else ""),
        )
    elif dims_size == WILDCARD:
        dim_chunks, shape_chunks = _chunks(dims), _chunks(shape)
        if len(dim_chunks) != len(shape_chunks):
            yield _Problem(
                ShapeProblem.RESHAPE_MISMATCH,
                (kind, i, "reshape"),
                prefix + "has different number of variable-size dimensions for dims and reshape",
                f"{sizes} have a different number of -1 dimensions; use the same number on both",
            )
        elif dim_chunks != shape_chunks:
            yield _Problem(
                ShapeProblem.RESHAPE_MISMATCH,
                (kind, i, "reshape"),
                prefix + "has different size for dims and reshape",
                f"{sizes} differ between their -1 dimensions: the fixed sizes between each pair "
                "of -1 must multiply to the same count",
            )


_FILLABLE = {
    ShapeProblem.NO_DATA_TYPE: "data_type",
    ShapeProblem.NO_DIMS: "dims",
}  # what auto-completing backends fill in


def _all_shape_problems(
    model: LoadedModel, ctx: CheckContext
) -> list[tuple[str, Tensor, _Problem]]:
    config = ctx.io_config(model)
    return [
        (kind, io, problem)
        for kind, i, io in tensors(config)
        if not _plainly_valid(io)
        for problem in _shape_problems(kind, i, io, config.max_batch_size)
    ]


def _plainly_valid(io: Tensor) -> bool:
    """A named, typed tensor with valid dims and no reshape: what most tensors are, and where
    `_shape_problems` finds nothing (checked without building its messages)."""
    if not io.name or not io.data_type or io.HasField("reshape"):
        return False
    dims = io.dims
    if not dims:
        return False
    low = min(dims)  # at C speed: every dim >= 1, or the lowest is -1 and none is 0
    return low > 0 or (low == WILDCARD and 0 not in dims)


@record(frozen=True)
class IOFacts:
    """What one pass over the inputs and outputs Triton validates (`CheckContext.io_config`)
    finds that the family's rules look for: a rule whose fact is False finds nothing, and the
    engine does not call it (`when=`). Most models have none of them."""

    shape_problems: bool  # a tensor that is not `_plainly_valid` (TC301-TC307)
    layout_format: bool  # an input of format FORMAT_NHWC or FORMAT_NCHW (TC308)
    shape_tensor: bool  # a tensor with `is_shape_tensor` (TC309)
    non_linear: bool  # a tensor with `is_non_linear_format_io` (TC310, TC311)
    duplicate_name: bool  # two inputs, or two outputs, of one name (TC312)


_LAYOUT_FORMATS = frozenset({ModelInput.FORMAT_NHWC, ModelInput.FORMAT_NCHW})


def io_facts(model: LoadedModel, ctx: CheckContext) -> IOFacts:
    return ctx.memo(("io-facts", id(model)), lambda: _io_facts(ctx.io_config(model)))


def _io_facts(config: ModelConfig) -> IOFacts:
    problems = shape = non_linear = duplicate = False
    for group in (config.input, config.output):
        names = set()
        for io in group:
            if not problems and not _plainly_valid(io):
                problems = True
            if io.is_shape_tensor:
                shape = True
            if io.is_non_linear_format_io:
                non_linear = True
            names.add(io.name)
        if len(names) < len(group):
            duplicate = True
    layout = any([io.format in _LAYOUT_FORMATS for io in config.input])
    return IOFacts(problems, layout, shape, non_linear, duplicate)


def has_shape_problems(model: LoadedModel, ctx: CheckContext) -> bool:
    return io_facts(model, ctx).shape_problems


def has_layout_format(model: LoadedModel, ctx: CheckContext) -> bool:
    return io_facts(model, ctx).layout_format


def has_shape_tensor(model: LoadedModel, ctx: CheckContext) -> bool:
    return io_facts(model, ctx).shape_tensor


def has_non_linear_io(model: LoadedModel, ctx: CheckContext) -> bool:
    return io_facts(model, ctx).non_linear


def has_duplicate_name(model: LoadedModel, ctx: CheckContext) -> bool:
    return io_facts(model, ctx).duplicate_name


def shape_findings(
    model: LoadedModel, ctx: CheckContext, wanted: ShapeProblem
) -> Iterator[Finding]:
    # every TC30x rule reads the same list: compute it once per model
    problems = ctx.memo(("io-shape-problems", id(model)), lambda: _all_shape_problems(model, ctx))
    for kind, io, problem in problems:
        if problem.kind is not wanted:
            continue
        filler = backend_completes_io(model, ctx) if wanted in _FILLABLE else None
        if filler is not None:
            yield io_finding(
                model,
                ctx,
                f"{kind} '{io.name}' has no {_FILLABLE[wanted]}: {filler} must fill it in from "
                "the model file when it auto-completes the config; write it to be sure "
                "(strict mode fails without it)",
                problem.path,
                None,
                value=problem.value,
                severity=Severity.WARNING,
            )
        else:
            yield io_finding(
                model, ctx, problem.message, problem.path, problem.triton, value=problem.value
            )


@model_rule(
    "TC301",
    severity=Severity.ERROR,
    summary="An input or output has no name.",
    phase=PHASE,
    when=has_shape_problems,
)
def io_missing_name(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input` or `output` entry without a `name`.

    ## Why it matters
    Triton refuses the model: `model input must specify 'name' for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    input [ { data_type: TYPE_FP32 dims: [ 4 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.NO_NAME)


@model_rule(
    "TC302",
    severity=Severity.ERROR,
    summary="An input or output has no data_type.",
    phase=PHASE,
    when=has_shape_problems,
)
def io_missing_data_type(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input or output whose `data_type` is unset or `TYPE_INVALID`.
    In the default auto-complete mode, the ONNX Runtime, TensorRT, TensorFlow, OpenVINO and DALI
    backends fill a missing type from the model file, so there it is a warning (also when the
    backend cannot be determined). Python's `auto_complete_config` is not seen: an error.

    ## Why it matters
    Triton refuses the model: `model input 'x' must specify 'data_type' for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    input [ { name: "x" dims: [ 4 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.NO_DATA_TYPE)


@model_rule(
    "TC303",
    severity=Severity.ERROR,
    summary="An input or output has no dims (scalar shapes [] are not supported).",
    phase=PHASE,
    when=has_shape_problems,
)
def io_missing_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an input or output with no `dims`, ensembles included. In the
    default auto-complete mode, the ONNX Runtime, TensorRT, TensorFlow, OpenVINO and DALI
    backends fill missing dims from the model file, so there it is a warning (also when the
    backend cannot be determined). Python's `auto_complete_config` is not seen: an error.

    ## Why it matters
    Triton refuses the model: `model input 'x' must specify 'dims' for <model>`. A shape `[]`
    is not allowed; a batching model's per-item scalar is `dims: [ 1 ]`.

    ## Example
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP32 } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.NO_DIMS)


@model_rule(
    "TC305",
    severity=Severity.ERROR,
    summary="A dims or reshape value that is 0 or below -1.",
    phase=PHASE,
    when=has_shape_problems,
)
def io_invalid_dimension(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports every `dims` or `reshape.shape` value of an input or output that is neither >= 1
    nor -1.

    ## Why it matters
    Triton refuses the model: `model input 'x' dimension must be integer >= 1, or -1 to indicate
    a variable-size dimension for <model>` (`reshape dimensions must be ...` for a reshape).
    The batch dimension is never written in `dims`; -1 marks a variable size.

    ## Example
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 0, 28 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 28 ] } ]
    ```
    """
    return shape_findings(model, ctx, ShapeProblem.BAD_DIM)
