"""TC520-TC523: DEPS, the step models an ensemble depends on (model_repository_manager.cc:
`ConnectDependencyGraph`, `CircularDependencyCheck`, `CheckNode`). A step model is looked up
among the models of the same repository with `ctx.workspace.peer`, which loads it even when only
the ensemble was selected."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at, checkable
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.plan import plan_without
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.ensembles.flow import ENSEMBLE, ensemble_scheduled, step_path
from tritoncfg.checks.ensembles.graph import ModelKey, analyse, model_key
from tritoncfg.diagnostics import Severity
from tritoncfg.repository.version_selection import select_versions
from tritoncfg.workspace import LoadedModel

PHASE = Phase.DEPS

# When Triton meets a model's first error: at repository poll (the model never enters the
# dependency graph, so an ensemble naming it says "not available"), or while loading it.
_POLL = (Phase.PARSE, Phase.REPO, Phase.AUTOFILL, Phase.VALIDATE, Phase.NAME)
_POLL_STRICT = (
    Phase.PARSE,
    Phase.REPO,
    Phase.AUTOFILL,
    Phase.VALIDATE,
    Phase.VALIDATE_IO,
    Phase.NAME,
)
_LOAD = (
    Phase.VERSIONS,
    Phase.BACKEND_CREATE,
    Phase.VALIDATE_IO,
    Phase.MODEL_INIT,
    Phase.INSTANCE,
    Phase.SCHEDULER,
)
_LOAD_STRICT = (
    Phase.VERSIONS,
    Phase.BACKEND_CREATE,
    Phase.MODEL_INIT,
    Phase.INSTANCE,
    Phase.SCHEDULER,
)
_NOT_A_LOAD_ERROR = frozenset({Phase.DEPS, Phase.XMODEL, Phase.RUNTIME, Phase.BEST_PRACTICE})


def _upstreams(model: LoadedModel, ctx: CheckContext) -> list[tuple[int, LoadedModel]]:
    """The (step, model) edges of the dependency graph that leave `model`."""
    if not checkable(model, ctx.options) or not ctx.config(model).HasField("ensemble_scheduling"):
        return []
    found = []
    for i, step in enumerate(ctx.config(model).ensemble_scheduling.step):
        peer = ctx.workspace.peer(model, step.model_name) if step.model_name else None
        if peer is not None:
            found.append((i, peer))
    return found


def _reaches(model: LoadedModel, target: ModelKey, ctx: CheckContext) -> LoadedModel | None:
    """The model on a path from `model` whose step is `target` (depth first, in step order)."""
    seen: set[ModelKey] = set()
    stack = [model]
    while stack:
        current = stack.pop()
        ups = _upstreams(current, ctx)
        if any(model_key(up) == target for _, up in ups):
            return current
        for _, up in reversed(ups):
            if model_key(up) not in seen:
                seen.add(model_key(up))
                stack.append(up)
    return None


def _cycle(model: LoadedModel, ctx: CheckContext) -> tuple[int, str] | None:
    """(first step on the cycle, Triton's message) when `model` depends on itself."""
    key = model_key(model)
    for i, up in _upstreams(model, ctx):
        last = model if model_key(up) == key else _reaches(up, key, ctx)
        if last is not None:
            start = ctx.completion(model).name
            return i, (
                f"circular dependency between ensembles: {start} -> ... -> "
                f"{ctx.completion(last).name} -> {start}"
            )
    return None


def _first_errors(model: LoadedModel, ctx: CheckContext) -> tuple[str | None, str | None]:
    """Triton's message for the first error the other rules find at poll and at load."""
    return ctx.memo(("first-errors", id(model)), lambda: _compute_first_errors(model, ctx))


def _compute_first_errors(model: LoadedModel, ctx: CheckContext) -> tuple[str | None, str | None]:
    poll, load = (_POLL_STRICT, _LOAD_STRICT) if ctx.strict else (_POLL, _LOAD)
    first: dict[tuple[Phase, ...], tuple[tuple[int, int], str]] = {}
    # the DEPS/XMODEL rules would recurse here
    for rule, finding in plan_without(ctx, _NOT_A_LOAD_ERROR).findings(model, ctx):
        phase = finding.phase or rule.phase
        severity = finding.severity or rule.severity
        if severity is not Severity.ERROR or not finding.triton_message:
            continue
        for phases in (poll, load):
            if phase not in phases:
                continue
            rank = (phases.index(phase), rule.step)  # ties: the rule registered first
            if phases not in first or rank < first[phases][0]:
                first[phases] = (rank, finding.triton_message)
    return (
        first[poll][1] if poll in first else None,
        first[load][1] if load in first else None,
    )


def step_failure(
    peer: LoadedModel, ctx: CheckContext, visiting: frozenset[ModelKey]
) -> tuple[str, str] | None:
    """How a step model fails, as ("poll" | "deps" | "load", Triton's message), or None."""
    poll, load = _first_errors(peer, ctx)
    if poll is not None:
        return "poll", poll
    config = ctx.config(peer)
    if config.HasField("ensemble_scheduling") and config.platform == ENSEMBLE:
        if model_key(peer) in visiting:
            return None  # a cycle, reported by TC521
        message = dependency_error(peer, ctx, visiting)
        if message is not None:
            return "deps", message
    return None if load is None else ("load", load)


def _failure_message(ensemble: str, step_model: str, stage: str, error: str) -> str:
    if stage == "poll":  # never entered the dependency graph
        return (
            f"ensemble {ensemble} contains models that are not available or ambiguous: {step_model}"
        )
    if stage == "deps":
        return (
            f"ensemble '{ensemble}' depends on '{step_model}' which is not valid. "
            f"Model '{step_model}' failed with error: {error}"
        )
    return (
        f"ensemble '{ensemble}' depends on '{step_model}' which has no loaded version. "
        f"Model '{step_model}' loading failed with error: {error}"
    )


def _missing_version(peer: LoadedModel, version: int, ctx: CheckContext) -> bool:
    loaded = select_versions(ctx.config(peer).version_policy, peer.dir.version_numbers).selected
    return bool(loaded) and version not in loaded  # none loaded at all is TC522's


def dependency_error(
    model: LoadedModel, ctx: CheckContext, visiting: frozenset[ModelKey] = frozenset()
) -> str | None:
    """The first DEPS or XMODEL error of an ensemble, as Triton logs it (for an ensemble that is
    itself a step: Triton quotes it when the outer ensemble fails)."""
    name = ctx.completion(model).name
    steps = ctx.config(model).ensemble_scheduling.step
    for step in steps:
        if step.model_name and ctx.workspace.peer(model, step.model_name) is None:
            return (
                f"ensemble {name} contains models that are not available or ambiguous: "
                f"{step.model_name}"
            )
    cycle = _cycle(model, ctx)
    if cycle is not None:
        return cycle[1]
    inner = visiting | {model_key(model)}
    for _, peer in _upstreams(model, ctx):
        failure = step_failure(peer, ctx, inner)
        if failure is not None:
            return _failure_message(name, peer.name, *failure)
    for step in steps:
        required = ctx.workspace.peer(model, step.model_name) if step.model_name else None
        version = step.model_version
        if required is not None and version != -1 and _missing_version(required, version, ctx):
            return (
                f"ensemble '{name}' depends on '{required.name}' whose required version "
                f"{version} is not loaded."
            )
    errors = [p for p in analyse(model, ctx, visiting).problems if p.severity is None]
    return errors[0].triton_message if errors else None


@model_rule(
    "TC520",
    severity=Severity.ERROR,
    summary="An ensemble step names a model that is not in the repository.",
    phase=PHASE,
    gate=gates.ensemble,
)
def step_model_not_found(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each ensemble step whose `model_name` is not a model directory of the same
    repository.

    ## Why it matters
    Triton does not load the ensemble: `ensemble <ensemble> contains models that are not
    available or ambiguous: <model>`.

    ## Example
    ```text
    model_repository/
      pipeline/config.pbtxt      step [ { model_name: "preprocessing" ... } ]
      preprocess/config.pbtxt
    ```

    ## Fix
    Name the directory that exists (`model_name: "preprocess"`), or add the missing model.
    """
    if not ensemble_scheduled(model, ctx):
        return
    name = ctx.completion(model).name
    for i, step in enumerate(ctx.config(model).ensemble_scheduling.step):
        if step.model_name and ctx.workspace.peer(model, step.model_name) is None:
            yield Finding(
                f"step {i} runs model '{step.model_name}', which is not in the repository "
                f"{model.repository.root}; fix the name or add the model",
                at(model, *step_path(i), "model_name", value=True),
                triton_message=f"ensemble {name} contains models that are not available or "
                f"ambiguous: {step.model_name}",
            )


@model_rule(
    "TC521",
    severity=Severity.ERROR,
    summary="An ensemble depends on itself, directly or through other ensembles.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_dependency_cycle(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble that is one of its own steps, or a step of an ensemble it runs.

    ## Why it matters
    Triton loads an ensemble only after its steps, so a cycle never loads: `circular dependency
    between ensembles: <ensemble> -> ... -> <last> -> <ensemble>`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "m" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    if not ensemble_scheduled(model, ctx):
        return
    cycle = _cycle(model, ctx)
    if cycle is not None:
        i, message = cycle
        yield Finding(
            f"this ensemble depends on itself ({message.split(': ', 1)[1]}); "
            "an ensemble cannot be a step of itself, directly or through other ensembles",
            at(model, *step_path(i), "model_name", value=True),
            triton_message=message,
        )


@model_rule(
    "TC522",
    severity=Severity.ERROR,
    summary="An ensemble step runs a model that fails to load.",
    phase=PHASE,
    gate=gates.ensemble,
)
def step_model_invalid(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports the first step that runs each model which Triton would not load: its config does
    not parse or fails validation, it has no version to load, or it is an ensemble that fails
    its own dependency checks. The step model's own errors are reported on its config.

    ## Why it matters
    The ensemble fails with its step. A model rejected at repository poll never becomes
    available (`ensemble <e> contains models that are not available or ambiguous: <m>`); one
    that fails to load gives `ensemble '<e>' depends on '<m>' which has no loaded version.
    Model '<m>' loading failed with error: ...`; a failing inner ensemble gives `ensemble '<e>'
    depends on '<m>' which is not valid. Model '<m>' failed with error: ...`.

    ## Example
    ```text
    model_repository/
      pipeline/config.pbtxt      step [ { model_name: "preprocess" ... } ]
      preprocess/config.pbtxt    max_batch_size: -1
    ```

    ## Fix
    Fix the step model's own errors (`tritoncfg lint model_repository/preprocess`).
    """
    if not ensemble_scheduled(model, ctx):
        return
    name = ctx.completion(model).name
    seen: set[ModelKey] = set()
    for i, peer in _upstreams(model, ctx):
        key = model_key(peer)
        if key in seen or key == model_key(model) or _reaches(peer, model_key(model), ctx):
            continue  # reported once; a cycle is TC521's
        seen.add(key)
        failure = step_failure(peer, ctx, frozenset({model_key(model)}))
        if failure is not None:
            stage, error = failure
            yield Finding(
                f"step {i} runs model '{peer.name}', which Triton would not load ({error}); "
                f"fix that model first",
                at(model, *step_path(i), "model_name", value=True),
                triton_message=_failure_message(name, peer.name, stage, error),
            )


@model_rule(
    "TC523",
    severity=Severity.ERROR,
    summary="A step asks for a `model_version` that the step model does not load.",
    phase=PHASE,
    gate=gates.ensemble,
)
def step_model_version_not_loaded(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a step with `model_version` other than -1 (latest) when the step model has no
    such version directory, or its `version_policy` does not load it.

    ## Why it matters
    Triton does not load the ensemble: `ensemble '<e>' depends on '<m>' whose required version
    <v> is not loaded.`

    ## Example
    ```text
    model_repository/
      pipeline/config.pbtxt      step [ { model_name: "preprocess" model_version: 2 ... } ]
      preprocess/1/model.py      (no preprocess/2/)
    ```

    ## Fix
    Use `model_version: -1`, or add `preprocess/2/` and a `version_policy` that loads it.
    """
    if not ensemble_scheduled(model, ctx):
        return
    name = ctx.completion(model).name
    seen: set[tuple[str, int]] = set()
    for i, step in enumerate(ctx.config(model).ensemble_scheduling.step):
        peer = ctx.workspace.peer(model, step.model_name) if step.model_name else None
        version = step.model_version
        if peer is None or version == -1 or not checkable(peer, ctx.options):
            continue
        if (peer.name, version) in seen or not _missing_version(peer, version, ctx):
            continue
        seen.add((peer.name, version))
        loaded = select_versions(ctx.config(peer).version_policy, peer.dir.version_numbers)
        listed = ", ".join(str(v) for v in loaded.selected)
        yield Finding(
            f"step {i} asks for version {version} of model '{peer.name}', but Triton loads only "
            f"version(s) {listed} of it; add '{peer.name}/{version}/' (and a version_policy "
            "that loads it) or use model_version: -1 for the latest",
            at(model, *step_path(i), "model_version", value=True),
            triton_message=f"ensemble '{name}' depends on '{peer.name}' whose required version "
            f"{version} is not loaded.",
        )
