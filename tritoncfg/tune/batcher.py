"""What the simulator reads off a model config: the batcher's settings and the instance count.

Values are Triton's after normalization: no `preferred_batch_size` means `[max_batch_size]`
(`model_config_utils.cc: NormalizeModelConfig`), `max_batch_size: 0` batches one request at a time
(`dynamic_batch_scheduler.cc`: the scheduler's `max_batch_size_` is `max(1, max_batch_size)`).
"""

from __future__ import annotations

from tritoncfg.record import record, replace
from tritoncfg.schema import ModelConfig

REJECT, DELAY = 0, 1  # ModelQueuePolicy.TimeoutAction


class SimulationInputError(ValueError):
    """Input the simulator cannot use: the message names the file (line, column) or option."""


@record(frozen=True)
class QueuePolicy:
    """`ModelQueuePolicy` of one priority level."""

    timeout_action: int = REJECT
    default_timeout_us: int = 0
    allow_timeout_override: bool = False
    max_queue_size: int = 0  # 0: unbounded

    @property
    def plain(self) -> bool:
        """No timeout and no capacity: Triton's queue then lets the batcher prefetch
        (`scheduler_utils.cc: PriorityQueue::PriorityQueue`, `support_prefetching_`)."""
        return not (self.default_timeout_us or self.allow_timeout_override or self.max_queue_size)


@record(frozen=True)
class BatcherConfig:
    """The scheduler of one model, as the simulator runs it."""

    max_batch_size: int  # as written: 0 for a model that does not batch
    instances: int = 1
    dynamic: bool = True  # False: no dynamic_batching, every request is its own batch
    preferred: tuple[int, ...] = ()  # as written; () means [max_batch_size]
    delay_us: int = 0
    preserve_ordering: bool = False
    priority_levels: int = 0
    default_priority_level: int = 0
    default_policy: QueuePolicy = QueuePolicy()
    level_policies: tuple[tuple[int, QueuePolicy], ...] = ()  # priority_queue_policy

    @property
    def batch_limit(self) -> int:
        """M: the largest batch the scheduler forms."""
        return max(1, self.max_batch_size)

    @property
    def preferred_sizes(self) -> frozenset[int]:
        """P after normalization: empty with max_batch_size 0."""
        if self.preferred:
            return frozenset(self.preferred)
        return frozenset((self.max_batch_size,)) if self.max_batch_size > 0 else frozenset()

    def level_of(self, priority: int) -> int:
        """The queue a request of `priority` joins (`infer_request.cc: SetPriority`): 0 or a
        level above `priority_levels` means the default level."""
        if self.priority_levels == 0 or priority == 0 or priority > self.priority_levels:
            return self.default_priority_level
        return priority

    def policy_of(self, level: int) -> QueuePolicy:
        return dict(self.level_policies).get(level, self.default_policy)

    @property
    def prefetching(self) -> bool:
        """Whether the batcher forms batches ahead of a free instance (`PayloadSlotAvailable`)."""
        return self.priority_levels == 0 and self.default_policy.plain

    def describe(self) -> str:
        if not self.dynamic:
            return f"no dynamic_batching, max_batch_size {self.max_batch_size}, {self._count()}"
        sizes = sorted(self.preferred_sizes)
        return (
            f"preferred {sizes}, max_queue_delay_microseconds {self.delay_us}, "
            f"max_batch_size {self.max_batch_size}, {self._count()}"
        )

    def _count(self) -> str:
        return f"{self.instances} instance{'s' if self.instances != 1 else ''}"


