"""TC627-TC632: the data of a state's initial value (sequence_batch_scheduler.cc:
`GenerateInitialStateData`; the load fails when the scheduler starts) and the state buffers Triton
sets up per sequence (sequence_state.cc: requests fail or a state is ignored, the load succeeds)."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.tensor_size import byte_size
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.sequence_batching.state import (
    PHASE,
    InitialState,
    initial_states,
    sequence_states,
)
from tritoncfg.complete.instance_groups import (
    KIND_GPU,
    KNOWN_KINDS,
    kind_name,
    normalize_instance_groups,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import DataType
from tritoncfg.workspace import LoadedModel

RUNTIME = Phase.RUNTIME
INITIAL_STATE_DIR = "initial_state"


def _byte_size_error(item: InitialState) -> str | None:
    """The error of Triton's `GetByteSize` for the initial value's type and dims, if any (a
    wildcard is TC625's)."""
    size = byte_size(
        DataType.Name(item.initial.data_type), list(item.initial.dims), item.input_name
    )
    return size if isinstance(size, str) else None


@model_rule(
    "TC627",
    severity=Severity.ERROR,
    summary="An initial_state sets neither zero_data nor data_file.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_without_data(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` with neither `zero_data: true` nor `data_file`.

    ## Why it matters
    Triton fails the model when its scheduler starts: `initial_state setting expects
    state'<in>' to have state_data set` (sic).

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 1 ] } ]
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
        if item.initial.WhichOneof("state_data") is None:
            yield Finding(
                f"initial_state of state '{item.input_name}' has no data; add zero_data: true, "
                f"or data_file: naming a file in {INITIAL_STATE_DIR}/",
                item.span(model),
                triton_message="initial_state setting expects state"
                f"'{item.input_name}' to have state_data set",
            )


@model_rule(
    "TC628",
    severity=Severity.ERROR,
    summary="An initial_state data_file is not in the model's initial_state/ directory.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_data_file_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` whose `data_file` is not a file in `<model>/initial_state/`. A
    name with a subdirectory is not checked.

    ## Why it matters
    Triton reads the file when the scheduler starts and fails the model: `failed to open text
    file for read <model>/initial_state/<file>: No such file or directory`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "init" data_type: TYPE_INT32 dims: [ 1 ] data_file: "init.bin" } ]
      } ]
    }
    ```

    ## Fix
    Add `m/initial_state/init.bin` (4 bytes: one INT32), or start from zeros:
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
        initial_state [ { name: "init" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
      } ]
    }
    ```
    """
    folder = f"{model.dir.path}/{INITIAL_STATE_DIR}"
    for item in initial_states(model, ctx):
        if item.initial.WhichOneof("state_data") != "data_file":
            continue
        data_file = item.initial.data_file
        name = data_file.lstrip("/")  # Triton's JoinPath keeps a leading "/" inside the folder
        if not name:
            yield Finding(
                f"initial_state of state '{item.input_name}' has an empty data_file; name a file "
                f"in {INITIAL_STATE_DIR}/",
                item.span(model, "data_file"),
            )
        elif "/" not in name and name not in model.dir.initial_state_files:
            path = folder + ("" if data_file.startswith("/") else "/") + data_file
            yield Finding(
                f"initial_state data_file '{data_file}' of state '{item.input_name}' is not in "
                f"{INITIAL_STATE_DIR}/; add {model.name}/{INITIAL_STATE_DIR}/{name} or use "
                "zero_data: true",
                item.span(model, "data_file"),
                triton_message=f"failed to open text file for read {path}: No such file or directory",
            )


@model_rule(
    "TC629",
    severity=Severity.ERROR,
    summary="An initial_state's dims are negative or its byte size overflows int64.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_size_invalid(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` whose size Triton cannot compute: a dim below `-1`, or dims
    whose element count or byte size exceeds int64.

    ## Why it matters
    Triton fails the model when its scheduler starts, e.g. `byte size for tensor '<in>' exceeds
    maximum size of 9223372036854775807` or `tensor '<in>' contains an invalid dimension [-2]`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ -1, -1 ]
        initial_state [ {
          name: "zeros" data_type: TYPE_INT32 dims: [ 4294967296, 4294967296 ] zero_data: true
        } ]
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ -1, -1 ]
        initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 1, 16 ] zero_data: true } ]
      } ]
    }
    ```
    """
    for item in initial_states(model, ctx):
        error = _byte_size_error(item)
        if error is not None:
            yield Finding(
                f"initial_state of state '{item.input_name}' cannot be allocated: {error}; give "
                "its real, non-negative dims",
                item.span(model, "dims"),
                triton_message=error,
            )


