"""TC853-TC858: what the TensorRT backend's auto-complete rejects (tensorrt_backend
`AutoCompleteConfigHelper`, `GetProfileIndices`, `FixIO`): contradicting batch hints, max_batch_size
above the engine's, profile indices beyond the engine's, and the shape-tensor and IO-format flags
(which the instance checks again in strict mode)."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import first_instance_name, shape_string, tensor_dims
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.model_formats.tensorrt_plan import AUTOFILL, PHASE, profile_index, trt_view
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel


@model_rule(
    "TC853",
    severity=Severity.ERROR,
    summary="Some config dims include the engine's batch dimension and others do not.",
    phase=AUTOFILL,
    gate=gates.tensorrt,
)
def tensorrt_batch_hint_contradiction(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    In the default (auto-complete) mode, compares each tensor's `dims` with the engine's rank:
    one less means "Triton adds the batch dimension", equal means "no batching". Reports the
    first tensor that says otherwise than an earlier one.

    ## Why it matters
    The TensorRT backend reads the config's dims as a hint whether the model batches, and
    refuses mixed hints: `unable to autofill for 'm', model tensor configurations are
    contradicting each other in terms of whether batching is supported`.

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" dims: [ 16 ] } ]  output [ { name: "y" dims: [ 1, 16 ] } ]
    m/1/model.plan   x: [-1, 16], y: [-1, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" dims: [ 16 ] } ]  output [ { name: "y" dims: [ 16 ] } ]
    m/1/model.plan   x: [-1, 16], y: [-1, 16]
    ```
    """
    view = trt_view(model, ctx)
    if view is None or not view.autocomplete or view.hint.contradiction is None:
        return
    kind, i, tensor = view.hint.contradiction
    dims, field = tensor_dims(tensor)
    rank = len(view.by_name[tensor.name].shape or ())
    said = (
        f"the engine tensor's full rank {rank} (no batching)"
        if len(dims) == rank
        else f"{len(dims)} dimensions against the engine tensor's rank {rank}"
    )
    before = view.hint.earlier
    since = (
        f", while {before[0]} '{before[1].name}' leaves the batch dimension out" if before else ""
    )
    yield Finding(
        f"{kind} '{tensor.name}' dims {shape_string(dims)} have {said}{since}; write every "
        "tensor's dims without the batch dimension (max_batch_size > 0) or all with it "
        "(max_batch_size: 0)",
        at(model, kind, i, *field),
        triton_message=(
            f"unable to autofill for '{ctx.completion(model).name}', model tensor configurations "
            "are contradicting each other in terms of whether batching is supported"
        ),
    )


