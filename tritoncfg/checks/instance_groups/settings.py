"""TC406-TC408: BACKEND_CREATE. The instance group fields `ValidateInstanceGroup` checks after
the kind (TensorRT profiles), and counts `NormalizeInstanceGroup` silently replaces."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.instance_groups.groups import PHASE, groups_of, triton_text
from tritoncfg.complete.autofill import ENSEMBLE, TENSORRT_PLAN
from tritoncfg.complete.instance_groups import NormalizedGroup
from tritoncfg.diagnostics import Severity
from tritoncfg.repository.versions import StollInvalidArgument, StollOutOfRange, stoll
from tritoncfg.workspace import LoadedModel

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@model_rule(
    "TC406",
    severity=Severity.ERROR,
    summary="An instance group lists TensorRT optimization profiles on a non-TensorRT model.",
    phase=PHASE,
)
def profile_without_tensorrt(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `profile` in an instance group of a model whose platform is not `tensorrt_plan`.

    ## Why it matters
    Optimization profiles exist only in TensorRT engines; Triton refuses the model:
    `instance group m_0 of model m and platform onnxruntime_onnxspecifies profile field which is
    only supported for TensorRT models` (sic, no space).

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU profile: [ "0" ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU } ]
    ```
    """
    platform = ctx.config(model).platform
    if platform == TENSORRT_PLAN:
        return
    for group in groups_of(model, ctx):
        if group.profile:
            shown = (
                f"platform '{platform}'" if platform else f"backend '{ctx.config(model).backend}'"
            )
            yield Finding(
                f"instance group '{group.name}' lists TensorRT optimization profiles, but the "
                f"model has {shown}; remove `profile`",
                at(model, "instance_group", group.index or 0, "profile"),
                triton_message=triton_text(
                    model,
                    ctx,
                    group,
                    f"and platform {platform}specifies profile field which is only supported "
                    "for TensorRT models",
                ),
            )


def _profile_problem(
    model: LoadedModel, ctx: CheckContext, group: NormalizedGroup, profile: str
) -> tuple[str, str | None] | None:
    """(tritoncfg's reason, Triton's message) for a bad profile entry, as `stoi` reads it."""
    if not profile:
        return "an empty profile name", "profile name must not be empty"
    try:
        value = stoll(profile)
    except StollInvalidArgument:
        return f"'{profile}' is not a number", f"unable to parse '{profile}': stoi"
    except StollOutOfRange:
        value = INT32_MAX + 1
    if not INT32_MIN <= value <= INT32_MAX:
        # std::stoi throws std::out_of_range, which Triton does not catch
        return (
            f"'{profile}' is out of the int32 range and crashes Triton (uncaught std::out_of_range)",
            None,
        )
    if value < 0:
        return f"'{profile}' is negative", triton_text(
            model,
            ctx,
            group,
            f"and platform {TENSORRT_PLAN} specifies invalid profile {profile}. The field should "
            "contain the string representation of a non-negative integer.",
        )
    return None


@model_rule(
    "TC407",
    severity=Severity.ERROR,
    summary="A TensorRT instance group profile that is empty, not a number, or negative.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def invalid_tensorrt_profile(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `profile` entry of a TensorRT model's instance group that Triton cannot read
    as a non-negative profile index. Triton reads it with `std::stoi`, which ignores what
    follows the leading digits (`"1abc"` is profile 1).

    ## Why it matters
    Triton refuses the model with `profile name must not be empty`, `unable to parse 'abc':
    stoi` or `... specifies invalid profile -1. The field should contain the string
    representation of a non-negative integer.`; a number beyond int32 crashes it.

    ## Example
    ```pbtxt
    platform: "tensorrt_plan"
    instance_group [ { kind: KIND_GPU profile: [ "-1" ] } ]
    ```

    ## Fix
    ```pbtxt
    platform: "tensorrt_plan"
    instance_group [ { kind: KIND_GPU profile: [ "0" ] } ]
    ```
    """
    if ctx.config(model).platform != TENSORRT_PLAN:
        return
    for group in groups_of(model, ctx):
        for j, profile in enumerate(group.profile):
            problem = _profile_problem(model, ctx, group, profile)
            if problem is not None:
                reason, triton = problem
                yield Finding(
                    f"instance group '{group.name}' profile {reason}; profiles are the "
                    'engine\'s optimization profile indexes, e.g. "0"',
                    at(model, "instance_group", group.index or 0, "profile", j, value=True),
                    triton_message=triton,
                )


@model_rule(
    "TC408",
    severity=Severity.WARNING,
    summary="A negative instance count, which Triton silently replaces by the default.",
    phase=Phase.BEST_PRACTICE,
)
def negative_instance_count(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an instance group `count` below zero.

    ## Why it matters
    Triton does not reject it: any count below 1 becomes the default (1, or 2 for CPU groups
    of the tensorflow and onnxruntime backends), so `count: -4` most likely does not do what
    was meant.

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU count: -4 } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU count: 4 } ]
    ```
    """
    config = ctx.config(model)
    if config.platform == ENSEMBLE:
        return
    for i, group in enumerate(config.instance_group):
        if group.count < 0:
            name = group.name or f"{config.name}_{i}"
            yield Finding(
                f"instance group '{name}' has count {group.count}; Triton uses the default "
                "count instead. Write the number of instances you want (1 or more)",
                at(model, "instance_group", i, "count", value=True),
            )
