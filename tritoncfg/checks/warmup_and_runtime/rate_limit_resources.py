"""TC732: INSTANCE. A rate-limiter resource needs more than the server's `--rate-limit-resource`
gives it (rate_limiter.cc: `RateLimiter::ResourceManager::ParseAndValidateExplicitResources`).

Once any resource is given on the command line, every resource an instance registers must be
given there too: one that is not counts as 0. A per-device resource is looked up for the
instance's device (CPU and KIND_MODEL instances are on device 0) and among the resources given
without a device; a global one takes the largest count given for its name on any device."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.instance_groups.groups import groups_of
from tritoncfg.complete.instance_groups import KIND_GPU
from tritoncfg.diagnostics import Severity
from tritoncfg.options.values import RateLimitResource
from tritoncfg.workspace import LoadedModel


def explicit_count(given: tuple[RateLimitResource, ...], name: str, device: int | None) -> int:
    """What the server allows for resource `name` on `device` (None: a global resource)."""
    counts = [
        count
        for resource, count, on in given
        if resource == name and (device is None or on is None or on == device)
    ]
    return max(counts, default=0)


def _limits(
    given: tuple[RateLimitResource, ...],
    name: str,
    is_global: bool,
    devices: tuple[int, ...] | None,
) -> Iterator[tuple[int | None, int]]:
    """(device, what the server allows there) for each place the resource is registered."""
    if is_global:
        yield None, explicit_count(given, name, None)
    elif devices is not None:
        for device in devices:
            yield device, explicit_count(given, name, device)
    elif not any(resource == name and on is not None for resource, _, on in given):
        # the host's GPUs are unknown: only a resource given for every device can be judged
        yield None, max((c for r, c, on in given if r == name and on is None), default=0)


def _devices(kind: int | None, gpus: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The device ids a group's instances register per-device resources on; None when they
    depend on the unknown host's GPUs."""
    if kind == KIND_GPU:
        return gpus
    if kind is None:
        return None
    return (0,)  # KIND_CPU and KIND_MODEL instances have device id 0


@model_rule(
    "TC732",
    severity=Severity.ERROR,
    summary="An instance needs more of a rate-limiter resource than --rate-limit-resource gives.",
    phase=Phase.INSTANCE,
    step=1,  # after the backend's instance init and the warmup data (TritonModelInstance)
    gate=gates.cache_metrics_rate_limiter,
)
def rate_limiter_resource_above_limit(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    With `--rate-limit-resource NAME:COUNT[:DEVICE]` (as given to tritonserver; repeatable, or
    `rate-limit-resource` in the configuration), reports an instance group whose
    `rate_limiter.resources` need more of a resource than the server provides. A resource the
    server is not given is limited to 0. Without `--rate-limit-resource` Triton sizes every
    resource to what the instances need, and there is nothing to check.

    ## Why it matters
    With `--rate-limit=execution_count` Triton fails the model when its instance registers
    with the rate limiter: `Resource count for "<r>" is limited to <n> which will prevent
    scheduling of one or more model instances, the minimum required count is <m>`.

    ## Example
    ```text
    # tritoncfg lint models/ --rate-limit execution_count --rate-limit-resource R:2
    instance_group [ { kind: KIND_CPU rate_limiter { resources [ { name: "R" count: 4 } ] } } ]
    ```

    ## Fix
    ```text
    # tritonserver ... --rate-limit-resource=R:4, or count: 2 in the config
    ```
    """
    given = ctx.options.rate_limit_resources
    if not given or ctx.options.rate_limit is False:
        return  # no explicit resources, or the server does not rate-limit
    config = ctx.config(model)
    for group in groups_of(model, ctx):
        if group.passive or group.index is None:
            continue  # passive instances register no resources; the default group has none
        devices = _devices(group.kind, group.gpus)
        written = config.instance_group[group.index]
        for r, resource in enumerate(written.rate_limiter.resources):
            for device, limit in _limits(
                given, resource.name, getattr(resource, "global"), devices
            ):
                if limit >= resource.count:
                    continue
                where = "" if device is None else f" on device {device}"
                yield Finding(
                    f"instance group {group.name} needs {resource.count} of rate-limiter resource "
                    f'"{resource.name}"{where}, but --rate-limit-resource gives '
                    f"{limit if limit else 'none'}; raise it on the server "
                    f"(--rate-limit-resource={resource.name}:{resource.count}) or lower the count",
                    at(
                        model,
                        "instance_group",
                        group.index,
                        "rate_limiter",
                        "resources",
                        r,
                        "count",
                        value=True,
                    ),
                    triton_message=f'Resource count for "{resource.name}" is limited to {limit} '
                    "which will prevent scheduling of one or more model instances, the minimum "
                    f"required count is {resource.count}",
                    severity=None if ctx.options.rate_limit else Severity.WARNING,
                )
                break  # one finding per resource
