"""TC508-TC512: VALIDATE for ensembles, the data flow between the steps of one config
(model_config_utils.cc), as `BuildEnsembleGraph` and `ValidateEnsembleSchedulingConfig` see it:
ensemble tensors are the `input_map`/`output_map` values, a step's outputs depend on all its inputs,
and what the ensemble inputs cannot reach is "not written" or "unused"."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig
from tritoncfg.text.bind import FieldPath
from tritoncfg.workspace import LoadedModel

PHASE = Phase.VALIDATE
ENSEMBLE = "ensemble"


def ensemble_scheduled(model: LoadedModel, ctx: CheckContext) -> bool:
    """`ensemble_scheduling` present and the platform is `ensemble`: the ensemble checks apply
    (a wrong platform is TC501, and the steps of such a model are not checked further)."""
    config = ctx.config(model)
    return config.HasField("ensemble_scheduling") and config.platform == ENSEMBLE


def step_path(index: int) -> FieldPath:
    return ("ensemble_scheduling", "step", index)


def map_path(index: int, which: str, key: str) -> FieldPath:
    """The entry `key` of a step's `input_map` or `output_map`."""
    return (*step_path(index), which, key)


def map_items(
    model: LoadedModel, index: int, which: str, entries: Mapping[str, str]
) -> list[tuple[str, str]]:
    """A step's `input_map` or `output_map` entries in the order the file writes them. A protobuf
    map iterates in no fixed order (Triton's C++ loop over it neither), and which entry comes
    first decides which one a finding points at ("already written by an earlier entry")."""
    items = list(entries.items())
    if len(items) < 2 or model.config is None:  # nothing to order, or no file to order by
        return sorted(items)
    span_of, prefix = model.config.span_of, (*step_path(index), which)  # `map_path`'s
    return sorted(items, key=lambda item: (span_of((*prefix, item[0])), item[0]))


@record(eq=False)
class Tensor:
    """An ensemble tensor: a node of `BuildEnsembleGraph`'s graph."""

    name: str
    path: FieldPath  # the map value that first names it
    written: bool = False  # some output_map writes it
    ready: bool = False  # reachable from the ensemble inputs
    prev: list[Tensor] = field(default_factory=list)  # the inputs of the step(s) writing it
    next: list[Tensor] = field(default_factory=list)  # the outputs of the steps reading it


@record
class DataFlow:
    tensors: dict[str, Tensor]  # in order of first mention
    rewritten: list[tuple[int, str, str]]  # (step, output_map key, tensor) written a second time

    def unconnected_source(self, tensor: Tensor) -> Tensor | None:
        """The not-ready tensor Triton names in the suffix of its "not written" message:
        follow the first not-ready predecessor upwards, each name once; None when the walk never
        leaves `tensor`."""
        seen: set[str] = set()
        last = tensor
        nodes: list[Tensor] | None = tensor.prev
        while nodes:
            candidates, nodes = nodes, None
            for node in candidates:
                if not node.ready and node.name not in seen:
                    seen.add(node.name)
                    last, nodes = node, node.prev
                    break
        return None if last.name == tensor.name else last


def data_flow(model: LoadedModel, config: ModelConfig) -> DataFlow:
    """Build the graph from every step (Triton stops at the first bad step; tritoncfg goes on so
    that every problem is reported) and mark what the ensemble inputs reach."""
    tensors: dict[str, Tensor] = {}
    rewritten: list[tuple[int, str, str]] = []
    for i, step in enumerate(config.ensemble_scheduling.step):
        outputs: list[Tensor] = []
        for key, value in map_items(model, i, "output_map", step.output_map):
            tensor = tensors.get(value)
            if tensor is None:
                tensor = tensors[value] = Tensor(value, (*map_path(i, "output_map", key), "value"))
            elif tensor.written:
                rewritten.append((i, key, value))
            tensor.written = True
            outputs.append(tensor)
        for key, value in map_items(model, i, "input_map", step.input_map):
            source = tensors.setdefault(
                value, Tensor(value, (*map_path(i, "input_map", key), "value"))
            )
            for output in outputs:
                output.prev.append(source)
                source.next.append(output)
    queue: deque[Tensor] = deque()
    for tensor_input in config.input:
        start = tensors.get(tensor_input.name)
        if start is not None:
            start.ready = True
            queue.append(start)
    while queue:
        for candidate in queue.popleft().next:
            if not candidate.ready and all(p.ready for p in candidate.prev):
                candidate.ready = True
                queue.append(candidate)
    return DataFlow(tensors, rewritten)


