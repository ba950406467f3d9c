"""NORMALIZE: Triton's `NormalizeInstanceGroup` (`model_config_utils.cc`), offline.

Triton runs it per version in BACKEND_CREATE, once the backend is found, and skips ensembles.
Its outcome depends on the target host's supported GPUs (compute capability >= 7.5). With
`gpus=None` (host unknown) what depends on them is left unknown (None) instead of guessed.
"""

from __future__ import annotations

from tritoncfg.record import record
from tritoncfg.schema import ModelConfig, ModelInstanceGroup

KIND_AUTO = ModelInstanceGroup.KIND_AUTO
KIND_GPU = ModelInstanceGroup.KIND_GPU
KIND_CPU = ModelInstanceGroup.KIND_CPU
KIND_MODEL = ModelInstanceGroup.KIND_MODEL
KNOWN_KINDS = frozenset(value for _, value in ModelInstanceGroup.Kind.items())

# `SetDefaultInstanceCount`: these backends get 2 CPU instances per group by default.
DEFAULT_CPU_COUNT = 2
DEFAULT_CPU_COUNT_BACKENDS = frozenset({"tensorflow", "onnxruntime"})

# The preferred group the standard backends declare (TRITONBACKEND_GetBackendAttribute); all of
# them leave count and gpus unset, so only the kind of the default group changes.
PREFERRED_KIND: dict[str, int] = {"openvino": KIND_CPU, "python": KIND_GPU}


def kind_name(kind: int) -> str:
    """`KIND_GPU` for 1; an undefined number (proto3 enums are open) is shown as the number."""
    return ModelInstanceGroup.Kind.Name(kind) if kind in KNOWN_KINDS else str(kind)


@record(frozen=True)
class NormalizedGroup:
    """One instance group as `ValidateInstanceGroup` and instance creation see it."""

    index: (
        int | None
    )  # position in `instance_group`; None for the default group Triton adds when there is none
    name: str
    written_kind: int  # before KIND_AUTO resolution (may be an undefined number)
    kind: int | None  # KIND_AUTO resolved; None when it depends on the unknown host's GPUs
    count: int | None  # count < 1 becomes the default; None when it depends on an unresolved kind
    gpus: (
        tuple[int, ...] | None
    )  # KIND_GPU without gpus gets all; None when Triton fills in the unknown host's GPUs
    written_gpus: tuple[int, ...]
    profile: tuple[str, ...]
    host_policy: str
    passive: bool

    @property
    def host_dependent(self) -> bool:
        return self.kind is None or self.count is None or self.gpus is None

    @property
    def instance_names(self) -> tuple[str, ...] | None:
        """`<g>_<k>` for each of `count` instances (a GPU group repeats them per GPU)."""
        if self.count is None:
            return None
        return tuple(f"{self.name}_{k}" for k in range(self.count))

    @property
    def host_policies(self) -> tuple[str, ...] | None:
        """An empty host policy is `cpu`, `gpu_<id>` or `model` by kind."""
        if self.host_policy:
            return (self.host_policy,)
        if self.kind == KIND_CPU:
            return ("cpu",)
        if self.kind == KIND_MODEL:
            return ("model",)
        if self.kind == KIND_GPU and self.gpus is not None:
            return tuple(f"gpu_{gid}" for gid in self.gpus)
        return None


def _resolve_kind(kind: int, listed: tuple[int, ...], gpus: tuple[int, ...] | None) -> int | None:
    if kind != KIND_AUTO:
        return kind
    if any(gid < 0 for gid in listed):
        return KIND_CPU  # no host has a negative GPU id
    if gpus is None:
        return None
    if not gpus or any(gid not in gpus for gid in listed):
        return KIND_CPU
    return KIND_GPU


def _count(written: int, kind: int | None, backend: str) -> int | None:
    if written >= 1:
        return written
    if backend not in DEFAULT_CPU_COUNT_BACKENDS:
        return 1
    if kind is None:
        return None  # 2 if the host turns KIND_AUTO into KIND_CPU, else 1
    return DEFAULT_CPU_COUNT if kind == KIND_CPU else 1


def _gpus(
    kind: int | None, listed: tuple[int, ...], gpus: tuple[int, ...] | None
) -> tuple[int, ...] | None:
    if listed:
        return listed
    if kind == KIND_GPU:
        return None if gpus is None else tuple(sorted(gpus))  # all supported GPUs
    if kind is None:
        return None  # all GPUs or none, by the host
    return ()


def _default_group(config: ModelConfig, backend: str) -> ModelInstanceGroup:
    group = ModelInstanceGroup(name=config.name)
    # a KIND_GPU preferred group is skipped without GPUs, which leaves KIND_AUTO: the same outcome
    preferred = PREFERRED_KIND.get(backend, KIND_AUTO)
    group.kind = KIND_AUTO if preferred == KIND_GPU else preferred  # type: ignore[assignment]
    return group


def normalize_instance_groups(
    config: ModelConfig, backend: str, gpus: tuple[int, ...] | None
) -> list[NormalizedGroup]:
    """The groups after `NormalizeInstanceGroup` for a host with `gpus` (supported GPU ids; None = unknown).

    Empty for ensembles, which Triton does not normalize."""
    if config.HasField("ensemble_scheduling"):
        return []
    written: list[tuple[int | None, ModelInstanceGroup]] = list(enumerate(config.instance_group))
    if not written:
        written = [(None, _default_group(config, backend))]
    groups = []
    for index, group in written:
        listed = tuple(group.gpus)
        kind = _resolve_kind(group.kind, listed, gpus)
        groups.append(
            NormalizedGroup(
                index=index,
                name=group.name or f"{config.name}_{index}",
                written_kind=group.kind,
                kind=kind,
                count=_count(group.count, kind, backend),
                gpus=_gpus(kind, listed, gpus),
                written_gpus=listed,
                profile=tuple(group.profile),
                host_policy=group.host_policy,
                passive=group.passive,
            )
        )
    return groups


__all__ = [
    "DEFAULT_CPU_COUNT",
    "KIND_AUTO",
    "KIND_CPU",
    "KIND_GPU",
    "KIND_MODEL",
    "KNOWN_KINDS",
    "NormalizedGroup",
    "kind_name",
    "normalize_instance_groups",
]
