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

from tritoncfg.gen.change import Change, GenError, GenUsageError
from tritoncfg.gen.field_update import set_fields
from tritoncfg.gen.target import Target
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig, ModelDynamicBatching, ModelQueuePolicy


@record(frozen=True)
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


@record(frozen=True)
class BatchingRequest:
    """What to set; None (or an option not given) keeps the value of the block already there."""

    preferred: tuple[int, ...] | None = None  # () clears the list
    max_queue_delay_us: int | None = None
    priority_levels: int | None = None
    default_priority_level: int | None = None
    preserve_ordering: bool | None = None
    queue_policy: QueuePolicy = field(default_factory=QueuePolicy)


def build(
    request: BatchingRequest,
    max_batch_size: int,
    model: str,
    base: ModelDynamicBatching | None = None,
) -> ModelDynamicBatching:
    """`base` (the block written today) with the request applied, or GenError with the reason
    Triton's `ValidateModelConfig` would give."""
    if max_batch_size <= 0:
        raise GenError(
            f"model '{model}' has max_batch_size 0: it does not batch, so Triton cannot form "
            "batches for it (set max_batch_size > 0 first)"
        )
    block = ModelDynamicBatching()
    if base is not None:
        block.CopyFrom(base)
    if request.preferred is not None:
        del block.preferred_batch_size[:]
        block.preferred_batch_size.extend(sorted(set(request.preferred)))
    for size in block.preferred_batch_size:
        if size <= 0:
            raise GenError(f"dynamic batching preferred size must be positive for {model}")
        if size > max_batch_size:
            raise GenError(
                f"preferred batch size {size} is above max_batch_size {max_batch_size}: Triton "
                f"refuses it (dynamic batching preferred size must be <= max batch size for {model})"
            )
    if request.max_queue_delay_us is not None:
        block.max_queue_delay_microseconds = request.max_queue_delay_us
    _priorities(request, block, model)
    if request.queue_policy.given:
        _policy(request.queue_policy, block.default_queue_policy)
    if request.preserve_ordering is not None:
        block.preserve_ordering = request.preserve_ordering
    _check_ordering(block, model)
    return block


def _check_ordering(block: ModelDynamicBatching, model: str) -> None:
    if not block.preserve_ordering:
        return
    if block.priority_levels > 1:
        raise GenError(
            f"Only one priority level is allowed when 'preserve_ordering' is true for {model}"
        )
    policies = [block.default_queue_policy, *block.priority_queue_policy.values()]
    if any(
        p.timeout_action == ModelQueuePolicy.DELAY and p.default_timeout_microseconds
        for p in policies
    ):
        raise GenError(
            "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is "
            f"true for {model}"
        )


def _priorities(request: BatchingRequest, block: ModelDynamicBatching, model: str) -> None:
    if request.priority_levels is not None:
        block.priority_levels = request.priority_levels
        if not 1 <= block.default_priority_level <= request.priority_levels:
            block.default_priority_level = request.priority_levels  # the lowest level
    if request.default_priority_level is not None:
        block.default_priority_level = request.default_priority_level
    levels = block.priority_levels
    if levels and not 1 <= block.default_priority_level <= levels:
        raise GenError(f"default priority level must be in range [1, {levels}] for {model}")
    if not levels and request.default_priority_level is not None:
        raise GenUsageError("--default-priority-level needs --priority-levels")
    if not levels:
        block.default_priority_level = 0


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
    """The config with its `dynamic_batching` block updated in place (or added)."""
    message = target.parsed.message
    other = message.WhichOneof("scheduling_choice")
    if other not in (None, "dynamic_batching"):
        raise GenError(
            f"{target.config_path}: the model uses {other}; dynamic_batching and {other} are one "
            "choice (a proto oneof), so Triton cannot have both"
        )
    base = message.dynamic_batching if message.HasField("dynamic_batching") else None
    block = build(request, message.max_batch_size, target.name, base)
    wanted = ModelConfig()
    wanted.dynamic_batching.CopyFrom(block)
    text = set_fields(target.parsed, wanted, ("dynamic_batching",))
    return Change(
        target.config_path, target.parsed.source, text, notes, root=target.loaded.dir.root
    )
