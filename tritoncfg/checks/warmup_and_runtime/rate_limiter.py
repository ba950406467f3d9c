"""TC731: INSTANCE. A rate-limiter resource shared by all the models of a repository
(rate_limiter.cc: `RateLimiter::RegisterModelInstance`), global in one place and per-device in
another."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at, checkable
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.warmup_and_runtime.parameters import is_ensemble
from tritoncfg.diagnostics import Severity
from tritoncfg.repository import ModelDir, RepositoryError
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel


def _rate_limited_resources(config: ModelConfig) -> Iterator[tuple[int, int, str, bool]]:
    """(group, resource, name, global) of every resource an instance registers with the rate
    limiter; passive instances register none, ensembles have no instances."""
    if is_ensemble(config):
        return
    for g, group in enumerate(config.instance_group):
        if group.passive:
            continue
        for r, resource in enumerate(group.rate_limiter.resources):
            yield g, r, resource.name, getattr(resource, "global")


def _peers(model: LoadedModel, ctx: CheckContext) -> Iterator[LoadedModel]:
    """Every model that may create instances with resources (they share one rate limiter): its
    config parses, it has a version to load, and its text names `resources`. Linting a whole
    repository, that is every model of it; linting files or model directories (pre-commit), the
    linted ones, so that one file stays fast."""
    whole = model.repository.kind == "repository"
    loaded = {m.dir.path for m in ctx.workspace.models}
    for other in model.repository.all_models if whole else model.repository.models:
        if other.path not in loaded and not _may_name_resources(other, ctx):
            ctx.workspace.asked.add(other.name)  # a dependency all the same (the cache's)
            continue
        peer = ctx.workspace.peer(model, other.name)
        if peer is not None and peer.dir.versions and checkable(peer, ctx.options):
            yield peer


def _may_name_resources(other: ModelDir, ctx: CheckContext) -> bool:
    """Whether a model not parsed yet may declare rate-limiter resources, from its raw text: a
    field is only ever set by writing its name (a JSON key may hide it behind a `\\u` escape).
    Reading a file is some 20 times cheaper than parsing it, and the index would otherwise parse
    every config of the repository in each process of a pool."""
    override = ctx.workspace.overrides.get(str(other.config_path))
    try:
        text = override.encode() if override is not None else other.read_config_bytes()
    except RepositoryError:
        return True  # loading it reports why
    return b"resources" in text or b"\\u" in text


def _resource_index(
    model: LoadedModel, ctx: CheckContext
) -> dict[tuple[str, bool], list[tuple[LoadedModel, int]]]:
    """(resource name, global) -> where it is registered, over the whole repository (built once)."""
    index: dict[tuple[str, bool], list[tuple[LoadedModel, int]]] = {}
    for peer in _peers(model, ctx):
        for g, _, name, is_global in _rate_limited_resources(ctx.config(peer)):
            index.setdefault((name, is_global), []).append((peer, g))
    return index


@model_rule(
    "TC731",
    severity=Severity.WARNING,
    summary="A rate-limiter resource is global in one place and per-device in another.",
    phase=Phase.INSTANCE,
    step=2,  # ValidateMaxResources runs after the explicit resources are checked (TC732)
    gate=gates.cache_metrics_rate_limiter,
)
def rate_limiter_resource_global_and_per_device(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `instance_group.rate_limiter.resources` entry whose name is `global: true` in
    one place and per-device (`global: false`) in another, in this model or in any other
    model of the repository.

    ## Why it matters
    With `--rate-limit=execution_count` Triton fails the instance that registers the second
    kind: `Resource "<r>" is present as both global and device-specific resource in the model
    configuration.` Without that option resources are ignored, hence a warning: tritoncfg
    cannot know how the server is started.

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [
      { kind: KIND_CPU rate_limiter { resources [ { name: "R" global: true count: 1 } ] } },
      { kind: KIND_CPU rate_limiter { resources [ { name: "R" count: 1 } ] } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [
      { kind: KIND_CPU rate_limiter { resources [ { name: "R" global: true count: 1 } ] } },
      { kind: KIND_CPU rate_limiter { resources [ { name: "R" global: true count: 1 } ] } } ]
    ```
    """
    own = list(_rate_limited_resources(ctx.config(model)))
    if not own or not model.dir.versions:
        return
    index = ctx.memo(
        ("rate-limiter-resources", id(model.repository)), lambda: _resource_index(model, ctx)
    )
    for g, r, name, is_global in own:
        others = [
            f"instance_group {group}" + ("" if peer is model else f" of model '{peer.name}'")
            for peer, group in index.get((name, not is_global), [])
        ]
        if not others:
            continue
        here, there = ("global", "per-device") if is_global else ("per-device", "global")
        yield Finding(
            f'rate-limiter resource "{name}" is {here} here but {there} in '
            f"{', '.join(sorted(set(others)))}; with --rate-limit=execution_count Triton fails "
            "the load: make it global everywhere or nowhere",
            at(model, "instance_group", g, "rate_limiter", "resources", r, "name", value=True),
            triton_message=f'Resource "{name}" is present as both global and device-specific '
            "resource in the model configuration.",
            # an error only where the server rate-limits (--rate-limit=execution_count)
            severity=Severity.ERROR if ctx.options.rate_limit else None,
        )
