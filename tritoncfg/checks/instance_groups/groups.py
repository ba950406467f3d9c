"""TC4xx: BACKEND_CREATE. Triton's `ValidateInstanceGroup` on the groups `NormalizeInstanceGroup`
made (model_config_utils.cc, called from `TritonModel::Create` in backend_model.cc); both skip
ensembles.

What a group becomes depends on the target host's GPUs (`--gpus`). When they are unknown, the
findings that depend on them are infos that say what a CPU-only host does."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.complete.autofill import ENSEMBLE
from tritoncfg.complete.instance_groups import (
    KIND_CPU,
    KIND_GPU,
    KIND_MODEL,
    KNOWN_KINDS,
    NormalizedGroup,
    normalize_instance_groups,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel

PHASE = Phase.BACKEND_CREATE
# std::to_string of --min-supported-compute-capability (default 7.5)
MIN_CAPABILITY = "7.500000"
PASS_GPUS = "pass --gpus (e.g. '--gpus 0,1' or '--gpus none') to check for the target host"


def groups_of(model: LoadedModel, ctx: CheckContext) -> list[NormalizedGroup]:
    config = ctx.config(model)
    if config.platform == ENSEMBLE:
        return []  # Triton does not normalize or validate an ensemble's groups
    # every TC4xx rule reads the same groups: normalize them once per model
    return ctx.memo(
        ("instance-groups", id(model)),
        lambda: normalize_instance_groups(config, config.backend, ctx.options.gpus),
    )


def triton_text(model: LoadedModel, ctx: CheckContext, group: NormalizedGroup, text: str) -> str:
    return f"instance group {group.name} of model {ctx.completion(model).name} {text}"


def _gpu_list(gpus: tuple[int, ...] | None) -> str:
    return "<the host's GPU ids>" if gpus is None else ", ".join(str(g) for g in sorted(gpus))


def _invalid_gpu_message(
    model: LoadedModel, ctx: CheckContext, group: NormalizedGroup, gid: int, gpus: str
) -> str:
    return triton_text(
        model,
        ctx,
        group,
        f"specifies invalid or unsupported gpu id {gid}. GPUs with at least the minimum "
        f"required CUDA compute compatibility of {MIN_CAPABILITY} are: {gpus}",
    )


@model_rule(
    "TC401",
    severity=Severity.ERROR,
    summary="An instance group of kind KIND_MODEL lists gpus.",
    phase=PHASE,
)
def model_kind_with_gpus(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `KIND_MODEL` instance group that lists `gpus`.

    ## Why it matters
    With `KIND_MODEL` the backend places the model on devices itself, so Triton refuses GPU ids:
    `instance group m_0 of model m has kind KIND_MODEL but specifies one or more GPUs`.

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_MODEL gpus: [ 0 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_MODEL } ]
    ```
    """
    for group in groups_of(model, ctx):
        if group.kind == KIND_MODEL and group.written_gpus:
            yield Finding(
                f"instance group '{group.name}' has kind KIND_MODEL, which lets the backend choose "
                "the devices, and also lists gpus; remove `gpus` or use KIND_GPU",
                at(model, "instance_group", group.index or 0, "gpus"),
                triton_message=triton_text(
                    model, ctx, group, "has kind KIND_MODEL but specifies one or more GPUs"
                ),
            )


