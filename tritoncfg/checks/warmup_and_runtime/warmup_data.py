"""TC709: INSTANCE. A warmup `input_data_file` holds fewer bytes than its input needs
(backend_model_instance.cc: `GenerateWarmupData`). Triton reads the whole file and compares its size
with `GetByteSize(data_type, dims)`; discovery listed the file's size, so no file is read here."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.data_files import STRING, data_file_size
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.warmup_and_runtime.warmup import (
    PHASE,
    REQUEST,
    byte_size,
    usable,
    warmup_inputs,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel


@model_rule(
    "TC709",
    severity=Severity.ERROR,
    summary="A warmup input_data_file is smaller than the input's byte size.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_data_file_too_small(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a warmup `input_data_file` with fewer bytes than the input's `data_type` and `dims`
    need (4 bytes per FP32 element, and so on; the batch dimension is not part of `dims`).
    `TYPE_STRING` inputs take the whole file, whatever its size.

    ## Why it matters
    Triton fails every instance: `warmup setting expects <N> bytes, but the data provided
    from <file>only has <M> bytes` (sic). A file exported from a different shape or type, or
    truncated in a copy, is the usual cause.

    ## Example
    ```text
    # m/warmup/x.bin holds 8 bytes: two FP32 values, four needed
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value {
      data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "x.bin" } } } ]
    ```

    ## Fix
    ```text
    # m/warmup/x.bin holds 16 bytes (numpy: np.zeros(4, np.float32).tofile("x.bin"))
    ```
    """
    for entry in warmup_inputs(model, ctx):
        if entry.spec.WhichOneof("input_data_type") != "input_data_file" or not usable(entry):
            continue
        if entry.spec.data_type == STRING:
            continue  # Triton takes the whole file as the tensor
        needed = byte_size(entry)
        name = entry.spec.input_data_file
        size = data_file_size(model.dir.warmup_entries, name)
        if size is None or isinstance(needed, str) or size >= needed:
            continue
        yield Finding(
            f"warmup file '{name}' of input '{entry.name}' has {size} bytes, but "
            f"{entry.data_type} dims {list(entry.spec.dims)} need {needed}; write the whole "
            "tensor (without the batch dimension) to the file, or use zero_data: true",
            at(model, *entry.path, "value", "input_data_file", value=True),
            triton_message=f"{REQUEST}warmup setting expects {needed} bytes, but the data "
            f"provided from {name}only has {size} bytes",
        )
