"""TC501-TC507: VALIDATE for ensembles, the shape of one config on its own (model_config_utils.cc:
`ValidateEnsembleSchedulingConfig`, `BuildEnsembleGraph`). The data flow between the steps
is checked in `flow` (TC508-TC512), the step models in `deps` (DEPS) and
`xmodel` (XMODEL)."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.ensembles.flow import ENSEMBLE, ensemble_scheduled, step_path
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel

PHASE = Phase.VALIDATE


@model_rule(
    "TC501",
    severity=Severity.ERROR,
    summary="`ensemble_scheduling` is set on a model whose platform is not `ensemble`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_scheduling_on_non_ensemble(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `ensemble_scheduling` in a model whose platform (after auto-complete) is not
    `ensemble`.

    ## Why it matters
    Only ensembles have steps. Triton refuses the model: `ensemble scheduling cannot be set for
    model '<model>' whose platform is not ensemble`.

    ## Example
    ```pbtxt
    backend: "python"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    ```
    """
    config = ctx.config(model)
    if config.HasField("ensemble_scheduling") and config.platform != ENSEMBLE:
        platform = f"'{config.platform}'" if config.platform else "empty"
        yield Finding(
            f"ensemble_scheduling is set but the platform is {platform}, not 'ensemble'; write "
            'platform: "ensemble" (and no backend) for an ensemble, or remove ensemble_scheduling',
            at(model, "ensemble_scheduling"),
            triton_message=f"ensemble scheduling cannot be set for model '{config.name}' "
            "whose platform is not ensemble",
        )


@model_rule(
    "TC502",
    severity=Severity.ERROR,
    summary='`platform: "ensemble"` without `ensemble_scheduling`.',
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_without_scheduling(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble (`platform: "ensemble"`) that has no `ensemble_scheduling` block.

    ## Why it matters
    The steps are what an ensemble runs. Triton refuses the model: `ensemble scheduling must be
    set for ensemble <model> whose platform is ensemble`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    config = ctx.config(model)
    if config.platform == ENSEMBLE and not config.HasField("ensemble_scheduling"):
        yield Finding(
            "this ensemble has no ensemble_scheduling: add ensemble_scheduling { step [...] } with "
            "the models to run, or set the platform/backend of a single model",
            at(model, "platform", value=True),
            triton_message=f"ensemble scheduling must be set for ensemble {config.name} "
            "whose platform is ensemble",
        )


def _written(model: LoadedModel) -> ModelConfig:
    """The config as written: Triton's own defaults never add these fields to an ensemble."""
    return model.config.message if model.config is not None else ModelConfig()


def _not_for_ensembles(
    model: LoadedModel, ctx: CheckContext, field: str, triton_message: str
) -> Iterator[Finding]:
    if ensemble_scheduled(model, ctx):
        yield Finding(
            f"{field} is set on an ensemble; an ensemble runs no instances of its own (its steps "
            f"do), so remove {field} here and set it on the step models",
            at(model, field),
            triton_message=triton_message,
        )


@model_rule(
    "TC503",
    severity=Severity.ERROR,
    summary="An ensemble has `instance_group`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_instance_group(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `instance_group` in an ensemble.

    ## Why it matters
    An ensemble only routes tensors between its steps; the steps have the instances. Triton
    refuses the model: `instance group should not be specified for ensemble '<model>'`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    instance_group [ { kind: KIND_GPU count: 2 } ]
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    if _written(model).instance_group:
        name = ctx.completion(model).name
        yield from _not_for_ensembles(
            model,
            ctx,
            "instance_group",
            f"instance group should not be specified for ensemble '{name}'",
        )


@model_rule(
    "TC504",
    severity=Severity.ERROR,
    summary="An ensemble has `optimization`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_optimization(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `optimization` block in an ensemble, even an empty one.

    ## Why it matters
    Optimization settings (graph optimizers, CUDA graphs, pinned memory) belong to the models
    that run. Triton refuses the model: `optimization should not be specified for ensemble
    '<model>'`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    optimization { priority: PRIORITY_MAX }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    if _written(model).HasField("optimization"):
        name = ctx.completion(model).name
        yield from _not_for_ensembles(
            model,
            ctx,
            "optimization",
            f"optimization should not be specified for ensemble '{name}'",
        )


@model_rule(
    "TC505",
    severity=Severity.ERROR,
    summary="An ensemble has `model_warmup`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_model_warmup(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `model_warmup` entries in an ensemble.

    ## Why it matters
    Warmup runs requests through model instances, and an ensemble has none. Triton refuses the
    model: `model_warmup can not be specified for ensemble '<model>'`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    model_warmup [ { name: "zeros" batch_size: 1 } ]
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    if _written(model).model_warmup:
        name = ctx.completion(model).name
        yield from _not_for_ensembles(
            model, ctx, "model_warmup", f"model_warmup can not be specified for ensemble '{name}'"
        )


@model_rule(
    "TC506",
    severity=Severity.ERROR,
    summary="`ensemble_scheduling` has no `step`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_without_steps(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble whose `ensemble_scheduling` lists no step.

    ## Why it matters
    Triton refuses the model: `must specify 'step' for ensemble '<model>'`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling { }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    config = ctx.config(model)
    if ensemble_scheduled(model, ctx) and not config.ensemble_scheduling.step:
        yield Finding(
            "ensemble_scheduling has no step: add a step [ { model_name ... input_map ... "
            "output_map ... } ] for each model the ensemble runs",
            at(model, "ensemble_scheduling", "step"),
            triton_message=f"must specify 'step' for ensemble '{config.name}'",
        )


@model_rule(
    "TC507",
    severity=Severity.ERROR,
    summary="An ensemble step lacks `model_name`, `input_map` or `output_map`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def incomplete_ensemble_step(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each ensemble step that has no `model_name`, no `input_map` entry or no
    `output_map` entry. Steps are numbered from 0, as in Triton's message.

    ## Why it matters
    Every step must run a model, feed it at least one tensor and take at least one tensor from
    it. Triton refuses the model: `must specify 'input_map' in step <i> of ensemble '<model>'`
    (or `'model_name'`, `'output_map'`).

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [ { model_name: "preprocess" output_map { key: "OUT" value: "IMAGE" } } ]
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
    config = ctx.config(model)
    for i, step in enumerate(config.ensemble_scheduling.step):
        missing = [
            field
            for field, present in (
                ("model_name", bool(step.model_name)),
                ("input_map", bool(step.input_map)),
                ("output_map", bool(step.output_map)),
            )
            if not present
        ]
        for field in missing:
            what = {
                "model_name": "the model it runs",
                "input_map": "which ensemble tensors feed the model's inputs",
                "output_map": "which ensemble tensors receive the model's outputs",
            }[field]
            yield Finding(
                f"step {i} has no {field}: add {field} to say {what}",
                at(model, *step_path(i)),
                triton_message=f"must specify '{field}' in step {i} of ensemble '{config.name}'",
            )
