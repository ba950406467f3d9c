"""TC530-TC537: XMODEL, an ensemble against the completed configs of its step models
(ensemble_utils.cc: `ValidateEnsembleConfig`). The graph is built by `graph.analyse`; each
rule reports its part."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.ensembles.flow import ensemble_scheduled
from tritoncfg.checks.ensembles.graph import StepProblem, analyse
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import ModelEnsembling
from tritoncfg.workspace import LoadedModel

PHASE = Phase.XMODEL


def _findings(model: LoadedModel, ctx: CheckContext, kind: StepProblem) -> Iterator[Finding]:
    if not ensemble_scheduled(model, ctx) or not ctx.config(model).ensemble_scheduling.step:
        return
    for problem in analyse(model, ctx).problems:
        if problem.kind is kind:
            yield Finding(
                problem.message,
                at(model, *problem.path, value=problem.value),
                triton_message=problem.triton_message,
                severity=problem.severity,
            )


def _steps(model: LoadedModel, ctx: CheckContext) -> list[ModelEnsembling.Step]:
    return list(ctx.config(model).ensemble_scheduling.step)


def _python_step(model: LoadedModel, ctx: CheckContext, name: str) -> bool:
    peer = ctx.workspace.peer(model, name) if name else None
    return peer is not None and ctx.config(peer).backend == "python"


@model_rule(
    "TC530",
    severity=Severity.ERROR,
    summary="A batching step model allows smaller batches than the ensemble's max_batch_size.",
    phase=PHASE,
    gate=gates.ensemble,
)
def step_batch_size_too_small(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a step whose model has `max_batch_size` above 0 but below the ensemble's. A
    non-batching step (`max_batch_size: 0`) is allowed: its shapes must then include the batch
    dimension (TC535).

    ## Why it matters
    A full batch sent to the ensemble could not be passed on. Triton does not load the ensemble:
    `ensemble <e> allows maximum batch size <E>, but it contains model <m> which only allows
    maximum batch size to be <M>`.

    ## Example
    ```text
    pipeline/config.pbtxt      max_batch_size: 8   step [ { model_name: "preprocess" ... } ]
    preprocess/config.pbtxt    max_batch_size: 4
    ```

    ## Fix
    Give the ensemble `max_batch_size: 4`, or let `preprocess` take batches of 8.
    """
    return _findings(model, ctx, StepProblem.BATCH_SIZE_TOO_SMALL)


