"""`gen instance-group`: `instance_group` entries Triton accepts.

What Triton does with them (`model_config_utils.cc`, `NormalizeInstanceGroup` and
`ValidateInstanceGroup`; `backend_model.cc`, `PrepareInstances`): a KIND_GPU group without `gpus`
is placed on *every* supported GPU of the host, `count` instances on each; `gpus` is forbidden for
KIND_CPU and KIND_MODEL; KIND_AUTO becomes KIND_CPU when a listed GPU is missing (and then fails),
so `gpus` is never written under KIND_AUTO; `profile` is for TensorRT plans only, as strings of
non-negative integers; `count: 0` means "the default", never "none".
"""

from __future__ import annotations

from tritoncfg.gen.change import Change, GenError, GenUsageError
from tritoncfg.gen.field_update import set_fields
from tritoncfg.gen.target import Target
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig, ModelInstanceGroup

KINDS = {"gpu": "KIND_GPU", "cpu": "KIND_CPU", "model": "KIND_MODEL", "auto": "KIND_AUTO"}


@record(frozen=True)
class GroupRequest:
    """What to set; None (an option not given) keeps the value of the groups already there. An
    empty tuple clears the field (`--gpus ''`: every GPU of the host)."""

    kind: str | None = None  # gpu | cpu | model | auto
    count: int | None = None
    gpus: tuple[int, ...] | None = None
    per_gpu: bool = False  # one group per listed GPU instead of one group spanning them
    profiles: tuple[str, ...] | None = None
    secondary_devices: tuple[int, ...] | None = None  # NVDLA core ids
    resources: tuple[tuple[str, int, bool], ...] | None = None  # name, count, global
    priority: int | None = None


def refused_findings() -> dict[str, str]:
    """The findings that refuse a result whatever their severity, with the reason: TC914, as
    `--gpu-memory` (or the settings' gpu-memory) asks that the weights fit."""
    from tritoncfg.checks.practice.gpu_memory import gpu_weights_exceed_memory

    return {
        gpu_weights_exceed_memory.code: "the gpu-memory given (--gpu-memory or the settings') "
        "must hold the weights of the instances"
    }


