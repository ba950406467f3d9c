"""TC850-TC852, TC859: the TensorRT backend's checks of the config against `model.plan`
(tensorrt_backend `AutoCompleteConfigHelper`, `ModelInstanceState::
ValidateIO`): the plan could be read, the names, the input count. What auto-complete rejects is
in `tensorrt_autofill` (TC853-TC858), the bindings' types and shapes in
`tensorrt_bindings` (TC860-TC863), the optimization profiles in `tensorrt_profiles`
(TC864-TC866).

A plan is read only where `tensorrt` and a GPU are (`tritoncfg.models.tensorrt`); elsewhere
TC850 says so. Auto-complete runs in the default mode when the first instance group is KIND_GPU,
even when the config lists every tensor; it fills missing types and dims, the shape-tensor flags,
and `max_batch_size: 0` from the engine. `TrtView` is the config as the instance then sees it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tritoncfg.checks.common.model_common import (
    Tensor,
    tensor_dims,
    unknown_name_findings,
)
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.io.tensors import tensors
from tritoncfg.complete.instance_groups import KIND_GPU, normalize_instance_groups
from tritoncfg.diagnostics import Severity
from tritoncfg.models.io import ModelIO, TensorInfo, Unknowable
from tritoncfg.models.locate import backend_format
from tritoncfg.models.tensorrt import profile_max_batch
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig, ModelInput
from tritoncfg.workspace import LoadedModel

AUTOFILL = Phase.BACKEND_CREATE
PHASE = Phase.INSTANCE
_STOI = re.compile(r"\s*([+-]?\d+)")


def profile_index(text: str) -> int | None:
    """`std::stoi` as `GetProfileIndex` uses it; None when it throws (core reports it, TC407)."""
    found = _STOI.match(text)
    return int(found.group(1)) if found else None


@record(frozen=True)
class Hint:
    """`ExtractBatchHintFromIOConfig` over the config's tensors, in Triton's order."""

    batching: bool  # some tensor's dims are one less than the engine's rank (or it is ragged)
    shaped: int  # tensors with dims written
    contradiction: tuple[str, int, Tensor] | None  # the tensor whose hint contradicts the others
    earlier: tuple[str, Tensor] | None  # a tensor that hinted batching before it


@record(frozen=True)
class TrtView:
    io: ModelIO
    autocomplete: bool
    hint: Hint
    engine_max: int | None  # GetMaxSupportedBatchSize (0 when the dims hint "no batching")
    max_batch_size: int | None  # after auto-complete; None when the engine's is not known
    invalid_profiles: bool  # some instance_group.profile names no profile of the engine

    @property
    def by_name(self) -> dict[str, TensorInfo]:
        return {t.name: t for t in (*self.io.inputs, *self.io.outputs)}

    @property
    def batching(self) -> bool | None:
        return None if self.max_batch_size is None else self.max_batch_size > 0

    def written(self, config: ModelConfig) -> Iterator[tuple[str, int, Tensor, TensorInfo]]:
        """Config tensors that name an engine tensor of their kind (an empty list that
        auto-complete fills from the engine needs no check)."""
        engine = {
            "input": {t.name: t for t in self.io.inputs},
            "output": {t.name: t for t in self.io.outputs},
        }
        for kind, i, tensor in tensors(config):
            info = engine[kind].get(tensor.name)
            if info is not None:
                yield kind, i, tensor, info


def _hint(io: ModelIO, config: ModelConfig) -> Hint:
    engine = {t.name: t for t in (*io.inputs, *io.outputs)}
    batching, shaped = False, 0
    earlier: tuple[str, Tensor] | None = None
    if not (config.input or config.batch_input or config.output):
        return Hint(False, 0, None, None)
    for kind, i, tensor in tensors(config):
        if isinstance(tensor, ModelInput) and tensor.allow_ragged_batch:
            return Hint(True, shaped, None, earlier)  # ragged: a batching hint; Triton stops
        dims, _ = tensor_dims(tensor)
        if not dims:
            continue
        shaped += 1
        info = engine.get(tensor.name)
        if info is None or info.shape is None:
            continue
        if info.is_shape_tensor:
            first = info.shape[0] if info.shape else None
            should = isinstance(first, int) and first == dims[0] + 1
        else:
            should = len(info.shape) == len(dims) + 1
        if should and not batching:
            batching, earlier = True, (kind, tensor)
        elif batching and not should:
            return Hint(True, shaped, (kind, i, tensor), earlier)
    return Hint(batching, shaped, None, earlier)


def selected_profiles(config: ModelConfig, io: ModelIO) -> tuple[set[int], bool]:
    """`GetProfileIndices`: the profile indices the groups list (or {0}), and whether one is
    beyond the engine's profiles."""
    found: set[int] = set()
    invalid = False
    for group in config.instance_group:
        for text in group.profile:
            index = profile_index(text)
            if index is None or index < 0:
                continue
            if index >= len(io.profiles):
                invalid = True
            else:
                found.add(index)
    return found or {0}, invalid


