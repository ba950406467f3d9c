"""TC864-TC866: the TensorRT engine's optimization profiles against the config, and every engine
tensor configured (tensorrt_backend
`ConfigureInputDimensions`, `GetMostOptimizedProfile`, `InitIOBindingBuffers`).

Each instance creates one execution context per profile its group lists (profile 0, "default",
when none); a request's batch must fit one of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import (
    first_instance_name,
    full_dims,
    sequence_controls,
    tensor_dims,
)
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.model_formats.tensorrt_plan import TrtView, profile_index, trt_view
from tritoncfg.diagnostics import Severity
from tritoncfg.models.io import Profile
from tritoncfg.schema import ModelConfig, ModelInput
from tritoncfg.workspace import LoadedModel

PHASE = Phase.INSTANCE
INFER_SHAPES = (
    "failed to specify the dimensions of all input tensors or values of all input shape tensors"
)
Context = tuple[str, int]  # (the profile as written, its index)


def group_contexts(config: ModelConfig, view: TrtView) -> list[tuple[int, list[Context]]]:
    """Per instance group, the execution contexts it creates: its listed profiles that exist
    (deduplicated, in index order), or ("default", 0)."""
    count = len(view.io.profiles)
    found = []
    for g in range(max(1, len(config.instance_group))):
        listed = list(config.instance_group[g].profile) if config.instance_group else []
        contexts: dict[int, str] = {}
        for text in listed:
            index = profile_index(text)
            if index is not None and 0 <= index < count:
                contexts.setdefault(index, text)
        if not listed:
            contexts[0] = "default"
        found.append((g, [(name, index) for index, name in sorted(contexts.items())]))
    return found


def _range(view: TrtView, profile: Profile, limit: int) -> tuple[int, int] | None:
    """The batch sizes one profile takes: every execution input's first dimension must fit."""
    low, high = 1, limit
    for tensor in view.io.inputs:
        if tensor.is_shape_tensor:
            continue
        shapes = profile.shapes.get(tensor.name)
        if shapes is None or not shapes[0]:
            return None
        low, high = max(low, shapes[0][0]), min(high, shapes[2][0])
    return low, high


