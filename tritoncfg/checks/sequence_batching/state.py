"""TC620-TC626: sequence batching implicit state and the shape of its initial value
(sequence_batch_scheduler.cc: `SequenceBatchScheduler::Create`).

`SequenceBatchScheduler::Create` checks each `state` and its `initial_state` when the model's
scheduler starts (phase SCHEDULER: the load fails). The initial value's data and the
per-sequence checks of `SequenceStates::Initialize` (phase RUNTIME) are in
`state_data`."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.tensor_size import dims_text
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.sequence_batching.controls import sequence_batching
from tritoncfg.diagnostics import Severity
from tritoncfg.record import record
from tritoncfg.schema import DataType, ModelSequenceBatching
from tritoncfg.text.span import Span
from tritoncfg.workspace import LoadedModel

PHASE = Phase.SCHEDULER
WILDCARD = -1


@record(frozen=True)
class InitialState:
    """A state with exactly one `initial_state`, the case Triton goes on to check."""

    index: int
    state: ModelSequenceBatching.State
    initial: ModelSequenceBatching.InitialState

    @property
    def input_name(self) -> str:
        return self.state.input_name

    def span(self, model: LoadedModel, *field: str | int) -> Span:
        path = ("sequence_batching", "state", self.index, "initial_state", 0, *field)
        return at(model, *path, value=bool(field))


def sequence_states(model: LoadedModel, ctx: CheckContext) -> list[ModelSequenceBatching.State]:
    batcher = sequence_batching(model, ctx)
    return [] if batcher is None else list(batcher.state)


def initial_states(model: LoadedModel, ctx: CheckContext) -> Iterator[InitialState]:
    """States with one initial_state; with several (TC620) it is unclear which one is meant."""
    for index, state in enumerate(sequence_states(model, ctx)):
        if len(state.initial_state) == 1:
            yield InitialState(index, state, state.initial_state[0])


def type_name(data_type: int) -> str:
    return DataType.Name(data_type) if data_type in DataType.values() else str(data_type)


@model_rule(
    "TC620",
    severity=Severity.ERROR,
    summary="A sequence state has more than one initial_state.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def multiple_initial_state(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `sequence_batching.state` with two or more `initial_state` entries.

    ## Why it matters
    A state starts from one value. Triton fails the model when its scheduler starts:
    `initial_state field for state input '<in>' must contain exactly one or zero element.
    Found '2' elements.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [
          { name: "a" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true },
          { name: "b" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true }
        ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "a" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for index, state in enumerate(sequence_states(model, ctx)):
        count = len(state.initial_state)
        if count > 1:
            yield Finding(
                f"state '{state.input_name}' has {count} initial_state entries; keep one",
                at(model, "sequence_batching", "state", index, "initial_state", 1),
                triton_message=f"initial_state field for state input '{state.input_name}' must "
                f"contain exactly one or zero element. Found '{count}' elements.",
            )


@model_rule(
    "TC621",
    severity=Severity.ERROR,
    summary="An initial_state's data_type differs from its state's data_type.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_data_type_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` whose `data_type` is not its state's `data_type`.

    ## Why it matters
    Triton fails the model when its scheduler starts: `The data type used for 'initial_state'
    field of state '<in>' does not match the state data type.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "zeros" data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for item in initial_states(model, ctx):
        want, got = item.state.data_type, item.initial.data_type
        if want != got:
            yield Finding(
                f"initial_state of state '{item.input_name}' is {type_name(got)} but the state "
                f"is {type_name(want)}; make them equal",
                item.span(model, "data_type"),
                triton_message=f"The data type used for 'initial_state' field of state "
                f"'{item.input_name}' does not match the state data type.",
            )


@model_rule(
    "TC622",
    severity=Severity.ERROR,
    summary="An initial_state has no name.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_without_name(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` without a `name`.

    ## Why it matters
    Triton fails the model when its scheduler starts: `Field 'name' must be set when using
    initial_state for state input '<in>'.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for item in initial_states(model, ctx):
        if not item.initial.name:
            yield Finding(
                f"initial_state of state '{item.input_name}' has no name; give it one",
                item.span(model),
                triton_message="Field 'name' must be set when using initial_state for state "
                f"input '{item.input_name}'.",
            )


@model_rule(
    "TC623",
    severity=Severity.ERROR,
    summary="Two states with the same input_name both have an initial_state.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def duplicate_initial_state_input(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a state with an `initial_state` whose `input_name` an earlier state with an
    `initial_state` already has.

    ## Why it matters
    Triton fails the model when its scheduler starts: `State input name '<in>' specified more
    than once.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [
        { input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ 1 ]
          initial_state [ { name: "a" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ] },
        { input_name: "S" output_name: "S_OUT2" data_type: TYPE_INT32 dims: [ 1 ]
          initial_state [ { name: "b" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ] }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [
        { input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ 1 ]
          initial_state [ { name: "a" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ] }
      ]
    }
    ```
    """
    seen: set[str] = set()
    for item in initial_states(model, ctx):
        if item.input_name in seen:
            yield Finding(
                f"state input '{item.input_name}' already has an initial_state in an earlier "
                "state; each state needs its own input_name",
                at(model, "sequence_batching", "state", item.index, "input_name", value=True),
                triton_message=f"State input name '{item.input_name}' specified more than once.",
            )
        seen.add(item.input_name)