def trt_view(model: LoadedModel, ctx: CheckContext) -> TrtView | None:
    """None unless the model is a tensorrt one whose plan was read."""
    config = ctx.config(model)
    if backend_format(config) != "tensorrt":
        return None
    io = ctx.model_io(model)
    if not isinstance(io, ModelIO) or io.format != "tensorrt":
        return None
    groups = normalize_instance_groups(config, "tensorrt", ctx.options.gpus)
    first_kind = groups[0].kind if groups else KIND_GPU
    autocomplete = not ctx.strict and first_kind in (KIND_GPU, None)
    hint = _hint(io, config)
    indices, invalid = selected_profiles(config, io)
    engine_max: int | None = None
    if not invalid and io.profiles:
        maxima = [profile_max_batch(io, io.profiles[i]) for i in sorted(indices)]
        if all(m is not None for m in maxima):
            engine_max = max([0, *(m for m in maxima if m is not None)])
    if engine_max is not None and hint.shaped and not hint.batching:
        engine_max = (
            0  # "The specified dimensions in model config ... hints that batching is unavailable"
        )
    mbs: int | None = config.max_batch_size
    if autocomplete and mbs == 0:
        mbs = engine_max
    return TrtView(io, autocomplete, hint, engine_max, mbs, invalid)


@model_rule(
    "TC850",
    severity=Severity.INFO,
    summary="The TensorRT plan could not be read here, so the config was not checked against it.",
    phase=Phase.BACKEND_CREATE,
    gate=gates.tensorrt,
)
def tensorrt_plan_not_inspected(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Notes a `tensorrt` model whose `model.plan` tritoncfg could not read: reading a plan means
    deserializing it, which needs the `tensorrt` package and a GPU (tritoncfg does it in a
    child process), and the TensorRT version that built it.

    ## Why it matters
    The checks of the config against the engine (TC851-TC866: names, types, shapes, profiles,
    max_batch_size) did not run, so Triton may still refuse the model at load time. Run
    `tritoncfg lint` on a machine with the target GPU and TensorRT to check them.

    ## Example
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"
    m/1/model.plan   (linted on a machine without tensorrt or a GPU)
    ```

    ## Fix
    ```text
    (lint on the deployment machine, where tensorrt and the GPU are)
    ```
    """
    if backend_format(ctx.config(model)) != "tensorrt":
        return
    io = ctx.model_io(model)
    if isinstance(io, Unknowable):
        where = io.path.relative_to(model.dir.path) if io.path is not None else "model.plan"
        yield Finding(
            f"{where} was not checked against the config: {io.reason}; lint where tensorrt "
            "and the target GPU are to check names, types, shapes and profiles"
        )


@model_rule(
    "TC851",
    severity=Severity.ERROR,
    summary="A config input is not an input of the TensorRT engine.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_unknown_input(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input` whose name is not an input tensor of the engine.

    ## Why it matters
    The TensorRT backend refuses the model, at auto-complete or when it creates the instance:
    `unexpected inference input 'INPUT_UNKNOWN', allowed inputs are: INPUT0, INPUT1`.

    ## Example
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"  input [ { name: "images" ... } ]
    m/1/model.plan   inputs "input"
    ```

    ## Fix
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"  input [ { name: "input" ... } ]
    m/1/model.plan   inputs "input"
    ```
    """
    view = trt_view(model, ctx)
    if view is not None:
        written = [(i, t.name) for i, t in enumerate(ctx.config(model).input)]
        allowed = {t.name for t in view.io.inputs}
        yield from unknown_name_findings(model, ctx, "input", written, allowed, "the engine")


@model_rule(
    "TC852",
    severity=Severity.ERROR,
    summary="A config output is not an output of the TensorRT engine.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_unknown_output(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `output` whose name is not an output tensor of the engine.

    ## Why it matters
    The TensorRT backend refuses the model: `unexpected inference output 'OUTPUT_UNKNOWN',
    allowed outputs are: OUTPUT0, OUTPUT1`.

    ## Example
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"  output [ { name: "scores" ... } ]
    m/1/model.plan   outputs "output"
    ```

    ## Fix
    ```text
    m/config.pbtxt   platform: "tensorrt_plan"  output [ { name: "output" ... } ]
    m/1/model.plan   outputs "output"
    ```
    """
    view = trt_view(model, ctx)
    if view is not None:
        written = [(i, t.name) for i, t in enumerate(ctx.config(model).output)]
        allowed = {t.name for t in view.io.outputs}
        yield from unknown_name_findings(model, ctx, "output", written, allowed, "the engine")


@model_rule(
    "TC859",
    severity=Severity.ERROR,
    summary="The config lists more inputs than the TensorRT engine has.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_too_many_inputs(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a config with more `input` entries than the engine has input tensors.

    ## Why it matters
    The TensorRT backend refuses the model: `unable to load model 'm', configuration expects 3
    inputs, model provides at most 2`. (Fewer inputs than the engine's fail too: TC866.)

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "a" ... }, { name: "b" ... }, { name: "c" ... } ]
    m/1/model.plan   inputs a, b
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "a" ... }, { name: "b" ... } ]
    m/1/model.plan   inputs a, b
    ```
    """
    view = trt_view(model, ctx)
    config = ctx.config(model)
    if view is None or len(config.input) <= len(view.io.inputs):
        return
    engine = ", ".join(t.name for t in view.io.inputs) or "none"
    yield Finding(
        f"the config lists {len(config.input)} inputs but the engine has "
        f"{len(view.io.inputs)} ({engine})",
        at(model, "input"),
        triton_message=(
            f"unable to load model '{ctx.completion(model).name}', configuration expects "
            f"{len(config.input)} inputs, model provides at most {len(view.io.inputs)}"
        ),
    )