def parse_resource(text: str) -> tuple[str, int, bool]:
    """`NAME:COUNT` or `NAME:COUNT:global` (a rate-limiter resource)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0] or not parts[1].isdigit():
        raise GenUsageError(f"--resource expects NAME:COUNT or NAME:COUNT:global, got {text!r}")
    if len(parts) == 3 and parts[2] != "global":
        raise GenUsageError(f"--resource: the third part can only be 'global', got {parts[2]!r}")
    return parts[0], int(parts[1]), len(parts) == 3


def build(
    request: GroupRequest, config: ModelConfig, model: str, notes: list[str] | None = None
) -> list[ModelInstanceGroup]:
    """The config's groups (one KIND_GPU group of count 1 when it has none) with the request
    applied, or GenError with what Triton would refuse."""
    _check(request, config, model)
    base = list(config.instance_group) or [ModelInstanceGroup(kind=KINDS["gpu"], count=1)]
    groups = [_merged(group, request, notes if notes is not None else []) for group in base]
    if request.gpus is None:
        return groups
    placed = []
    for group in _without_gpus(groups):
        for gpus in [(gpu,) for gpu in request.gpus] if request.per_gpu else [request.gpus]:
            copy = ModelInstanceGroup()
            copy.CopyFrom(group)
            copy.gpus.extend(gpus)
            placed.append(copy)
    _check_placed(placed, request)
    return placed


def _check_placed(groups: list[ModelInstanceGroup], request: GroupRequest) -> None:
    for group in groups:
        if group.gpus and group.kind != ModelInstanceGroup.KIND_GPU:
            kind = ModelInstanceGroup.Kind.Name(group.kind)
            raise GenError(
                f"--gpus needs --kind gpu: a {kind} group with gpus is refused by Triton"
                + (
                    " (a KIND_AUTO group falls back to KIND_CPU when a listed GPU is missing)"
                    if group.kind == ModelInstanceGroup.KIND_AUTO
                    else ""
                )
            )


def _merged(
    base: ModelInstanceGroup, request: GroupRequest, notes: list[str]
) -> ModelInstanceGroup:
    group = ModelInstanceGroup()
    group.CopyFrom(base)
    if request.kind is None and request.gpus and group.kind != ModelInstanceGroup.KIND_GPU:
        kind = ModelInstanceGroup.Kind.Name(group.kind)
        notes.append(f"--gpus makes the {kind} group a KIND_GPU group (Triton places only those)")
        group.kind = ModelInstanceGroup.KIND_GPU
    if request.kind is not None:
        group.kind = KINDS[request.kind]  # type: ignore[assignment]
        if request.kind != "gpu" and group.gpus and request.gpus is None:
            notes.append(
                f"gpus {list(group.gpus)} dropped: Triton refuses them for {KINDS[request.kind]}"
            )
            del group.gpus[:]
    if request.count is not None:
        group.count = request.count
    if request.profiles is not None:
        del group.profile[:]
        group.profile.extend(request.profiles)
    if request.secondary_devices is not None:
        del group.secondary_devices[:]
        for device in request.secondary_devices:
            group.secondary_devices.add(
                kind=ModelInstanceGroup.SecondaryDevice.KIND_NVDLA, device_id=device
            )
    if request.resources is not None:
        del group.rate_limiter.resources[:]
        for name, count, shared in request.resources:
            group.rate_limiter.resources.add(name=name, count=count, **{"global": shared})
    if request.priority is not None:
        group.rate_limiter.priority = request.priority
    return group


def _without_gpus(groups: list[ModelInstanceGroup]) -> list[ModelInstanceGroup]:
    """The groups with their `gpus` cleared, each distinct one once (the groups one `--per-gpu`
    made are one group to place again)."""
    distinct: list[ModelInstanceGroup] = []
    for group in groups:
        copy = ModelInstanceGroup()
        copy.CopyFrom(group)
        del copy.gpus[:]
        if copy not in distinct:
            distinct.append(copy)
    return distinct


def _check(request: GroupRequest, config: ModelConfig, model: str) -> None:
    for profile in request.profiles or ():
        if not profile.isdigit():
            raise GenUsageError(
                f"invalid profile {profile!r}: a profile is a non-negative integer (its index)"
            )
    if config.platform == "ensemble":
        raise GenError(f"instance group should not be specified for ensemble '{model}'")
    if request.count is not None and request.count < 1:
        raise GenUsageError("--count must be at least 1 (count 0 means Triton's default, not none)")
    if request.per_gpu and not request.gpus:
        raise GenUsageError("--per-gpu needs --gpus")
    if request.profiles or request.secondary_devices:
        platform = config.platform or config.backend
        if platform not in ("tensorrt_plan", "tensorrt"):
            field = "profile" if request.profiles else "secondary_devices"
            raise GenError(
                f"{field} is only supported for TensorRT models; model '{model}' is {platform!r}"
            )


def generate(target: Target, request: GroupRequest, notes: list[str]) -> Change:
    """The config with its `instance_group` list updated (or added): the options given, on top
    of the groups there."""
    groups = build(request, target.parsed.message, target.name, notes)
    wanted = ModelConfig()
    wanted.instance_group.extend(groups)
    notes.extend(_placement_notes(groups))
    text = set_fields(target.parsed, wanted, ("instance_group",))
    return Change(
        target.config_path, target.parsed.source, text, notes, root=target.loaded.dir.root
    )


def _placement_notes(groups: list[ModelInstanceGroup]) -> list[str]:
    """Where Triton puts the KIND_GPU groups' instances: `count` is per GPU."""
    notes = []
    on_gpus = [g for g in groups if g.kind == ModelInstanceGroup.KIND_GPU]
    for count in dict.fromkeys(g.count or 1 for g in on_gpus if not g.gpus):
        notes.append(f"no gpus listed: Triton puts {_instances(count)} on every GPU of the host")
    listed = [g for g in on_gpus if g.gpus]
    counts = {g.count or 1 for g in listed}
    if len(counts) == 1:
        (count,) = counts
        gpus = sorted({gpu for g in listed for gpu in g.gpus})
        total = sum(count * len(g.gpus) for g in listed)
        named = f"GPU{'s' if len(gpus) != 1 else ''} {', '.join(map(str, gpus))}"
        notes.append(f"count is per GPU: {_instances(count)} on each of {named}, {total} in all")
    return notes


def _instances(count: int) -> str:
    return f"{count} instance{'s' if count != 1 else ''}"