@model_rule(
    "TC624",
    severity=Severity.ERROR,
    summary="An initial_state has a different number of dims than its state.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_dims_count_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` whose `dims` has more or fewer entries than its state's `dims`.

    ## Why it matters
    Triton fails the model when its scheduler starts: `Number of dimensions in 'initial_state'
    doesn't match the size of 'state' dimensions for state input '<in>'. 1 != 2`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 2, 3 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 6 ] zero_data: true } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 2, 3 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 2, 3 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for item in initial_states(model, ctx):
        got, want = len(item.initial.dims), len(item.state.dims)
        if got != want:
            yield Finding(
                f"initial_state of state '{item.input_name}' has {got} dims but the state has "
                f"{want} ({dims_text(list(item.state.dims))}); give the same shape",
                item.span(model, "dims"),
                triton_message="Number of dimensions in 'initial_state' doesn't match the size of "
                f"'state' dimensions for state input '{item.input_name}'. {got} != {want}",
            )


@model_rule(
    "TC625",
    severity=Severity.ERROR,
    summary="An initial_state has a variable (-1) dimension.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_variable_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` with a `-1` in its `dims`.

    ## Why it matters
    Triton builds the initial value once, so its shape must be fixed. The load fails when the
    scheduler starts: `'initial_state' field for state input name '<in>' contains variable
    dimensions.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ -1 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ -1 ] zero_data: true } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ -1 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for item in initial_states(model, ctx):
        dims = list(item.initial.dims)
        if WILDCARD in dims:
            yield Finding(
                f"initial_state of state '{item.input_name}' has a variable dimension (-1); give "
                "the actual size of the initial value",
                item.span(model, "dims", dims.index(WILDCARD)),
                triton_message=f"'initial_state' field for state input name '{item.input_name}' "
                "contains variable dimensions.",
            )


@model_rule(
    "TC626",
    severity=Severity.ERROR,
    summary="An initial_state dim differs from the state's fixed dim.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_dim_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `initial_state` dim that differs from the state's dim at the same position,
    where the state's dim is fixed (not `-1`).

    ## Why it matters
    Triton fails the model when its scheduler starts: `'initial_state' dim for input name
    '<in>' doesn't match 'state' dim description. 4 != 3`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 3 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 4 ] zero_data: true } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 3 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 3 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for item in initial_states(model, ctx):
        if len(item.initial.dims) != len(item.state.dims):
            continue  # TC624
        pairs = enumerate(zip(item.initial.dims, item.state.dims, strict=True))
        for position, (got, want) in pairs:
            if WILDCARD not in (got, want) and got != want:
                yield Finding(
                    f"initial_state dim {position} of state '{item.input_name}' is {got} but the "
                    f"state's is {want}; make them equal",
                    item.span(model, "dims", position),
                    triton_message=f"'initial_state' dim for input name '{item.input_name}' "
                    f"doesn't match 'state' dim description. {got} != {want}",
                )
