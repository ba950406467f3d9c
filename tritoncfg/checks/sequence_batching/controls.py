"""TC6xx: sequence batching, as `ValidateModelConfig` checks it (model_config_utils.cc).

Triton checks the control inputs in four passes, START, END, READY (boolean controls) and then
CORRID (typed), and stops at the first problem; these rules report every problem of every pass.
Here: control names and kinds, and the oldest/direct strategies; the control values are in
`control_values`, the implicit state in `state`."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.record import record
from tritoncfg.schema import ModelSequenceBatching
from tritoncfg.text.span import Span
from tritoncfg.workspace import LoadedModel

PHASE = Phase.VALIDATE
Control = ModelSequenceBatching.Control
BOOLEAN_KINDS = (
    Control.CONTROL_SEQUENCE_START,
    Control.CONTROL_SEQUENCE_END,
    Control.CONTROL_SEQUENCE_READY,
)
PASS_ORDER = (*BOOLEAN_KINDS, Control.CONTROL_SEQUENCE_CORRID)  # Triton's order of the passes
FALSE_TRUE = ("int32_false_true", "fp32_false_true", "bool_false_true")
OLDEST_SIZES = ("sequence_batching", "oldest", "preferred_batch_size")


@record(frozen=True)
class SequenceControl:
    """One `control` of one `control_input`, with where it is written."""

    input_index: int
    index: int
    tensor: str
    control: ModelSequenceBatching.Control

    @property
    def kind_name(self) -> str:
        return Control.Kind.Name(self.control.kind)

    @property
    def arrays(self) -> list[str]:
        """The false/true arrays it sets, in Triton's order of preference."""
        return [name for name in FALSE_TRUE if len(getattr(self.control, name))]

    def span(self, model: LoadedModel, *field: str) -> Span:
        path = ("sequence_batching", "control_input", self.input_index, "control", self.index)
        return at(model, *path, *(field or ("kind",)), value=True)


def sequence_batching(model: LoadedModel, ctx: CheckContext) -> ModelSequenceBatching | None:
    config = ctx.config(model)
    return config.sequence_batching if config.HasField("sequence_batching") else None


def controls(model: LoadedModel, ctx: CheckContext) -> list[SequenceControl]:
    """The controls that Triton's passes look at, in pass order (unknown kinds are ignored)."""
    batcher = sequence_batching(model, ctx)
    if batcher is None:
        return []
    found = [
        SequenceControl(i, j, control_input.name, control)
        for i, control_input in enumerate(batcher.control_input)
        for j, control in enumerate(control_input.control)
    ]
    return [c for kind in PASS_ORDER for c in found if c.control.kind == kind]


def for_model(model: LoadedModel, ctx: CheckContext) -> str:
    return f" for {ctx.completion(model).name}"