@model_rule(
    "TC630",
    severity=Severity.WARNING,
    summary="A state sets use_growable_memory without use_same_buffer_for_input_output.",
    phase=RUNTIME,
    gate=gates.sequence_batching,
)
def growable_memory_without_single_buffer(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports a state with `use_growable_memory: true` and not
    `use_same_buffer_for_input_output: true`.

    ## Why it matters
    The model loads, but every sequence request fails when Triton sets up the state: `In order
    to 'use_growable_memory', you must also enable 'use_single_buffer' for state input name
    '<in>'.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ -1 ]
        use_growable_memory: true
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [ {
        input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ -1 ]
        use_same_buffer_for_input_output: true
        use_growable_memory: true
      } ]
    }
    ```
    """
    for index, state in enumerate(sequence_states(model, ctx)):
        if state.use_growable_memory and not state.use_same_buffer_for_input_output:
            yield Finding(
                f"state '{state.input_name}' uses growable memory, which needs "
                "use_same_buffer_for_input_output: true; every sequence request fails without it",
                at(model, "sequence_batching", "state", index, "use_growable_memory", value=True),
                triton_message="In order to 'use_growable_memory', you must also enable "
                f"'use_single_buffer' for state input name '{state.input_name}'.",
            )


@model_rule(
    "TC631",
    severity=Severity.WARNING,
    summary="A state sets use_growable_memory but the model has non-GPU instances.",
    phase=RUNTIME,
    gate=gates.sequence_batching,
)
def growable_memory_needs_gpu_instances(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a state with `use_growable_memory: true` in a model with an instance group that is
    (or, on a host without GPUs, becomes) `KIND_CPU` or `KIND_MODEL`. When the host's GPUs are
    unknown (no `--gpus`), a `KIND_AUTO` group is reported as information.

    ## Why it matters
    The model loads, but sequences on those instances fail: `'use_growable_memory' can only
    work with KIND_GPU model instances right now. Please either change the instance type to
    KIND_GPU or set 'use_growable_memory' to false for state input '<in>'.`

    ## Example
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_CPU } ]
    sequence_batching {
      state [ {
        input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ -1 ]
        use_same_buffer_for_input_output: true
        use_growable_memory: true
      } ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    instance_group [ { kind: KIND_GPU } ]
    sequence_batching {
      state [ {
        input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ -1 ]
        use_same_buffer_for_input_output: true
        use_growable_memory: true
      } ]
    }
    ```
    """
    growable = [(i, s) for i, s in enumerate(sequence_states(model, ctx)) if s.use_growable_memory]
    if not growable:
        return
    config = ctx.config(model)
    groups = normalize_instance_groups(config, config.backend, ctx.options.gpus)
    active = [g for g in groups if not g.passive and g.written_kind in KNOWN_KINDS]
    known = [g for g in active if g.kind is not None and g.kind != KIND_GPU]
    unknown = [g for g in active if g.kind is None]
    for index, state in growable:
        span = at(model, "sequence_batching", "state", index, "use_growable_memory", value=True)
        triton = (
            "'use_growable_memory' can only work with KIND_GPU model instances right now. Please "
            "either change the instance type to KIND_GPU or set 'use_growable_memory' to false "
            f"for state input '{state.input_name}'."
        )
        if known:
            shown = ", ".join(f"'{g.name}' ({kind_name(g.kind or 0)})" for g in known)
            yield Finding(
                f"state '{state.input_name}' uses growable memory, which works only on KIND_GPU "
                f"instances; sequences on {shown} will fail: use KIND_GPU or drop "
                "use_growable_memory",
                span,
                triton_message=triton,
            )
        elif unknown:
            shown = ", ".join(f"'{g.name}'" for g in unknown)
            yield Finding(
                f"state '{state.input_name}' uses growable memory, which works only on KIND_GPU "
                f"instances; KIND_AUTO group {shown} becomes KIND_CPU on a host without GPUs "
                "(pass --gpus to decide)",
                span,
                triton_message=triton,
                severity=Severity.INFO,
            )


@model_rule(
    "TC632",
    severity=Severity.WARNING,
    summary="Two sequence states share an input_name or output_name; one of them is ignored.",
    phase=RUNTIME,
    gate=gates.sequence_batching,
)
def duplicate_state_name(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a state whose `input_name` or `output_name` an earlier state already uses (two
    states with the same `input_name` that both have an `initial_state` are TC623).

    ## Why it matters
    Only one of them is used. For a repeated `output_name` the later state is dropped without a
    word; for a repeated `input_name` Triton warns on each sequence: `Detected duplicate
    'input_name' in the state configuration: '<in>.' This state configuration will be
    ignored.`, and which of the two is ignored is not defined.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [
        { input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ 1 ] },
        { input_name: "S" output_name: "S_OUT2" data_type: TYPE_INT32 dims: [ 1 ] }
      ]
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching {
      state [
        { input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ 1 ] },
        { input_name: "T" output_name: "T_OUT" data_type: TYPE_INT32 dims: [ 1 ] }
      ]
    }
    ```
    """
    inputs: dict[str, bool] = {}  # input_name -> an earlier state has one initial_state
    outputs: set[str] = set()
    for index, state in enumerate(sequence_states(model, ctx)):
        path = ("sequence_batching", "state", index)
        has_initial = len(state.initial_state) == 1
        if state.output_name in outputs:
            # Triton keys the states by output_name and keeps the first one
            yield Finding(
                f"state output '{state.output_name}' is already used by an earlier state; "
                "Triton silently ignores this state: give it its own output_name",
                at(model, *path, "output_name", value=True),
            )
        elif state.input_name in inputs and not (has_initial and inputs[state.input_name]):
            yield Finding(
                f"state input '{state.input_name}' is already used by an earlier state; Triton "
                "ignores one of the two (which one is not defined): give it its own input_name",
                at(model, *path, "input_name", value=True),
                triton_message="Detected duplicate 'input_name' in the state configuration: "
                f"'{state.input_name}.' This state configuration will be ignored.",
            )
        outputs.add(state.output_name)
        inputs[state.input_name] = inputs.get(state.input_name, False) or has_initial
