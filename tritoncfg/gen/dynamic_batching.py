"""`gen dynamic-batching`: a `dynamic_batching` block Triton accepts, from options or from
measurements.

What the fields do (Triton's `dynamic_batch_scheduler.cc`, `GetDynamicBatch`): the batcher walks
the queue and cuts the batch at the *largest* preferred size the queued requests reach right now;
it never waits for a preferred size. The only waiting is `max_queue_delay_microseconds` (0 = none);
once that delay has expired the cut is ignored and everything queued, up to `max_batch_size`, is
sent. An empty preferred list is normalized to `[max_batch_size]` (`model_config_utils.cc`,
`NormalizeModelConfig`). The checks below are those of `ValidateModelConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tritoncfg.gen.change import Change, GenError, set_fields
from tritoncfg.gen.target import Target
from tritoncfg.schema import ModelConfig, ModelDynamicBatching, ModelQueuePolicy


@dataclass(frozen=True, slots=True)
class QueuePolicy:
    timeout_action: str | None = None  # REJECT | DELAY
    default_timeout_us: int | None = None
    allow_timeout_override: bool | None = None
    max_queue_size: int | None = None

    @property
    def given(self) -> bool:
        return any(
            v is not None
            for v in (
                self.timeout_action,
                self.default_timeout_us,
                self.allow_timeout_override,
                self.max_queue_size,
            )
        )


@dataclass(frozen=True, slots=True)
class BatchingRequest:
    preferred: tuple[int, ...] = ()
    max_queue_delay_us: int | None = None
    priority_levels: int | None = None
    default_priority_level: int | None = None
    preserve_ordering: bool = False
    queue_policy: QueuePolicy = field(default_factory=QueuePolicy)


def build(request: BatchingRequest, max_batch_size: int, model: str) -> ModelDynamicBatching:
    """The block, or GenError with the reason Triton's `ValidateModelConfig` would give."""
    if max_batch_size <= 0:
        raise GenError(
            f"model '{model}' has max_batch_size 0: it does not batch, so Triton cannot form "
            "batches for it (set max_batch_size > 0 first)"
        )
    block = ModelDynamicBatching()
    for size in sorted(set(request.preferred)):
        if size <= 0:
            raise GenError(f"dynamic batching preferred size must be positive for {model}")
        if size > max_batch_size:
            raise GenError(
                f"preferred batch size {size} is above max_batch_size {max_batch_size}: Triton "
                f"refuses it (dynamic batching preferred size must be <= max batch size for {model})"
            )
        block.preferred_batch_size.append(size)
    if request.max_queue_delay_us:
        block.max_queue_delay_microseconds = request.max_queue_delay_us
    _priorities(request, block, model)
    if request.queue_policy.given:
        _policy(request.queue_policy, block.default_queue_policy)
    if request.preserve_ordering:
        block.preserve_ordering = True
        if block.priority_levels > 1:
            raise GenError(
                f"Only one priority level is allowed when 'preserve_ordering' is true for {model}"
            )
        policy = block.default_queue_policy
        if policy.timeout_action == ModelQueuePolicy.DELAY and policy.default_timeout_microseconds:
            raise GenError(
                "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is "
                f"true for {model}"
            )
    return block


def _priorities(request: BatchingRequest, block: ModelDynamicBatching, model: str) -> None:
    levels = request.priority_levels or 0
    default = request.default_priority_level
    if levels:
        block.priority_levels = levels
        default = levels if default is None else default
        if not 1 <= default <= levels:
            raise GenError(f"default priority level must be in range [1, {levels}] for {model}")
        block.default_priority_level = default
    elif default is not None:
        raise GenError("--default-priority-level needs --priority-levels")


def _policy(given: QueuePolicy, policy: ModelQueuePolicy) -> None:
    if given.timeout_action is not None:
        policy.timeout_action = ModelQueuePolicy.TimeoutAction.Value(given.timeout_action)  # type: ignore[assignment]
    if given.default_timeout_us is not None:
        policy.default_timeout_microseconds = given.default_timeout_us
    if given.allow_timeout_override is not None:
        policy.allow_timeout_override = given.allow_timeout_override
    if given.max_queue_size is not None:
        policy.max_queue_size = given.max_queue_size


def generate(target: Target, request: BatchingRequest, notes: list[str]) -> Change:
    """The config with its `dynamic_batching` block replaced (or added)."""
    message = target.parsed.message
    other = message.WhichOneof("scheduling_choice")
    if other not in (None, "dynamic_batching"):
        raise GenError(
            f"{target.config_path}: the model uses {other}; dynamic_batching and {other} are one "
            "choice (a proto oneof), so Triton cannot have both"
        )
    block = build(request, message.max_batch_size, target.name)
    wanted = ModelConfig()
    wanted.dynamic_batching.CopyFrom(block)
    text = set_fields(target.parsed, wanted, ("dynamic_batching",))
    return Change(target.config_path, target.parsed.source, text, notes)