@model_rule(
    "TC402",
    severity=Severity.ERROR,
    summary="A KIND_GPU instance group on a host with no (supported) GPU.",
    phase=PHASE,
)
def gpu_kind_without_gpus(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `KIND_GPU` instance group without `gpus` when the target host has no GPU of
    compute capability 7.5 or higher (`--gpus none`). When the host is unknown (no `--gpus`)
    it is an info saying what a CPU-only host does.

    ## Why it matters
    Triton fills an empty `gpus` with every supported GPU; with none it refuses the model:
    `instance group m_0 of model m has kind KIND_GPU but no GPUs are available`. `KIND_AUTO`
    (the default) falls back to CPU instead.

    ## Example
    ```text
    # tritoncfg lint --gpus none
    instance_group [ { kind: KIND_GPU } ]
    ```

    ## Fix
    ```text
    instance_group [ { kind: KIND_AUTO } ]
    ```
    """
    gpus = ctx.options.gpus
    if gpus:
        return
    for group in groups_of(model, ctx):
        if group.kind != KIND_GPU or group.written_gpus:
            continue
        span = at(model, "instance_group", group.index or 0, "kind", value=True)
        triton = triton_text(model, ctx, group, "has kind KIND_GPU but no GPUs are available")
        if gpus is None:
            yield Finding(
                f"instance group '{group.name}' has kind KIND_GPU: on a host without a GPU of "
                "compute capability 7.5 or higher Triton refuses the model (KIND_AUTO would fall "
                f"back to CPU); {PASS_GPUS}",
                span,
                triton_message=triton,
                severity=Severity.INFO,
            )
        else:
            yield Finding(
                f"instance group '{group.name}' has kind KIND_GPU but the target host has no "
                "supported GPU; use KIND_CPU, or KIND_AUTO to use a GPU where there is one",
                span,
                triton_message=triton,
            )


@model_rule(
    "TC403",
    severity=Severity.ERROR,
    summary="A KIND_GPU instance group lists a GPU id the host does not have.",
    phase=PHASE,
)
def invalid_gpu_id(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each id in a `KIND_GPU` group's `gpus` that is not a supported GPU of the target
    host (`--gpus`). A negative id is an error on every host; other ids, when the host is
    unknown, give one info per group saying what a CPU-only host does.

    ## Why it matters
    Triton refuses the model: `instance group m_0 of model m specifies invalid or unsupported
    gpu id 3. GPUs with at least the minimum required CUDA compute compatibility of 7.500000
    are: 0, 1`.

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_GPU gpus: [ -1 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_GPU } ]
    ```
    """
    gpus = ctx.options.gpus
    for group in groups_of(model, ctx):
        if group.kind != KIND_GPU or not group.written_gpus:
            continue
        index = group.index or 0
        for j, gid in enumerate(group.written_gpus):
            if gpus is not None and gid in gpus:
                continue
            if gpus is None and gid >= 0:
                continue
            available = "none" if gpus == () else _gpu_list(gpus)
            yield Finding(
                f"instance group '{group.name}' lists gpu id {gid}, which "
                + ("no host has" if gid < 0 else f"the target host does not have ({available})")
                + "; list existing GPU ids, or leave `gpus` out to use every GPU",
                at(model, "instance_group", index, "gpus", j, value=True),
                triton_message=_invalid_gpu_message(model, ctx, group, gid, _gpu_list(gpus)),
            )
        if gpus is None and all(gid >= 0 for gid in group.written_gpus):
            ids = ", ".join(str(g) for g in group.written_gpus)
            yield Finding(
                f"instance group '{group.name}' needs GPU(s) {ids} on the host: a host without "
                f"them (or with a compute capability below 7.5) refuses the model; {PASS_GPUS}",
                at(model, "instance_group", index, "gpus"),
                triton_message=_invalid_gpu_message(model, ctx, group, group.written_gpus[0], ""),
                severity=Severity.INFO,
            )


@model_rule(
    "TC404",
    severity=Severity.ERROR,
    summary="A KIND_CPU instance group (or a KIND_AUTO one that becomes CPU) lists gpus.",
    phase=PHASE,
)
def cpu_kind_with_gpus(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a group that ends up `KIND_CPU` and lists `gpus`: written as `KIND_CPU`, or
    `KIND_AUTO` (the default kind) with an id the host does not have, since Triton then turns
    it into `KIND_CPU` but keeps the list. When the host is unknown, a `KIND_AUTO` group with
    `gpus` is an info saying what a CPU-only host does.

    ## Why it matters
    Triton refuses the model: `instance group m_0 of model m has kind KIND_CPU but specifies
    one or more GPUs`. Writing `gpus` without a kind is a common way to hit this on a CPU-only
    machine.

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU gpus: [ 0 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU } ]
    ```
    """
    for group in groups_of(model, ctx):
        if not group.written_gpus or group.kind not in (KIND_CPU, None):
            continue
        span = at(model, "instance_group", group.index or 0, "gpus")
        triton = triton_text(model, ctx, group, "has kind KIND_CPU but specifies one or more GPUs")
        if group.kind is None:
            yield Finding(
                f"instance group '{group.name}' has kind KIND_AUTO and lists gpus: on a host "
                "without those GPUs Triton makes it KIND_CPU, keeps the gpus and refuses the "
                f"model; write KIND_GPU to say what you mean, and {PASS_GPUS}",
                span,
                triton_message=triton,
                severity=Severity.INFO,
            )
        elif group.written_kind == KIND_CPU:
            yield Finding(
                f"instance group '{group.name}' has kind KIND_CPU and lists gpus; remove `gpus`, "
                "or use KIND_GPU to run on those GPUs",
                span,
                triton_message=triton,
            )
        else:
            yield Finding(
                f"instance group '{group.name}' has kind KIND_AUTO and lists gpus the target "
                "host does not have, so Triton makes it KIND_CPU and refuses the model; list "
                "existing GPU ids or remove `gpus`",
                span,
                triton_message=triton,
            )


@model_rule(
    "TC405",
    severity=Severity.ERROR,
    summary="An instance group kind given as a number that is not a defined kind.",
    phase=PHASE,
)
def unknown_instance_kind(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `kind` written as a number that names no kind (`kind: 7`); the text format
    accepts any number for an enum.

    ## Why it matters
    Triton refuses the model, with a message that misleadingly names KIND_AUTO:
    `instance group m_0 of model m has unexpected kind KIND_AUTO`.

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: 7 } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU } ]
    ```
    """
    for group in groups_of(model, ctx):
        if group.written_kind not in KNOWN_KINDS:
            yield Finding(
                f"instance group '{group.name}' has kind {group.written_kind}, which is not a "
                "kind; use KIND_AUTO, KIND_CPU, KIND_GPU or KIND_MODEL",
                at(model, "instance_group", group.index or 0, "kind", value=True),
                triton_message=triton_text(model, ctx, group, "has unexpected kind KIND_AUTO"),
            )
