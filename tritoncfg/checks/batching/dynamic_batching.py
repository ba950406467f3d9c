"""TC2xx: max_batch_size and dynamic batching, as `ValidateModelConfig` checks them
(model_config_utils.cc). Triton stops at the first failure; these rules report every one."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Fix, Severity
from tritoncfg.schema import ModelDynamicBatching, ModelQueuePolicy
from tritoncfg.text.edits import Edit
from tritoncfg.text.tree import ListValue
from tritoncfg.workspace import LoadedModel

PHASE = Phase.VALIDATE


def _dynamic_batching(model: LoadedModel, ctx: CheckContext) -> ModelDynamicBatching | None:
    """The completed config's `dynamic_batching`, or None when the model does not use it."""
    config = ctx.config(model)
    return config.dynamic_batching if config.HasField("dynamic_batching") else None


def _written_preferred_sizes(model: LoadedModel) -> list[int]:
    """The preferred sizes the user wrote; `NormalizeModelConfig` adds `[max_batch_size]` only to
    an empty list, and that value always passes, so the user's own list is what can fail."""
    if model.config is None or not model.config.message.HasField("dynamic_batching"):
        return []
    return list(model.config.message.dynamic_batching.preferred_batch_size)


@model_rule(
    "TC201",
    severity=Severity.ERROR,
    summary="max_batch_size is negative.",
    phase=PHASE,
)
def negative_max_batch_size(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `max_batch_size` below 0.

    ## Why it matters
    Triton refuses the model: `'max_batch_size' must be non-negative value for <model>`.
    `0` means the model does not batch (inputs carry no batch dimension); a positive value is
    the largest batch Triton will form.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: -1
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    ```
    """
    config = ctx.config(model)
    if config.max_batch_size < 0:
        yield Finding(
            f"max_batch_size is {config.max_batch_size}; it must be 0 (no batching) or the "
            "largest batch the model accepts",
            at(model, "max_batch_size", value=True),
            triton_message=f"'max_batch_size' must be non-negative value for {ctx.completion(model).name}",
        )


@model_rule(
    "TC202",
    severity=Severity.ERROR,
    summary="A dynamic_batching preferred_batch_size is 0 or negative.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def preferred_batch_size_not_positive(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `dynamic_batching.preferred_batch_size` entry that is 0 or negative.

    ## Why it matters
    Triton refuses the model: `dynamic batching preferred size must be positive for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { preferred_batch_size: [ 0, 4 ] }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { preferred_batch_size: [ 4 ] }
    ```
    """
    if _dynamic_batching(model, ctx) is None:
        return
    for index, size in enumerate(_written_preferred_sizes(model)):
        if size <= 0:
            yield Finding(
                f"preferred batch size {size} is not positive; remove it or use a size between 1 "
                "and max_batch_size",
                at(model, "dynamic_batching", "preferred_batch_size", index, value=True),
                triton_message="dynamic batching preferred size must be positive for "
                + ctx.completion(model).name,
            )


@model_rule(
    "TC203",
    severity=Severity.ERROR,
    summary="A dynamic_batching preferred_batch_size is above max_batch_size (any size when it is 0).",
    phase=PHASE,
    fixable=True,
    gate=gates.dynamic_batching,
)
def preferred_batch_size_exceeds_max(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each positive `dynamic_batching.preferred_batch_size` entry larger than
    `max_batch_size`. With `max_batch_size: 0` (the default) every preferred size is too large.

    ## Why it matters
    Triton refuses the model: `dynamic batching preferred size must be <= max batch size for
    <model>`. A model with `max_batch_size: 0` does not batch, so it cannot prefer a batch size.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    dynamic_batching { preferred_batch_size: [ 4 ] }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { preferred_batch_size: [ 4 ] }
    ```
    """
    mbs = ctx.config(model).max_batch_size
    if _dynamic_batching(model, ctx) is None or mbs < 0:
        return  # a negative max_batch_size is TC201; comparing with it says nothing more
    for index, size in enumerate(_written_preferred_sizes(model)):
        if size <= 0 or size <= mbs:
            continue
        if mbs == 0:
            message = (
                f"preferred batch size {size} needs batching, but max_batch_size is 0 (the model "
                f"does not batch); set max_batch_size to at least {size} or remove "
                "preferred_batch_size"
            )
        else:
            message = (
                f"preferred batch size {size} is above max_batch_size {mbs}; lower it or raise "
                "max_batch_size"
            )
        yield Finding(
            message,
            at(model, "dynamic_batching", "preferred_batch_size", index, value=True),
            triton_message="dynamic batching preferred size must be <= max batch size for "
            + ctx.completion(model).name,
            fix=_drop_sizes_above(model, mbs),
        )


def _drop_sizes_above(model: LoadedModel, mbs: int) -> Fix | None:
    """Rewrite a `preferred_batch_size: [ ... ]` list without the sizes above max_batch_size.

    Safe when the model batches; with max_batch_size 0 the author may rather have meant to batch."""
    location = (
        model.config.location(("dynamic_batching", "preferred_batch_size"))
        if model.config
        else None
    )
    if location is None or not isinstance(location.field.value, ListValue):
        return None
    kept = [s for s in _written_preferred_sizes(model) if s <= mbs]
    text = "[ " + ", ".join(str(s) for s in kept) + " ]" if kept else "[ ]"
    return Fix(
        "drop the preferred sizes above max_batch_size",
        (Edit(location.field.value.span, text),),
        safe=mbs > 0,
    )


@model_rule(
    "TC204",
    severity=Severity.ERROR,
    summary="With priority_levels set, default_priority_level is 0 or above priority_levels.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def default_priority_level_out_of_range(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `dynamic_batching` with `priority_levels` set whose `default_priority_level` is
    unset (0) or larger than `priority_levels`.

    ## Why it matters
    Requests without a priority get the default level, so it must be one of the levels. Triton
    refuses the model: `default priority level must be in range [1, <priority_levels>] for
    <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { priority_levels: 3 }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { priority_levels: 3 default_priority_level: 2 }
    ```
    """
    batching = _dynamic_batching(model, ctx)
    if batching is None or batching.priority_levels == 0:
        return
    levels, default = batching.priority_levels, batching.default_priority_level
    if 1 <= default <= levels:
        return
    written = model.config is not None and (
        model.config.location(("dynamic_batching", "default_priority_level")) is not None
    )
    span = at(
        model,
        "dynamic_batching",
        "default_priority_level" if written else "priority_levels",
        value=True,
    )
    problem = (
        "default_priority_level is not set"
        if default == 0 and not written
        else f"default_priority_level {default} is outside 1..{levels}"
    )
    yield Finding(
        f"{problem}, but priority_levels is {levels}; set default_priority_level to a level "
        f"between 1 and {levels}",
        span,
        triton_message=f"default priority level must be in range [1, {levels}] for "
        + ctx.completion(model).name,
    )


@model_rule(
    "TC205",
    severity=Severity.ERROR,
    summary="A priority_queue_policy key is 0 or above priority_levels.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def priority_queue_policy_level_out_of_range(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `priority_queue_policy` entry whose key (a priority level) is 0 or larger than
    `priority_levels`. Keys are only checked when `priority_levels` is set.

    ## Why it matters
    Triton refuses the model: `priority queue policy must have priority level in range [1,
    <priority_levels>] for <model>`. Levels count from 1.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching {
      priority_levels: 2
      default_priority_level: 1
      priority_queue_policy { key: 0 value { max_queue_size: 4 } }
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching {
      priority_levels: 2
      default_priority_level: 1
      priority_queue_policy { key: 1 value { max_queue_size: 4 } }
    }
    ```
    """
    batching = _dynamic_batching(model, ctx)
    if batching is None or batching.priority_levels == 0:
        return  # Triton does not look at the keys then
    levels = batching.priority_levels
    for key in sorted(batching.priority_queue_policy):
        if 1 <= key <= levels:
            continue
        yield Finding(
            f"priority_queue_policy for level {key} is outside the levels 1..{levels}; use a "
            f"key between 1 and {levels} or raise priority_levels",
            at(model, "dynamic_batching", "priority_queue_policy", key, "key", value=True),
            triton_message=f"priority queue policy must have priority level in range [1, {levels}] "
            f"for {ctx.completion(model).name}",
        )


@model_rule(
    "TC206",
    severity=Severity.ERROR,
    summary="preserve_ordering is true with more than one priority level.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def preserve_ordering_with_priority_levels(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports `dynamic_batching` with `preserve_ordering: true` and `priority_levels` above 1.

    ## Why it matters
    Priorities reorder requests, which contradicts preserving their order. Triton refuses the
    model: `Only one priority level is allowed when 'preserve_ordering' is true for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching {
      preserve_ordering: true
      priority_levels: 2
      default_priority_level: 1
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { preserve_ordering: true }
    ```
    """
    batching = _dynamic_batching(model, ctx)
    if batching is None or not batching.preserve_ordering or batching.priority_levels <= 1:
        return
    yield Finding(
        f"preserve_ordering is true but priority_levels is {batching.priority_levels}; "
        "priorities reorder requests, so drop priority_levels or preserve_ordering",
        at(model, "dynamic_batching", "priority_levels", value=True),
        triton_message="Only one priority level is allowed when 'preserve_ordering' is true for "
        + ctx.completion(model).name,
    )


def _delays(policy: ModelQueuePolicy) -> bool:
    # a DELAY action with no timeout never triggers, so Triton accepts it
    return (
        policy.timeout_action == ModelQueuePolicy.DELAY and policy.default_timeout_microseconds != 0
    )


@model_rule(
    "TC207",
    severity=Severity.ERROR,
    summary="preserve_ordering is true and a queue policy delays timed-out requests.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def preserve_ordering_with_delay_policy(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports, under `preserve_ordering: true`, the `default_queue_policy` and each
    `priority_queue_policy` that has `timeout_action: DELAY` with a non-zero
    `default_timeout_microseconds`.

    ## Why it matters
    A delayed request is moved behind others, which breaks the order. Triton refuses the model:
    `Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for
    <model>`. The priority policies are checked even with a single priority level.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching {
      preserve_ordering: true
      default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 100 }
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching {
      preserve_ordering: true
      default_queue_policy { timeout_action: REJECT default_timeout_microseconds: 100 }
    }
    ```
    """
    batching = _dynamic_batching(model, ctx)
    if batching is None or not batching.preserve_ordering:
        return
    triton = (
        "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for "
        + ctx.completion(model).name
    )
    fix = "use timeout_action: REJECT, or drop preserve_ordering"
    if _delays(batching.default_queue_policy):
        yield Finding(
            f"default_queue_policy delays timed-out requests, which reorders them under "
            f"preserve_ordering; {fix}",
            at(model, "dynamic_batching", "default_queue_policy", "timeout_action", value=True),
            triton_message=triton,
        )
    for key in sorted(batching.priority_queue_policy):
        if _delays(batching.priority_queue_policy[key]):
            yield Finding(
                f"priority_queue_policy for level {key} delays timed-out requests, which reorders "
                f"them under preserve_ordering; {fix}",
                at(
                    model,
                    "dynamic_batching",
                    "priority_queue_policy",
                    key,
                    "value",
                    "timeout_action",
                    value=True,
                ),
                triton_message=triton,
            )