@model_rule(
    "TC601",
    severity=Severity.ERROR,
    summary="A sequence_batching control_input has no name.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def sequence_control_input_without_name(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `sequence_batching.control_input` without a `name`.

    ## Why it matters
    The name is the model input tensor that receives the control value. Triton refuses the
    model: `sequence batching control tensor must have a name for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```
    """
    batcher = sequence_batching(model, ctx)
    if batcher is None:
        return
    for index, control_input in enumerate(batcher.control_input):
        if not control_input.name:
            yield Finding(
                "control_input has no name; set it to the model input that receives the control",
                at(model, "sequence_batching", "control_input", index, "name"),
                triton_message="sequence batching control tensor must have a name"
                + for_model(model, ctx),
            )


@model_rule(
    "TC602",
    severity=Severity.ERROR,
    summary="Two sequence_batching control_input entries name the same tensor.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def duplicate_sequence_control_tensor(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `control_input` whose `name` an earlier `control_input` already uses.

    ## Why it matters
    One tensor cannot carry two controls. Triton refuses the model: `sequence batching control
    tensor '<name>' is specified for multiple control kinds for <model>`. To give one tensor
    several controls, list them in one `control_input`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
        { name: "START" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
        { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```
    """
    batcher = sequence_batching(model, ctx)
    if batcher is None:
        return
    seen: set[str] = set()
    for index, control_input in enumerate(batcher.control_input):
        name = control_input.name
        if name in seen:
            yield Finding(
                f"control tensor '{name}' is already a control_input; give this one another "
                "name, or list both controls in one control_input",
                at(model, "sequence_batching", "control_input", index, "name", value=True),
                triton_message=f"sequence batching control tensor '{name}' is specified for "
                "multiple control kinds" + for_model(model, ctx),
            )
        elif name:
            seen.add(name)  # an unnamed one is TC601


@model_rule(
    "TC603",
    severity=Severity.ERROR,
    summary="The same sequence control kind (e.g. CONTROL_SEQUENCE_START) is given more than once.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def duplicate_sequence_control_kind(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each control whose kind (START, END, READY or CORRID) an earlier control already
    has, in the same `control_input` or another.

    ## Why it matters
    Each kind is delivered through one tensor. Triton refuses the model: `sequence batching
    specifies multiple CONTROL_SEQUENCE_START tensors for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
        { name: "BEGIN" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
    }
    ```
    """
    first: dict[int, SequenceControl] = {}
    for control in controls(model, ctx):
        earlier = first.setdefault(control.control.kind, control)
        if earlier is control:
            continue
        yield Finding(
            f"{control.kind_name} is already given by control tensor '{earlier.tensor}'; "
            "keep one control of each kind",
            control.span(model),
            triton_message=f"sequence batching specifies multiple {control.kind_name} tensors"
            + for_model(model, ctx),
        )


def _oldest_preferred_sizes(model: LoadedModel, ctx: CheckContext) -> list[int]:
    """The `oldest.preferred_batch_size` the user wrote (`NormalizeModelConfig` fills an empty
    one with `[max_batch_size]`, which always passes)."""
    batcher = sequence_batching(model, ctx)
    if batcher is None or not batcher.HasField("oldest") or model.config is None:
        return []
    return list(model.config.message.sequence_batching.oldest.preferred_batch_size)


@model_rule(
    "TC609",
    severity=Severity.ERROR,
    summary="A sequence_batching oldest preferred_batch_size is 0 or negative.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def oldest_preferred_batch_size_not_positive(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `sequence_batching.oldest.preferred_batch_size` entry that is 0 or negative.

    ## Why it matters
    Triton refuses the model: `sequence batching preferred batch size must be positive for
    <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    sequence_batching { oldest { preferred_batch_size: [ 0 ] } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    sequence_batching { oldest { preferred_batch_size: [ 4 ] } }
    ```
    """
    for index, size in enumerate(_oldest_preferred_sizes(model, ctx)):
        if size <= 0:
            yield Finding(
                f"oldest preferred batch size {size} is not positive; remove it or use a size "
                "between 1 and max_batch_size",
                at(model, *OLDEST_SIZES, index, value=True),
                triton_message="sequence batching preferred batch size must be positive"
                + for_model(model, ctx),
            )


@model_rule(
    "TC610",
    severity=Severity.ERROR,
    summary="A sequence_batching oldest preferred_batch_size is above max_batch_size.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def oldest_preferred_batch_size_exceeds_max(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports each positive `sequence_batching.oldest.preferred_batch_size` entry larger than
    `max_batch_size`. With `max_batch_size: 0` every preferred size is too large.

    ## Why it matters
    Triton refuses the model: `sequence batching preferred batch size must be <= max batch size
    for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 2
    sequence_batching { oldest { preferred_batch_size: [ 4 ] } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 4
    sequence_batching { oldest { preferred_batch_size: [ 4 ] } }
    ```
    """
    mbs = ctx.config(model).max_batch_size
    if mbs < 0:
        return  # TC201
    for index, size in enumerate(_oldest_preferred_sizes(model, ctx)):
        if size <= 0 or size <= mbs:
            continue
        limit = "0 (the model does not batch)" if mbs == 0 else str(mbs)
        yield Finding(
            f"oldest preferred batch size {size} is above max_batch_size {limit}; lower it or "
            f"raise max_batch_size to at least {size}",
            at(model, *OLDEST_SIZES, index, value=True),
            triton_message="sequence batching preferred batch size must be <= max batch size"
            + for_model(model, ctx),
        )


@model_rule(
    "TC611",
    severity=Severity.ERROR,
    summary="sequence_batching direct minimum_slot_utilization is below 0 or above 1.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def minimum_slot_utilization_out_of_range(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `sequence_batching.direct.minimum_slot_utilization` below 0.0 or above 1.0. As in
    Triton, 0.0 (the default) and `nan` are accepted.

    ## Why it matters
    It is the fraction of batch slots that must hold a request before a batch runs early.
    Triton refuses the model: `sequence batching minimum slot utilization must be in range
    (0.0, 1.0] for <model>`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    sequence_batching { direct { minimum_slot_utilization: 1.5 } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    sequence_batching { direct { minimum_slot_utilization: 0.5 } }
    ```
    """
    batcher = sequence_batching(model, ctx)
    if batcher is None or not batcher.HasField("direct"):
        return
    value = batcher.direct.minimum_slot_utilization  # a float32; `nan` fails neither comparison
    if value < 0.0 or value > 1.0:
        yield Finding(
            f"minimum_slot_utilization {value:g} is outside 0.0..1.0; it is the fraction of slots "
            "that must be filled, e.g. 0.5",
            at(model, "sequence_batching", "direct", "minimum_slot_utilization", value=True),
            triton_message="sequence batching minimum slot utilization must be in range "
            "(0.0, 1.0]" + for_model(model, ctx),
        )