@model_rule(
    "TC854",
    severity=Severity.ERROR,
    summary="The config's dims ask for batching but the engine's profiles allow batch 0.",
    phase=AUTOFILL,
    gate=gates.tensorrt,
)
def tensorrt_engine_cannot_batch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    In the default mode, reports a config whose dims (or a ragged input) hint batching when the
    engine's selected optimization profiles allow no batch at all (a maximum first dimension of
    0).

    ## Why it matters
    The TensorRT backend refuses it at auto-complete: `autofill failed for model 'm': model
    tensor shape configuration hints for dynamic batching but the underlying engine doesn't
    support batching.`

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" dims: [ 16 ] } ]
    m/1/model.plan   x: [-1, 16], profile 0 max [0, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "x" dims: [ 16 ] } ]
    m/1/model.plan   x: [-1, 16], profile 0 max [8, 16]   (rebuilt)
    ```
    """
    view = trt_view(model, ctx)
    if view is None or not view.autocomplete or view.engine_max != 0 or not view.hint.batching:
        return
    yield Finding(
        "the config's dims leave out the batch dimension (batching) but the engine's optimization "
        "profiles allow batch size 0; rebuild the engine with a batch range, or give dims the "
        "engine's full shape",
        at(model, "input"),
        triton_message=(
            f"autofill failed for model '{ctx.completion(model).name}': model tensor shape "
            "configuration hints for dynamic batching but the underlying engine doesn't support "
            "batching."
        ),
    )


@model_rule(
    "TC855",
    severity=Severity.ERROR,
    summary="max_batch_size is above the batch size the TensorRT engine's profiles allow.",
    phase=AUTOFILL,
    gate=gates.tensorrt,
)
def tensorrt_max_batch_exceeds_engine(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    In the default (auto-complete) mode, computes the engine's maximum batch size as Triton
    does: over the optimization profiles the instance groups select (profile 0 when none), the
    largest of each profile's smallest maximum first dimension; 0 when the config's dims have
    the engine's full rank ("no batching"). Reports a `max_batch_size` above it.

    ## Why it matters
    The TensorRT backend refuses the model: `autofill failed for model 'm': configuration
    specified max-batch 16 but TensorRT engine only supports max-batch 8`. The engine's profiles
    were fixed when it was built (`--maxShapes` of trtexec); rebuild it for larger batches.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 16
    m/1/model.plan   input x: [-1, 16], profile 0: min [1, 16] opt [4, 16] max [8, 16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 8
    m/1/model.plan   input x: [-1, 16], profile 0: min [1, 16] opt [4, 16] max [8, 16]
    ```
    """
    view = trt_view(model, ctx)
    mbs = ctx.config(model).max_batch_size
    if view is None or not view.autocomplete or view.engine_max is None:
        return
    if mbs <= view.engine_max:
        return
    if view.engine_max == 0 and view.hint.shaped:
        why = (
            "the config's dims have the engine tensors' full rank, which Triton reads as a model "
            "that does not batch; leave the batch dimension out of dims, or set max_batch_size: 0"
        )
    else:
        why = (
            f"the engine's optimization profiles allow batch sizes up to {view.engine_max}; set "
            f"max_batch_size: {view.engine_max} or rebuild the engine with a larger maximum shape"
        )
    yield Finding(
        f"max_batch_size is {mbs} but {why}",
        at(model, "max_batch_size", value=True),
        triton_message=(
            f"autofill failed for model '{ctx.completion(model).name}': configuration specified "
            f"max-batch {mbs} but TensorRT engine only supports max-batch {view.engine_max}"
        ),
    )


@model_rule(
    "TC856",
    severity=Severity.ERROR,
    summary="An instance_group profile names an optimization profile the engine does not have.",
    phase=AUTOFILL,
    gate=gates.tensorrt,
)
def tensorrt_invalid_profile_index(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `instance_group.profile` entry at or beyond the engine's number of
    optimization profiles.

    ## Why it matters
    Triton refuses the model, at auto-complete (`unable to autofill for 'm', configuration
    specified invalid profile 2 . Number of profiles supported by TensorRT engine: 2`) or, in
    strict mode, when it creates the instance (`Can not set the specified optimization profile
    2[2] for m_0_0. Expected optimization profile index range 0-1`).

    ## Example
    ```text
    m/config.pbtxt   instance_group [ { kind: KIND_GPU profile: [ "2" ] } ]
    m/1/model.plan   2 optimization profiles
    ```

    ## Fix
    ```text
    m/config.pbtxt   instance_group [ { kind: KIND_GPU profile: [ "1" ] } ]
    m/1/model.plan   2 optimization profiles
    ```
    """
    view = trt_view(model, ctx)
    if view is None or not view.io.profiles:
        return
    config = ctx.config(model)
    count = len(view.io.profiles)
    name = ctx.completion(model).name
    for g, group in enumerate(config.instance_group):
        for j, text in enumerate(group.profile):
            index = profile_index(text)
            if index is None or index < count:
                continue
            if view.autocomplete:
                triton = (
                    f"unable to autofill for '{name}', configuration specified invalid profile "
                    f"{text} . Number of profiles supported by TensorRT engine: {count}"
                )
            else:
                triton = (
                    f"Can not set the specified optimization profile {text}[{index}] for "
                    f"{first_instance_name(config, ctx, g)}. Expected optimization profile index "
                    f"range 0-{count - 1}"
                )
            yield Finding(
                f"profile {text!r} names optimization profile {index}, but the engine has "
                f"{count} (0-{count - 1})",
                at(model, "instance_group", g, "profile", j, value=True),
                triton_message=triton,
                phase=AUTOFILL if view.autocomplete else PHASE,
            )


