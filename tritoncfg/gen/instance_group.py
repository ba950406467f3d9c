"""`gen instance-group`: `instance_group` entries Triton accepts.

What Triton does with them (`model_config_utils.cc`, `NormalizeInstanceGroup` and
`ValidateInstanceGroup`; `backend_model.cc`, `PrepareInstances`): a KIND_GPU group without `gpus`
is placed on *every* supported GPU of the host, `count` instances on each; `gpus` is forbidden for
KIND_CPU and KIND_MODEL; KIND_AUTO becomes KIND_CPU when a listed GPU is missing (and then fails),
so `gpus` is never written under KIND_AUTO; `profile` is for TensorRT plans only, as strings of
non-negative integers; `count: 0` means "the default", never "none".
"""

from __future__ import annotations

from tritoncfg.gen.change import Change, GenError, GenUsageError, set_fields
from tritoncfg.gen.target import Target
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig, ModelInstanceGroup

KINDS = {"gpu": "KIND_GPU", "cpu": "KIND_CPU", "model": "KIND_MODEL", "auto": "KIND_AUTO"}


@record(frozen=True)
class GroupRequest:
    kind: str = "gpu"  # gpu | cpu | model | auto
    count: int = 1
    gpus: tuple[int, ...] = ()
    per_gpu: bool = False  # one group per listed GPU instead of one group spanning them
    profiles: tuple[str, ...] = ()
    secondary_devices: tuple[int, ...] = ()  # NVDLA core ids
    resources: tuple[tuple[str, int, bool], ...] = ()  # name, count, global
    priority: int | None = None


def parse_resource(text: str) -> tuple[str, int, bool]:
    """`NAME:COUNT` or `NAME:COUNT:global` (a rate-limiter resource)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0] or not parts[1].isdigit():
        raise GenUsageError(f"--resource expects NAME:COUNT or NAME:COUNT:global, got {text!r}")
    if len(parts) == 3 and parts[2] != "global":
        raise GenUsageError(f"--resource: the third part can only be 'global', got {parts[2]!r}")
    return parts[0], int(parts[1]), len(parts) == 3


def build(request: GroupRequest, config: ModelConfig, model: str) -> list[ModelInstanceGroup]:
    """The groups, or GenError with what Triton would refuse."""
    _check(request, config, model)
    placements: list[tuple[int, ...]] = (
        [(gpu,) for gpu in request.gpus] if request.per_gpu else [request.gpus]
    )
    groups = []
    for gpus in placements:
        group = ModelInstanceGroup(kind=KINDS[request.kind], count=request.count)
        group.gpus.extend(gpus)
        group.profile.extend(request.profiles)
        for device in request.secondary_devices:
            group.secondary_devices.add(
                kind=ModelInstanceGroup.SecondaryDevice.KIND_NVDLA, device_id=device
            )
        for name, count, shared in request.resources:
            group.rate_limiter.resources.add(name=name, count=count, **{"global": shared})
        if request.priority is not None:
            group.rate_limiter.priority = request.priority
        groups.append(group)
    return groups


def _check(request: GroupRequest, config: ModelConfig, model: str) -> None:
    kind = KINDS[request.kind]
    for profile in request.profiles:
        if not profile.isdigit():
            raise GenUsageError(
                f"invalid profile {profile!r}: a profile is a non-negative integer (its index)"
            )
    if config.platform == "ensemble":
        raise GenError(f"instance group should not be specified for ensemble '{model}'")
    if request.count < 1:
        raise GenUsageError("--count must be at least 1 (count 0 means Triton's default, not none)")
    if request.gpus and request.kind != "gpu":
        raise GenError(
            f"--gpus needs --kind gpu: a {kind} group with gpus is refused by Triton"
            + (
                " (a KIND_AUTO group falls back to KIND_CPU when a listed GPU is missing)"
                if request.kind == "auto"
                else ""
            )
        )
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
    """The config with its `instance_group` list replaced (or added)."""
    groups = build(request, target.parsed.message, target.name)
    wanted = ModelConfig()
    wanted.instance_group.extend(groups)
    instances = f"{request.count} instance{'s' if request.count != 1 else ''}"
    if request.kind == "gpu" and not request.gpus:
        notes.append(f"no gpus listed: Triton puts {instances} on every GPU of the host")
    elif request.kind == "gpu":
        listed = ", ".join(str(gpu) for gpu in request.gpus)
        gpus = f"GPU{'s' if len(request.gpus) != 1 else ''} {listed}"
        notes.append(
            f"count is per GPU: {instances} on each of {gpus}, "
            f"{request.count * len(request.gpus)} in all"
        )
    text = set_fields(target.parsed, wanted, ("instance_group",))
    return Change(
        target.config_path, target.parsed.source, text, notes, root=target.loaded.dir.root
    )