def from_model_config(config: ModelConfig, gpus_per_group: int = 1) -> BatcherConfig:
    """The scheduler of `config`; an instance group of KIND_GPU without `gpus` runs `count` on
    each of `gpus_per_group` GPUs. SimulationInputError for a scheduler the simulator does not
    model (the sequence batcher, an ensemble)."""
    other = config.WhichOneof("scheduling_choice")
    if other in ("sequence_batching", "ensemble_scheduling") or config.platform == "ensemble":
        raise SimulationInputError(
            f"model '{config.name}' uses {other or 'the ensemble platform'}: the simulator models "
            "the dynamic batcher (or none) only"
        )
    instances = sum(_group_instances(g, gpus_per_group) for g in config.instance_group) or 1
    if config.WhichOneof("scheduling_choice") != "dynamic_batching":
        return BatcherConfig(config.max_batch_size, instances, dynamic=False)
    batching = config.dynamic_batching
    return BatcherConfig(
        config.max_batch_size,
        instances,
        preferred=tuple(sorted(set(batching.preferred_batch_size))),
        delay_us=batching.max_queue_delay_microseconds,
        preserve_ordering=batching.preserve_ordering,
        priority_levels=batching.priority_levels,
        default_priority_level=batching.default_priority_level,
        default_policy=_policy(batching.default_queue_policy),
        level_policies=tuple(
            (level, _policy(policy))
            for level, policy in sorted(batching.priority_queue_policy.items())
        ),
    )


def instance_unit(config: ModelConfig, gpus: int) -> int | None:
    """How many instances one more `count` of the config's instance group adds (its devices;
    no group: Triton's default group, on each of `gpus`); None with several groups, whose
    counts `tune` leaves as they are."""
    groups = config.instance_group
    if len(groups) > 1:
        return None
    if not groups:
        return gpus
    single = ModelConfig()
    single.instance_group.add().CopyFrom(groups[0])
    single.instance_group[0].count = 1
    return from_model_config(single, gpus).instances


def _group_instances(group: object, gpus_per_group: int) -> int:
    count = getattr(group, "count", 0) or 1
    kind = getattr(group, "kind", 0)
    gpus = len(getattr(group, "gpus", ()))
    on_gpus = kind in (0, 1)  # KIND_AUTO (on a GPU host) and KIND_GPU: count per GPU
    return count * (gpus or (gpus_per_group if on_gpus else 1))


def _policy(policy: object) -> QueuePolicy:
    return QueuePolicy(
        int(getattr(policy, "timeout_action", REJECT)),
        int(getattr(policy, "default_timeout_microseconds", 0)),
        bool(getattr(policy, "allow_timeout_override", False)),
        int(getattr(policy, "max_queue_size", 0)),
    )


def with_overrides(
    base: BatcherConfig,
    *,
    preferred: tuple[int, ...] | None = None,
    delay_us: int | None = None,
    instances: int | None = None,
    max_batch_size: int | None = None,
) -> BatcherConfig:
    """`base` with the settings `simulate` was told to try instead (an override of the batching
    settings turns dynamic batching on)."""
    changed = base
    if max_batch_size is not None:
        changed = replace(changed, max_batch_size=max_batch_size)
    if instances is not None:
        changed = replace(changed, instances=instances)
    if preferred is not None:
        changed = replace(changed, preferred=tuple(sorted(set(preferred))), dynamic=True)
    if delay_us is not None:
        changed = replace(changed, delay_us=delay_us, dynamic=True)
    check(changed)
    return changed


def check(config: BatcherConfig) -> None:
    """What Triton's `ValidateModelConfig` refuses in the settings the simulator runs."""
    for size in config.preferred:
        if size <= 0 or size > config.max_batch_size:
            raise SimulationInputError(
                f"preferred batch size {size} must be positive and <= max_batch_size "
                f"{config.max_batch_size}"
            )
    if config.instances < 1:
        raise SimulationInputError(f"instance count must be >= 1, got {config.instances}")
    if config.max_batch_size < 0:
        raise SimulationInputError(f"max_batch_size must be >= 0, got {config.max_batch_size}")


def check_rows(config: BatcherConfig, sizes: list[int] | None, source: str) -> None:
    """Triton refuses a request of more rows than max_batch_size (one, for a model that does not
    batch) before it is queued."""
    for index, rows in enumerate(sizes or ()):
        if rows > config.batch_limit:
            raise SimulationInputError(
                f"{source}: request {index + 1} has {rows} rows, more than max_batch_size "
                f"{config.max_batch_size} allows (Triton refuses it)"
            )
