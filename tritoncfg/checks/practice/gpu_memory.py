"""TC914, TC916: KIND_GPU instances whose weights alone do not fit the target GPU (`--gpu-memory`),
for one model and for all the models of a repository together.

A lower bound, from the repository model only: the bytes of the files in the version directory
Triton loads are the weights, and each copy of them lives on the GPU. How many copies a GPU holds is
the backend's doing (onnxruntime_backend, tensorrt_backend): ONNX Runtime and PyTorch load the model
once per instance; TensorRT shares one engine between the instances on a GPU unless the engine has a
dynamic dimension (known only from the plan; one shared engine is counted otherwise). Activations,
workspaces and the CUDA context come on top, so a finding is certain to fail at load time, while
silence does not promise that the model fits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, TypeVar

from tritoncfg.checks.core.context import CheckContext, Finding, at, checkable
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule, repository_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.record import record
from tritoncfg.repository import Repository
from tritoncfg.units import format_size
from tritoncfg.workspace import LoadedModel

if TYPE_CHECKING:
    from tritoncfg.complete.instance_groups import NormalizedGroup
    from tritoncfg.schema import ModelConfig

# The module also declares TC916, a repository rule, which every lint imports to run: what
# only the model rules need (the schema, the completion, model-file readers) is imported by them.

PHASE = Phase.BEST_PRACTICE
WEIGHTS_PER_INSTANCE = frozenset({"onnxruntime", "pytorch"})
_T = TypeVar("_T")
ANY_GPU = -1  # a group without `gpus` on a host whose GPUs are not known: every GPU it has


@record(frozen=True)
class GpuLoad:
    """What one GPU holds of a model: copies of the weights, and the groups that put them there."""

    gpu: int  # ANY_GPU when it is every GPU of an unknown host
    copies: int
    groups: tuple[NormalizedGroup, ...]


def _engine_per_instance(model: LoadedModel, ctx: CheckContext) -> bool:
    """Whether each TensorRT instance deserializes its own engine: only when the engine has a
    dynamic dimension, which only the plan says (read where TensorRT runs). Without it one shared
    engine is counted, the lower bound."""
    from tritoncfg.models import ModelIO

    described = ctx.model_io(model)
    if not isinstance(described, ModelIO):
        return False
    return any(
        tensor.shape is None or -1 in (tensor.wildcard_shape or ())
        for tensor in (*described.inputs, *described.outputs)
    )


def weight_bytes(model: LoadedModel, config: ModelConfig) -> int | None:
    """Bytes of the regular files in the version directory Triton loads; None without any."""
    from tritoncfg.models.locate import loaded_version

    version = loaded_version(model.dir, config)
    if version is None:
        return None
    sizes = [entry.size for entry in version.entries if entry.is_file and entry.size]
    return sum(sizes) if sizes else None


def on_each_gpu(placed: dict[int, list[_T]], everywhere: list[_T]) -> list[tuple[int, list[_T]]]:
    """(GPU, what is on it) by GPU id: what was placed on listed GPUs, plus what goes on every
    GPU of the host (under ANY_GPU too, for the GPUs nothing was listed on)."""
    if everywhere:
        placed = {gpu: listed + everywhere for gpu, listed in placed.items()}
        placed.setdefault(ANY_GPU, list(everywhere))
    return sorted(placed.items(), key=lambda item: item[0])


def gpu_loads(groups: list[NormalizedGroup], shared_engine: bool) -> list[GpuLoad]:
    """Copies of the weights per GPU for the KIND_GPU groups (count instances on each GPU)."""
    from tritoncfg.complete.instance_groups import KIND_GPU

    placed: dict[int, list[NormalizedGroup]] = {}
    everywhere: list[NormalizedGroup] = []
    for group in groups:
        if group.kind != KIND_GPU or not group.count:
            continue
        if group.gpus is None:
            everywhere.append(group)
        for gpu in group.gpus or ():
            placed.setdefault(gpu, []).append(group)
    loads = []
    for gpu, on_gpu in on_each_gpu(placed, everywhere):
        copies = 1 if shared_engine else sum(group.count or 0 for group in on_gpu)
        loads.append(GpuLoad(gpu, copies, tuple(on_gpu)))
    return loads


@model_rule(
    "TC914",
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
    instance; TensorRT shares one engine between the instances on a GPU unless the engine has a
    dynamic dimension, which only the plan tells (where TensorRT runs; otherwise one engine is
    counted). Models of other backends, and hosts whose GPU memory is not given, are not
    checked. Every uncertainty is resolved toward fewer bytes, so a finding is certain.

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
    placed = None if memory is None else model_gpu_loads(model, ctx)
    if memory is None or placed is None:
        return
    weights, shared, loads = placed
    for load in loads:
        needed = load.copies * weights
        if needed <= memory:
            continue
        size = format_size(weights)
        copies = (
            f"one engine of {size}, shared by its instances"
            if shared
            else f"{load.copies} instance{'s' if load.copies != 1 else ''}, each with its own "
            f"copy of {size}"
        )
        first = load.groups[0]
        span = (
            at(model, "instance_group", first.index, "count", value=True)
            if first.index is not None
            else at(model, "instance_group")
        )
        yield Finding(
            f"the weights alone need {format_size(needed)} on {_where(load.gpu)} ({copies}), "
            f"more than --gpu-memory {format_size(memory)}: Triton will fail to load the model "
            "with CUDA out of memory; lower count, or spread the instances over more GPUs "
            "with gpus: [...]",
            span,
        )


def _where(gpu: int) -> str:
    return "each GPU it runs on" if gpu == ANY_GPU else f"GPU {gpu}"


def model_gpu_loads(
    model: LoadedModel, ctx: CheckContext
) -> tuple[int, bool, list[GpuLoad]] | None:
    """(weight bytes, whether the instances of a GPU share them, the load per GPU) of a model
    whose weights are its files; None for other backends or without model files."""
    from tritoncfg.checks.instance_groups.groups import groups_of
    from tritoncfg.models.locate import backend_format

    config = ctx.config(model)
    kind = backend_format(config)
    if kind not in WEIGHTS_PER_INSTANCE and kind != "tensorrt":
        return None  # the weights are not (only) the files: python code, opaque formats
    weights = weight_bytes(model, config)
    if weights is None:
        return None
    shared = kind == "tensorrt" and not _engine_per_instance(model, ctx)
    return weights, shared, gpu_loads(groups_of(model, ctx), shared)


@repository_rule(
    "TC916",
    severity=Severity.WARNING,
    summary="The weights that the models of a repository put on one GPU exceed --gpu-memory.",
    phase=PHASE,
)
def gpu_memory_oversubscribed(repository: Repository, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    With `--gpu-memory` set, adds up, per GPU, the weights that every model of the repository
    puts there (as TC914 counts them for one model) and reports a GPU where several models
    together exceed it, naming the largest shares. It runs when a whole repository is linted.

    ## Why it matters
    Triton loads every model of the repository when it starts (`--model-control-mode none`, the
    default, or `poll`). Each model may fit alone, while the last ones to load fail with CUDA
    out of memory, and with `--exit-on-error` (the default) the server does not start.

    ## Example
    ```text
    # tritoncfg lint models/ --gpu-memory 24GiB
    models/detector/    1/model.plan of 14 GiB, instance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]
    models/classifier/  1/model.onnx of 12 GiB, instance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]
    ```

    ## Fix
    ```text
    models/classifier/  instance_group [ { kind: KIND_GPU gpus: [ 1 ] } ]
    ```
    Or load models on demand with `--model-control-mode explicit`.
    """
    memory = ctx.options.gpu_memory
    if memory is None or repository.kind != "repository":
        return  # one model or file: the others are not being linted
    shares: dict[int, list[tuple[int, str]]] = {}
    everywhere: list[tuple[int, str]] = []
    for model in ctx.workspace.models:
        if model.repository is not repository or not checkable(model, ctx.options):
            continue
        placed = model_gpu_loads(model, ctx)
        if placed is None:
            continue
        weights, _, loads = placed
        for load in loads:
            share = (load.copies * weights, model.name)
            if load.gpu == ANY_GPU:
                everywhere.append(share)
            else:
                shares.setdefault(load.gpu, []).append(share)
    for gpu, on_gpu in on_each_gpu(shares, everywhere):
        total = sum(size for size, _ in on_gpu)
        if len(on_gpu) < 2 or total <= memory:
            continue  # a single model is TC914's
        ranked = sorted(on_gpu, reverse=True)
        named = ", ".join(f"{name} {format_size(size)}" for size, name in ranked[:5])
        more = f" and {len(ranked) - 5} more" if len(ranked) > 5 else ""
        yield Finding(
            f"{len(on_gpu)} models put {format_size(total)} of weights on {_where(gpu)} "
            f"({named}{more}), more than --gpu-memory {format_size(memory)}: the last ones "
            "Triton loads fail with CUDA out of memory; move models to other GPUs "
            "(instance_group gpus), lower their counts, or load models on demand "
            "(--model-control-mode explicit)",
            path=str(repository.root),
        )