@model_rule(
    "TC531",
    severity=Severity.ERROR,
    summary="An `input_map` key that is not an input of the step model.",
    phase=PHASE,
    gate=gates.ensemble,
)
def input_map_unknown_input(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input_map` key (the step model's input name) that the step model's completed
    config does not have. When the step model's config lists no inputs and its backend
    (ONNX Runtime, TensorRT, TensorFlow, OpenVINO, Python, DALI) would take them from the model
    file, tritoncfg cannot tell, and says so (info).

    ## Why it matters
    Triton does not load the ensemble: `in ensemble <e>, ensemble tensor <t> is mapping to
    non-existing input <i> in model <m>`.

    ## Example
    ```text
    pipeline/config.pbtxt      step [ { model_name: "preprocess" input_map { key: "INPUT" value: "RAW" } ... } ]
    preprocess/config.pbtxt    input [ { name: "IN" ... } ]
    ```

    ## Fix
    Use the step model's input name as the key: `input_map { key: "IN" value: "RAW" }`.
    """
    return _findings(model, ctx, StepProblem.UNKNOWN_INPUT)


@model_rule(
    "TC532",
    severity=Severity.ERROR,
    summary="An `output_map` key that is not an output of the step model.",
    phase=PHASE,
    gate=gates.ensemble,
)
def output_map_unknown_output(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `output_map` key (the step model's output name) that the step model's completed
    config does not have (info instead when its backend would fill the outputs in from the model
    file, as for TC531). Outputs left out of `output_map` are fine.

    ## Why it matters
    Triton does not load the ensemble: `in ensemble <e>, ensemble tensor <t> is mapped from
    non-existing output <o> in model <m>`.

    ## Example
    ```text
    pipeline/config.pbtxt      step [ { model_name: "preprocess" ... output_map { key: "OUTPUT" value: "IMAGE" } } ]
    preprocess/config.pbtxt    output [ { name: "OUT" ... } ]
    ```

    ## Fix
    Use the step model's output name as the key: `output_map { key: "OUT" value: "IMAGE" }`.
    """
    return _findings(model, ctx, StepProblem.UNKNOWN_OUTPUT)


@model_rule(
    "TC533",
    severity=Severity.ERROR,
    summary="A required input of a step model is missing from the step's `input_map`.",
    phase=PHASE,
    gate=gates.ensemble,
)
def step_input_not_mapped(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each input of a step model that the step's `input_map` does not feed, unless that
    input is `optional: true`.

    ## Why it matters
    The step model could never be called with all its inputs. Triton does not load the
    ensemble: `in ensemble <e>, input <i> in model <m> is not mapped to any ensemble tensors`.

    ## Example
    ```text
    pipeline/config.pbtxt      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } ... } ]
    preprocess/config.pbtxt    input [ { name: "IN" ... }, { name: "SCALE" ... } ]
    ```

    ## Fix
    Map every input (`input_map { key: "SCALE" value: "SCALE" }`), or make it `optional: true`
    in the step model.
    """
    return _findings(model, ctx, StepProblem.INPUT_NOT_MAPPED)


@model_rule(
    "TC534",
    severity=Severity.ERROR,
    summary="Models disagree on the data type of an ensemble tensor.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_tensor_type_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble tensor whose data type differs between the models that write and read
    it: the ensemble's own inputs and outputs, and the step models' inputs and outputs mapped
    to it. The first definition (ensemble inputs, then outputs, then the steps in order) wins.

    ## Why it matters
    Triton does not convert types between steps and does not load the ensemble: `in ensemble
    <e>, ensemble tensor <t>: inconsistent data type: <A> is inferred from model <a> while <B>
    is inferred from model <b>`.

    ## Example
    ```text
    pipeline/config.pbtxt      input [ { name: "RAW" data_type: TYPE_FP32 ... } ]  step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } ... } ]
    preprocess/config.pbtxt    input [ { name: "IN" data_type: TYPE_UINT8 ... } ]
    ```

    ## Fix
    Make the types agree (here `data_type: TYPE_UINT8` for the ensemble input), or add a step
    that converts.
    """
    return _findings(model, ctx, StepProblem.TYPE_MISMATCH)


@model_rule(
    "TC535",
    severity=Severity.ERROR,
    summary="Models disagree on the shape of an ensemble tensor.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_tensor_shape_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble tensor whose dims differ between the models that write and read it.
    A -1 matches any size. When the dims differ, they are compared again with the batch
    dimension written out (-1 first for a model with `max_batch_size` > 0), so a non-batching
    step with `[-1, 16]` matches a batching one with `[16]`. The ensemble's own inputs and
    outputs count with their `reshape` when they have one.

    ## Why it matters
    Triton does not load the ensemble: `in ensemble <e>, ensemble tensor <t>: inconsistent
    shape: [-1,16] is inferred from model <a> while [-1,16,16,16] is inferred from model <b>`.

    ## Example
    ```text
    pipeline/config.pbtxt      max_batch_size: 4  step [ { model_name: "a" ... output_map { key: "OUT" value: "X" } }, { model_name: "b" input_map { key: "IN" value: "X" } ... } ]
    a/config.pbtxt             max_batch_size: 4  output [ { name: "OUT" dims: [ 16 ] ... } ]
    b/config.pbtxt             max_batch_size: 4  input [ { name: "IN" dims: [ 16, 16, 16 ] ... } ]
    ```

    ## Fix
    Make the dims agree, or use -1 where the size varies.
    """
    return _findings(model, ctx, StepProblem.SHAPE_MISMATCH)


@model_rule(
    "TC536",
    severity=Severity.ERROR,
    summary="A step combines tensors that come from different decoupled models.",
    phase=PHASE,
    gate=gates.ensemble,
)
def mixed_decoupled_inputs(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a step (or the ensemble's outputs) fed by tensors from different decoupled steps,
    or from a decoupled step and a non-decoupled path. Each decoupled step's outputs start a
    new stream of responses, and responses of different streams cannot be paired.

    ## Why it matters
    Triton does not load the ensemble: `in ensemble <e>, step of model '<m>' receives inputs
    originated from different decoupled models`. `<m>` is the model that first names the
    tensor, possibly the ensemble itself.

    ## Example
    ```text
    pipeline/config.pbtxt      step [ { model_name: "generate" ... output_map { key: "OUT" value: "A" } },
                                      { model_name: "generate" ... output_map { key: "OUT" value: "B" } },
                                      { model_name: "join" input_map [ { key: "X" value: "A" }, { key: "Y" value: "B" } ] ... } ]
    generate/config.pbtxt      model_transaction_policy { decoupled: true }
    ```

    ## Fix
    Feed each step from one decoupled step only, e.g. let one `generate` step produce both.
    """
    return _findings(model, ctx, StepProblem.MIXED_DECOUPLED)


@model_rule(
    "TC537",
    severity=Severity.WARNING,
    summary="An ensemble sets `decoupled: true`, which Triton overwrites from its steps.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_decoupled_overridden(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `model_transaction_policy { decoupled: true }` in an ensemble none of whose steps
    is decoupled.

    ## Why it matters
    Triton ignores the setting: it makes an ensemble decoupled exactly when one of its steps
    is (`ValidateEnsembleConfig`). This ensemble sends one response per request, whatever the
    config says.

    ## Example
    ```text
    pipeline/config.pbtxt      model_transaction_policy { decoupled: true }  step [ { model_name: "preprocess" ... } ]
    preprocess/config.pbtxt    (not decoupled)
    ```

    ## Fix
    Remove `model_transaction_policy` from the ensemble; make the step model decoupled if it
    should stream responses.
    """
    if not ensemble_scheduled(model, ctx) or model.config is None:
        return
    if not model.config.message.model_transaction_policy.decoupled:
        return
    if not ctx.strict and any(_python_step(model, ctx, s.model_name) for s in _steps(model, ctx)):
        return  # a python step's auto_complete_config may make it decoupled
    if not analyse(model, ctx).decoupled:
        yield Finding(
            "decoupled: true has no effect on an ensemble: Triton makes an ensemble decoupled "
            "only when one of its steps is, and none is here; remove it, or make the step that "
            "streams responses decoupled",
            at(model, "model_transaction_policy", "decoupled", value=True),
        )