@model_rule(
    "TC864",
    severity=Severity.ERROR,
    summary="A fixed config input dimension lies outside a selected optimization profile.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_dims_outside_profile(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For each input, checks every fixed dimension of its config shape (the batch dimension
    aside) against the [min, max] range of each optimization profile the instance groups select.

    ## Why it matters
    The TensorRT backend sizes its buffers from the config within each profile and refuses a
    shape no profile of the instance takes: `model configuration specified invalid shape for
    input 'x' for model m. Error details: model expected the shape of dimension 1 to be between
    4 and 32 but received 33`.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" dims: [ 33 ] ... } ]
    m/1/model.plan   x: [-1, -1], profile 0: min [1, 4] max [8, 32]
    ```

    ## Fix
    ```text
    m/config.pbtxt   max_batch_size: 8  input [ { name: "x" dims: [ -1 ] ... } ]
    m/1/model.plan   x: [-1, -1], profile 0: min [1, 4] max [8, 32]
    ```
    """
    view = trt_view(model, ctx)
    if view is None or view.batching is None:
        return
    config = ctx.config(model)
    name = ctx.completion(model).name
    used = sorted({index for _, contexts in group_contexts(config, view) for _, index in contexts})
    for kind, i, tensor, info in view.written(config):
        if kind != "input" or info.is_shape_tensor:
            continue
        if isinstance(tensor, ModelInput) and tensor.allow_ragged_batch:
            continue
        dims, field = tensor_dims(tensor)
        if not dims and not tensor.HasField("reshape"):
            continue
        full = full_dims(dims, view.batching)
        for index in used:
            shapes = view.io.profiles[index].shapes.get(tensor.name)
            if shapes is None or len(shapes[2]) != len(full):
                continue  # a rank mismatch is TC862's
            low, _, high = shapes
            bad = next(
                (d for d, size in enumerate(full) if size != -1 and not low[d] <= size <= high[d]),
                None,
            )
            if bad is None:
                continue
            yield Finding(
                f"input '{tensor.name}': dimension {bad} is {full[bad]} but optimization profile "
                f"{index} takes {low[bad]}-{high[bad]} there; write a size in that range, or -1 "
                "(any size the profile takes)",
                at(model, kind, i, *field),
                triton_message=(
                    f"model configuration specified invalid shape for input '{tensor.name}' for "
                    f"model {name}. Error details: model expected the shape of dimension {bad} to "
                    f"be between {low[bad]} and {high[bad]} but received {full[bad]}"
                ),
            )


def _gaps(ranges: list[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    """The batch sizes in 1..limit that none of the ranges takes, as ranges."""
    gaps, nxt = [], 1
    for low, high in sorted(ranges):
        if low > nxt:
            gaps.append((nxt, min(low - 1, limit)))
        nxt = max(nxt, high + 1)
        if nxt > limit:
            break
    if nxt <= limit:
        gaps.append((nxt, limit))
    return [(a, b) for a, b in gaps if a <= b]


def _show(ranges: list[tuple[int, int]]) -> str:
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def _request_error(
    view: TrtView, contexts: list[Context], batch: int, mbs: int, instance: str
) -> str:
    """What Triton answers a request of `batch` no context of the instance takes."""
    if len(contexts) > 1:
        among = "".join(f" {text}[{index}]" for text, index in contexts)
        return (
            f"failed to find any Optimization Profile among [{among}] to support the requested "
            "dimensions (or shape values), proceeding with first profile."
        )
    profile = view.io.profiles[contexts[0][1]]
    for tensor in view.io.inputs:
        shapes = profile.shapes.get(tensor.name)
        if tensor.is_shape_tensor or shapes is None:
            continue
        low, high = shapes[0][0], min(shapes[2][0], mbs)
        if not low <= batch <= high:
            return (
                f"request specifies invalid shape for input '{tensor.name}' for {instance}. Error "
                f"details: model expected the shape of dimension 0 to be between {low} and {high} "
                f"but received {batch}"
            )
    return "failed to find any Optimization Profile"  # pragma: no cover - a gap has an input


@model_rule(
    "TC865",
    severity=Severity.WARNING,
    summary="Some batch sizes up to max_batch_size fit no selected optimization profile.",
    phase=Phase.RUNTIME,
    gate=gates.tensorrt,
)
def tensorrt_batch_sizes_not_covered(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For each instance group, takes the batch range of each optimization profile it selects
    (where every input's first-dimension [min, max] overlaps) and reports the batch sizes from 1
    to `max_batch_size` that no profile takes.

    ## Why it matters
    The model loads, but the dynamic batcher forms any batch size up to `max_batch_size`
    (preferred sizes are only preferences), and a batch no profile takes fails every request in
    it: `request specifies invalid shape for input 'x' for m_0_0. Error details: model expected
    the shape of dimension 0 to be between 1 and 1 but received 4` (an engine built at batch
    1), or `failed to find any Optimization Profile among [ 0[0] 1[1]] ...`.

    ## Example
    ```text
    m/config.pbtxt   max_batch_size: 16  instance_group [ { kind: KIND_GPU profile: [ "0", "1" ] } ]
    m/1/model.plan   profile 0: batch 1-4, profile 1: batch 8-16
    ```

    ## Fix
    ```text
    m/1/model.plan   profile 0: batch 1-4, profile 1: batch 5-16   (rebuilt)
    ```
    """
    view = trt_view(model, ctx)
    if view is None or not view.batching or view.max_batch_size is None:
        return
    config = ctx.config(model)
    mbs = view.max_batch_size
    limit = mbs if not view.autocomplete or view.engine_max is None else min(mbs, view.engine_max)
    seen: set[tuple[int, ...]] = set()
    for g, contexts in group_contexts(config, view):
        key = tuple(index for _, index in contexts)
        if not contexts or key in seen:
            continue
        seen.add(key)
        ranges = [_range(view, view.io.profiles[index], mbs) for _, index in contexts]
        if any(r is None for r in ranges):
            continue
        known = [r for r in ranges if r is not None]
        gaps = _gaps(known, limit)
        if not gaps:
            continue
        taken = ", ".join(
            f"profile {index} takes {_show([r]) if r[0] <= r[1] else 'none'}"
            for (_, index), r in zip(contexts, known, strict=True)
        )
        listed = bool(config.instance_group) and bool(config.instance_group[g].profile)
        where = (
            f"instance group {g}'s optimization profiles" if listed else "optimization profile 0"
        )
        instance = first_instance_name(config, ctx, g)
        filled = (
            " (auto-complete sets it from the engine's profiles)"
            if config.max_batch_size == 0
            else ""
        )
        yield Finding(
            f"max_batch_size is {mbs}{filled} but batch sizes {_show(gaps)} fit none of {where} "
            f"({taken}); the dynamic batcher forms any batch size up to max_batch_size and a "
            "batch no profile takes fails its requests: build the engine with profiles covering "
            f"1-{mbs}, or lower max_batch_size",
            at(model, "instance_group", g, "profile")
            if listed
            else at(model, "max_batch_size", value=True),
            triton_message=_request_error(view, contexts, gaps[0][0], mbs, instance),
        )


@model_rule(
    "TC866",
    severity=Severity.ERROR,
    summary="An engine input or output is not in the config (TensorRT needs every one).",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_unconfigured_io(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each engine input that no `input`, `batch_input`, sequence control or state feeds,
    and each engine output that no `output`, `batch_output` or sequence state names.

    ## Why it matters
    Unlike ONNX Runtime, the TensorRT backend binds every engine tensor and refuses the model if
    one is missing: `expected configuration for output 'y' for m_0_0` (a missing input with a
    dynamic shape fails earlier: `failed to specify the dimensions of all input tensors or values
    of all input shape tensors`). Auto-complete adds the tensors only when the config lists none
    of that kind.

    ## Example
    ```text
    m/config.pbtxt   output [ { name: "logits" ... } ]
    m/1/model.plan   outputs logits, labels
    ```

    ## Fix
    ```text
    m/config.pbtxt   output [ { name: "logits" ... }, { name: "labels" ... } ]
    m/1/model.plan   outputs logits, labels
    ```
    """
    view = trt_view(model, ctx)
    if view is None:
        return
    config = ctx.config(model)
    instance = first_instance_name(config, ctx)
    states = (
        list(config.sequence_batching.state)
        if config.WhichOneof("scheduling_choice") == "sequence_batching"
        else []
    )
    fed_in = {t.name for t in config.input} | {c.name for c in sequence_controls(config)}
    fed_in |= {n for b in config.batch_input for n in b.target_name}
    fed_in |= {s.input_name for s in states}
    fed_out = {t.name for t in config.output} | {s.output_name for s in states}
    fed_out |= {n for b in config.batch_output for n in b.target_name}
    for kind, engine, fed, written in (
        ("input", view.io.inputs, fed_in, config.input),
        ("output", view.io.outputs, fed_out, config.output),
    ):
        if view.autocomplete and not written:
            continue  # auto-complete adds every one
        for tensor in engine:
            if tensor.name in fed:
                continue
            unshaped = kind == "input" and (
                tensor.is_shape_tensor or tensor.shape is None or None in tensor.shape
            )
            yield Finding(
                f"the engine's {kind} '{tensor.name}' is not in the config; the TensorRT "
                f"backend binds every engine tensor, so add an `{kind}` entry for it",
                at(model, kind),
                # a dynamic input nobody sets fails TensorRT's shape inference first
                triton_message=INFER_SHAPES
                if unshaped
                else f"expected configuration for {kind} '{tensor.name}' for {instance}",
            )
