"""TC914: KIND_GPU instances whose weights alone do not fit the target GPU (`--gpu-memory`).

A lower bound, from the repository model only: the bytes of the files in the version directory
Triton loads are the weights, and each copy of them lives on the GPU. How many copies a GPU holds
is the backend's doing (spec probe-design §3-§4): ONNX Runtime and PyTorch load the model once per
instance; TensorRT shares one engine between the instances on a GPU only when no I/O dimension is
dynamic. Activations, workspaces and the CUDA context come on top, so a finding is certain to fail
at load time, while silence does not promise that the model fits."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tritoncfg.checks.instance_group import groups_of
from tritoncfg.checks.registry import CheckContext, Finding, at, model_rule
from tritoncfg.complete.instance_groups import KIND_GPU, NormalizedGroup
from tritoncfg.diagnostics import Severity
from tritoncfg.models.locate import backend_format, loaded_version
from tritoncfg.schema import ModelConfig
from tritoncfg.units import format_size
from tritoncfg.workspace import LoadedModel

PHASE = "BEST_PRACTICE"
WEIGHTS_PER_INSTANCE = frozenset({"onnxruntime", "pytorch"})
ANY_GPU = -1  # a group without `gpus` on a host whose GPUs are not known: every GPU it has


@dataclass(frozen=True, slots=True)
class GpuLoad:
    """What one GPU holds of a model: copies of the weights, and the groups that put them there."""

    gpu: int  # ANY_GPU when it is every GPU of an unknown host
    copies: int
    groups: tuple[NormalizedGroup, ...]


def _static_shapes(config: ModelConfig) -> bool:
    """No dynamic dimension in the engine: no batch dimension and no -1 in any I/O."""
    if config.max_batch_size > 0:
        return False  # the batch dimension is dynamic in the engine
    return all(-1 not in io.dims for io in config.input) and all(
        -1 not in io.dims for io in config.output
    )


def weight_bytes(model: LoadedModel, config: ModelConfig) -> int | None:
    """Bytes of the regular files in the version directory Triton loads; None without any."""
    version = loaded_version(model.dir, config)
    if version is None:
        return None
    sizes = [entry.size for entry in version.entries if entry.is_file and entry.size]
    return sum(sizes) if sizes else None


def gpu_loads(groups: list[NormalizedGroup], shared_engine: bool) -> list[GpuLoad]:
    """Copies of the weights per GPU for the KIND_GPU groups (count instances on each GPU)."""
    placed: dict[int, list[NormalizedGroup]] = {}
    everywhere: list[NormalizedGroup] = []
    for group in groups:
        if group.kind != KIND_GPU or not group.count:
            continue
        if group.gpus is None:
            everywhere.append(group)
        for gpu in group.gpus or ():
            placed.setdefault(gpu, []).append(group)
    if everywhere:  # on every GPU of the host, the listed ones included
        placed = {gpu: listed + everywhere for gpu, listed in placed.items()}
        placed.setdefault(ANY_GPU, list(everywhere))
    loads = []
    for gpu, on_gpu in sorted(placed.items()):
        copies = 1 if shared_engine else sum(group.count or 0 for group in on_gpu)
        loads.append(GpuLoad(gpu, copies, tuple(on_gpu)))
    return loads


@model_rule(
    "TC914",
    "gpu-weights-exceed-memory",
    severity=Severity.WARNING,
    summary="The weights of a model's KIND_GPU instances alone do not fit --gpu-memory.",
    phase=PHASE,
)
def gpu_weights_exceed_memory(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    With `--gpu-memory` (or `gpu-memory` in the configuration) set to the memory of one GPU of
    the target host, adds up the copies of the model's weights that its KIND_GPU instance
    groups place on each GPU, and reports a GPU where they alone exceed it. The weights are the
    files of the version directory Triton loads. ONNX Runtime and PyTorch load one copy per
    instance; TensorRT shares one engine between the instances on a GPU only when no input or
    output dimension is dynamic (and `max_batch_size` is 0). Models of other backends, and
    hosts whose GPU memory is not given, are not checked.

    ## Why it matters
    Triton creates every instance when it loads the model; the instance that does not fit fails
    with a CUDA out-of-memory error and the whole model is unloaded. Activations, workspaces and
    the CUDA context need memory on top of the weights, so a model this rule reports can never
    load, on any day.

    ## Example
    ```text
    # tritoncfg lint --gpu-memory 24GiB, with 1/model.onnx of 9 GiB
    backend: "onnxruntime"
    instance_group [ { kind: KIND_GPU count: 3 gpus: [ 0 ] } ]
    ```

    ## Fix
    ```text
    # two instances on each of two GPUs: 18 GiB of weights per GPU
    backend: "onnxruntime"
    instance_group [ { kind: KIND_GPU count: 2 gpus: [ 0, 1 ] } ]
    ```
    """
    memory = ctx.options.gpu_memory
    if memory is None:
        return
    config = ctx.config(model)
    kind = backend_format(config)
    if kind not in WEIGHTS_PER_INSTANCE and kind != "tensorrt":
        return  # the weights are not (only) the files: python code, opaque formats
    weights = weight_bytes(model, config)
    if weights is None:
        return
    shared = kind == "tensorrt" and _static_shapes(config)
    for load in gpu_loads(groups_of(model, ctx), shared):
        needed = load.copies * weights
        if needed <= memory:
            continue
        where = "each GPU it runs on" if load.gpu == ANY_GPU else f"GPU {load.gpu}"
        copies = (
            "one engine shared by its instances"
            if shared
            else f"{load.copies} instance{'s' if load.copies != 1 else ''}, each with its own copy"
        )
        first = load.groups[0]
        span = (
            at(model, "instance_group", first.index, "count", value=True)
            if first.index is not None
            else at(model, "instance_group")
        )
        yield Finding(
            f"the weights alone need {format_size(needed)} on {where} ({copies} of "
            f"{format_size(weights)}), more than --gpu-memory {format_size(memory)}: Triton will "
            "fail to load the model with CUDA out of memory; lower count, or spread the "
            "instances over more GPUs with gpus: [...]",
            span,
        )