def _flag_findings(model: LoadedModel, ctx: CheckContext, flag: str) -> Iterator[Finding]:
    """The is_shape_tensor / is_non_linear_format_io checks of `FixIO` (auto-complete) and
    `ValidateIOHelper` (instance), which differ in what they let pass."""
    view = trt_view(model, ctx)
    if view is None:
        return
    name = ctx.completion(model).name
    shape = flag == "is_shape_tensor"
    for kind, i, tensor, info in view.written(ctx.config(model)):
        written = bool(getattr(tensor, flag))
        actual = info.is_shape_tensor if shape else info.non_linear_format
        if written == actual or (view.autocomplete and not written):
            continue  # auto-complete sets a missing flag from the engine
        what = "a shape tensor" if shape else f"in IO format {info.io_format}"
        if written:
            actually = "not a shape tensor" if shape else "in the linear IO format"
            message = f"{kind} '{tensor.name}' sets {flag}: true but the engine's is {actually}"
        else:
            message = f"the engine's {kind} '{tensor.name}' is {what}; set {flag}: true"
        if view.autocomplete:
            triton = (
                f"'{tensor.name}' is incorrectly specified as a shape tensor."
                if shape
                else f"'{tensor.name}' uses a linear IO format, but 'is_non_linear_format_io' is "
                "incorrectly set to true in the model configuration."
            )
        elif shape:
            triton = f"{kind} '{tensor.name}' for model '{name}' " + (
                "is incorrectly marked as a shape tensor in the model configuration."
                if written
                else "is a shape tensor but the model configuration doesn't mark it as a shape "
                "tensor."
            )
        else:
            triton = f"{kind} '{tensor.name}' for model '{name}' " + (
                "uses a linear IO format, but 'is_non_linear_format_io' is incorrectly set to "
                "true in the model configuration."
                if written
                else "uses a non-linear IO format, but 'is_non_linear_format_io' is incorrectly "
                "set to false in the model configuration."
            )
        yield Finding(
            message,
            at(model, kind, i, flag, value=True) if written else at(model, kind, i, "name"),
            triton_message=triton,
            phase=AUTOFILL if view.autocomplete else PHASE,
        )


@model_rule(
    "TC857",
    severity=Severity.ERROR,
    summary="is_shape_tensor in the config disagrees with the TensorRT engine.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_shape_tensor_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `is_shape_tensor: true` on a tensor the engine does not use as a shape tensor, and,
    in strict mode (where auto-complete does not set the flag), a shape tensor of the engine
    without it.

    ## Why it matters
    The TensorRT backend refuses the model: `'x' is incorrectly specified as a shape tensor.`
    (auto-complete), or `input 'x' for model 'm' is a shape tensor but the model configuration
    doesn't mark it as a shape tensor.` (strict).

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" is_shape_tensor: true ... } ]
    m/1/model.plan   x: an execution tensor
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "x" ... } ]
    m/1/model.plan   x: an execution tensor
    ```
    """
    yield from _flag_findings(model, ctx, "is_shape_tensor")


@model_rule(
    "TC858",
    severity=Severity.ERROR,
    summary="is_non_linear_format_io in the config disagrees with the engine's IO format.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_non_linear_format_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `is_non_linear_format_io: true` on a tensor the engine keeps in the linear format,
    and, in strict mode, a tensor in a vectorized format (CHW32, HWC8...) without it.

    ## Why it matters
    The TensorRT backend refuses the model: `'x' uses a linear IO format, but
    'is_non_linear_format_io' is incorrectly set to true in the model configuration.`

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "x" is_non_linear_format_io: true ... } ]
    m/1/model.plan   x: LINEAR
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "x" ... } ]
    m/1/model.plan   x: LINEAR
    ```
    """
    yield from _flag_findings(model, ctx, "is_non_linear_format_io")