def _flow(model: LoadedModel, ctx: CheckContext) -> DataFlow | None:
    """The data flow when it is meaningful: every step has an input and an output map (TC507
    reports a step without one, and everything it would connect would be reported again)."""
    if not ensemble_scheduled(model, ctx):
        return None
    steps = ctx.config(model).ensemble_scheduling.step
    if not steps or any(not s.input_map or not s.output_map for s in steps):
        return None
    return flow_of(model, ctx)


def flow_of(model: LoadedModel, ctx: CheckContext) -> DataFlow:
    """The completed config's data flow, built once per model: five rules read it."""
    return ctx.memo(("ensemble-data-flow", id(model)), lambda: data_flow(model, ctx.config(model)))


@model_rule(
    "TC508",
    severity=Severity.ERROR,
    summary="The same ensemble tensor is an `output_map` value more than once.",
    phase=PHASE,
    gate=gates.ensemble,
)
def ensemble_tensor_written_twice(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble tensor that two `output_map` entries write, in one step or in two.

    ## Why it matters
    Each ensemble tensor has exactly one producer. Triton refuses the model: `ensemble tensor
    '<t>' can appear in an output map only once for ensemble '<model>' step <i>`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [
        { model_name: "a" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "X" } },
        { model_name: "b" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "X" } }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ensemble_scheduling {
      step [
        { model_name: "a" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "X" } },
        { model_name: "b" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "Y" } }
      ]
    }
    ```
    """
    if not ensemble_scheduled(model, ctx):
        return
    name = ctx.completion(model).name
    for step, key, tensor in flow_of(model, ctx).rewritten:
        yield Finding(
            f"ensemble tensor '{tensor}' is already written by an earlier output_map entry; "
            "give each step output its own ensemble tensor name",
            at(model, *map_path(step, "output_map", key), "value", value=True),
            triton_message=f"ensemble tensor '{tensor}' can appear in an output map only once "
            f"for ensemble '{name}' step {step}",
        )


@model_rule(
    "TC509",
    severity=Severity.ERROR,
    summary="An ensemble input that no step reads.",
    phase=PHASE,
    gate=gates.ensemble,
)
def unused_ensemble_input(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble `input` whose name is no `input_map` or `output_map` value of any step.

    ## Why it matters
    Clients would have to send a tensor that nothing uses. Triton refuses the model:
    `ensemble input '<in>' for ensemble <model>' is not used` (sic, with one quote).

    ## Example
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] }, { name: "EXTRA" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    flow = _flow(model, ctx)
    if flow is None:
        return
    name = ctx.completion(model).name
    for j, tensor in enumerate(ctx.config(model).input):
        if tensor.name not in flow.tensors:
            yield Finding(
                f"ensemble input '{tensor.name}' is not read by any step: map it in a step's "
                "input_map, or remove it",
                at(model, "input", j, "name", value=True),
                triton_message=f"ensemble input '{tensor.name}' for ensemble {name}' is not used",
            )


@model_rule(
    "TC510",
    severity=Severity.ERROR,
    summary="An ensemble output that no step writes.",
    phase=PHASE,
    gate=gates.ensemble,
)
def unmapped_ensemble_output(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble `output` whose name is no `output_map` or `input_map` value of any step.

    ## Why it matters
    Nothing would ever fill it. Triton refuses the model: `ensemble output '<out>' for ensemble
    <model>' is not used` (sic, with one quote).

    ## Example
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] }, { name: "MASK" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    flow = _flow(model, ctx)
    if flow is None:
        return
    name = ctx.completion(model).name
    for j, tensor in enumerate(ctx.config(model).output):
        if tensor.name not in flow.tensors:
            yield Finding(
                f"ensemble output '{tensor.name}' is not written by any step: map a step "
                "output to it in an output_map, or remove it",
                at(model, "output", j, "name", value=True),
                triton_message=f"ensemble output '{tensor.name}' for ensemble {name}' is not used",
            )


@model_rule(
    "TC511",
    severity=Severity.ERROR,
    summary="An ensemble output that the ensemble inputs cannot reach.",
    phase=PHASE,
    gate=gates.ensemble,
)
def unwritten_ensemble_output(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an ensemble output that steps name but that cannot be computed from the ensemble
    inputs: a step on its way reads a tensor that nothing writes, or reads its own output.

    ## Why it matters
    The step producing it could never run. Triton refuses the model: `output '<out>' for
    ensemble '<model>' is not written`, with `: at least one of its depending tensors, '<t>',
    is not connected` when it finds the tensor that breaks the chain.

    ## Example
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW_IMAGE" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    flow = _flow(model, ctx)
    if flow is None:
        return
    name = ctx.completion(model).name
    for j, output in enumerate(ctx.config(model).output):
        tensor = flow.tensors.get(output.name)
        if tensor is None or tensor.ready:
            continue
        source = flow.unconnected_source(tensor)
        triton = f"output '{output.name}' for ensemble '{name}' is not written"
        detail = "a step it depends on reads its own output"
        if source is not None:
            triton += f": at least one of its depending tensors, '{source.name}', is not connected"
            detail = f"it depends on '{source.name}', which no ensemble input or step provides"
        yield Finding(
            f"ensemble output '{output.name}' cannot be computed from the ensemble inputs: "
            f"{detail}; connect that tensor to an ensemble input or a step output",
            at(model, "output", j, "name", value=True),
            triton_message=triton,
        )


@model_rule(
    "TC512",
    severity=Severity.ERROR,
    summary="An ensemble tensor that is unreachable from the inputs or that no step reads.",
    phase=PHASE,
    gate=gates.ensemble,
)
def unused_ensemble_tensor(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each ensemble tensor, other than the ensemble outputs, that the ensemble inputs
    cannot reach (a step reads a name nothing writes) or that no step reads (a step output
    mapped to a name nobody uses). Leaving a step output out of `output_map` is fine.

    ## Why it matters
    Triton refuses the model: `ensemble tensor '<t>' is unused in ensemble '<model>'`. It names
    only one such tensor, picked in hash order; tritoncfg reports all of them.

    ## Example
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map [ { key: "OUT" value: "IMAGE" }, { key: "SCALE" value: "SCALE" } ] } ]
    }
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    output [ { name: "IMAGE" data_type: TYPE_FP32 dims: [ -1 ] } ]
    ensemble_scheduling {
      step [ { model_name: "preprocess" input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "IMAGE" } } ]
    }
    ```
    """
    flow = _flow(model, ctx)
    if flow is None:
        return
    config = ctx.config(model)
    name = ctx.completion(model).name
    outputs = {o.name for o in config.output}  # not-ready outputs are TC511's
    for tensor in flow.tensors.values():
        if tensor.name in outputs or (tensor.ready and tensor.next):
            continue
        why = (
            "no step reads it; remove that output_map entry or map the tensor into a step"
            if tensor.ready
            else "it cannot be computed from the ensemble inputs (nothing it depends on is "
            "written); connect it to an ensemble input or a step output"
        )
        yield Finding(
            f"ensemble tensor '{tensor.name}' is unused: {why}",
            at(model, *tensor.path, value=True),
            triton_message=f"ensemble tensor '{tensor.name}' is unused in ensemble '{name}'",
        )
