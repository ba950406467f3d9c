"""TC633: SCHEDULER. A state's `initial_state.data_file` holds fewer bytes than the initial value
needs (sequence_batch_scheduler.cc: `GenerateInitialStateData`). Triton reads the whole file when
the sequence batcher starts; discovery listed the file's size, so no file is read here."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.data_files import STRING, data_file_size
from tritoncfg.checks.common.tensor_size import WILDCARD, byte_size
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.sequence_batching.state import PHASE, initial_states
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import DataType
from tritoncfg.workspace import LoadedModel


@model_rule(
    "TC633",
    severity=Severity.ERROR,
    summary="An initial_state data_file is smaller than the initial value's byte size.",
    phase=PHASE,
    gate=gates.sequence_batching,
)
def initial_state_data_file_too_small(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `initial_state` whose `data_file` (in `<model>/initial_state/`) has fewer bytes
    than its `data_type` and `dims` need. `TYPE_STRING` states take the whole file.

    ## Why it matters
    Triton fails the model when the sequence batcher starts: `initial_state setting expects
    <N> bytes, but the data provided from <file>only has <M> bytes.` (sic).

    ## Example
    ```text
    # m/initial_state/init.bin holds 2 bytes; one INT32 needs 4
    state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32 dims: [ 1 ]
      initial_state [ { name: "init" data_type: TYPE_INT32 dims: [ 1 ] data_file: "init.bin" } ] } ]
    ```

    ## Fix
    ```text
    # m/initial_state/init.bin holds 4 bytes (numpy: np.zeros(1, np.int32).tofile("init.bin"))
    ```
    """
    for item in initial_states(model, ctx):
        initial = item.initial
        if initial.WhichOneof("state_data") != "data_file" or initial.data_type == STRING:
            continue
        if WILDCARD in initial.dims:
            continue  # variable dims: TC625
        needed = byte_size(DataType.Name(initial.data_type), list(initial.dims), item.input_name)
        size = data_file_size(model.dir.initial_state_entries, initial.data_file)
        if size is None or isinstance(needed, str) or size >= needed:
            continue
        yield Finding(
            f"initial_state data_file '{initial.data_file}' of state '{item.input_name}' has "
            f"{size} bytes, but {DataType.Name(initial.data_type)} dims {list(initial.dims)} "
            f"need {needed}; write the whole initial value to the file, or use zero_data: true",
            item.span(model, "data_file"),
            triton_message=f"initial_state setting expects {needed} bytes, but the data provided "
            f"from {initial.data_file}only has {size} bytes.",
        )
