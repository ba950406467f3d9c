"""`gen warmup`: `model_warmup` samples, one per batch size that matters, and their data files.

How Triton runs them (`backend_model_instance.cc`, `GenerateWarmupData` and `WarmUp`): each sample
becomes `batch_size` requests of batch 1 executed together, on every non-passive instance, before
the model is ready. Dims exclude the batch dimension and must all be fixed. `input_data_file` is
read from `<model>/warmup/<file>` beside `config.pbtxt`: the raw bytes of one request's tensor,
little-endian, row-major, no header; a `TYPE_STRING` tensor is its elements, each a 4-byte
little-endian length followed by the bytes. Ensembles cannot have warmup (`ValidateModelConfig`).

Warmup requests skip the scheduler, so the sequence batcher adds no control tensors to them; a
warmup input whose name is not a config input is sent as an override input with the dims given
(`GenerateWarmupData`, `AddOverrideInput`). A sample for a model whose `sequence_batching`
declares `control_input` therefore gives each control tensor itself: dims `[1]`, typed as the
sequence batcher types it (`sequence_batch_scheduler.cc`, `CreateBooleanControlTensors`: START,
END and READY by the `*_false_true` they set, CORRID by its `data_type`). With `--data-dir` its
file holds the values of a one-request sequence (START, END and READY true, correlation id 1);
otherwise it is `zero_data` (random flags would mean nothing). Implicit state
(`sequence_batching.state`) is not loaded into warmup requests either (`LoadInputStates` has no
sequence to load it from), so each state's `input_name` is given too, zeros of its type and
dims (a -1 dim from `--dim`, else the state is left out with a note).
"""

from __future__ import annotations

import math
import random
import re
import struct

from tritoncfg.gen.change import Change, GenError, GenUsageError
from tritoncfg.gen.field_update import set_fields
from tritoncfg.gen.target import Target, completed_config
from tritoncfg.record import field, record
from tritoncfg.schema import DataType, ModelConfig, ModelInput, ModelSequenceBatching, ModelWarmup
from tritoncfg.schema.implicit import control_tensors

WARMUP_DIR = "warmup"
# struct formats (little-endian) of the numeric types; BF16 is written from FP32's high half
_FORMATS = {
    "TYPE_BOOL": "?",
    "TYPE_UINT8": "B",
    "TYPE_UINT16": "H",
    "TYPE_UINT32": "I",
    "TYPE_UINT64": "Q",
    "TYPE_INT8": "b",
    "TYPE_INT16": "h",
    "TYPE_INT32": "i",
    "TYPE_INT64": "q",
    "TYPE_FP16": "e",
    "TYPE_FP32": "f",
    "TYPE_FP64": "d",
}
STRING_LENGTH = 8  # bytes of each random string element
_CONTROL = ModelSequenceBatching.Control
CORRELATION_ID = 1  # the correlation id a control file gives (0 is "none" to clients)


@record(frozen=True)
class WarmupRequest:
    data: str = "zero"  # zero | random
    files: bool = False  # write input_data_file files into warmup/
    dims: dict[str, int] = field(default_factory=dict)  # fills -1 dims, by input name
    count: int = 1


def batch_sizes(config: ModelConfig) -> list[int]:
    """1, each preferred size, and max_batch_size (only 1 for a model that does not batch)."""
    if config.max_batch_size <= 0:
        return [1]
    sizes = {1, config.max_batch_size}
    sizes.update(s for s in config.dynamic_batching.preferred_batch_size if s > 0)
    return sorted(s for s in sizes if s <= config.max_batch_size)


def element_bytes(data_type: str, elements: int, data: str, rng: random.Random) -> bytes:
    """One request's tensor as Triton reads `input_data_file`."""
    if data_type == "TYPE_STRING":
        items = [
            bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(STRING_LENGTH))
            if data == "random"
            else b""
            for _ in range(elements)
        ]
        return b"".join(struct.pack("<I", len(item)) + item for item in items)
    if data_type == "TYPE_BF16":
        halves = element_bytes("TYPE_FP32", elements, data, rng)
        return b"".join(halves[i + 2 : i + 4] for i in range(0, len(halves), 4))
    code = _FORMATS.get(data_type)
    if code is None:
        raise GenError(f"cannot write warmup data of type {data_type}")
    if data == "zero":
        return bytes(elements * struct.calcsize(code))
    values: list[float | int | bool]
    if code in "efd":
        values = [rng.random() for _ in range(elements)]
    elif code == "?":
        values = [rng.random() < 0.5 for _ in range(elements)]
    else:
        values = [rng.randrange(0, 100) for _ in range(elements)]
    return struct.pack(f"<{elements}{code}", *values)


def _dims(tensor: ModelInput, given: dict[str, int]) -> list[int] | None:
    """The input's dims with -1 filled from --dim; None when one stays unknown."""
    dims = list(tensor.dims)
    if -1 not in dims:
        return dims
    if tensor.name not in given:
        return None
    return [given[tensor.name] if d == -1 else d for d in dims]


def _file_name(tensor: str, taken: dict[str, bytes]) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", tensor)
    name, number = f"{stem}.bin", 1
    while name in taken:  # two tensor names that differ only in replaced characters
        number += 1
        name = f"{stem}_{number}.bin"
    return name


def control_bytes(data_type: str, control: ModelSequenceBatching.Control) -> bytes:
    """One request's control tensor ([1]) as a one-request sequence has it: START, END and READY
    true (the second of their `*_false_true` values), CORRID the correlation id 1."""
    if control.kind == _CONTROL.CONTROL_SEQUENCE_CORRID:
        if data_type == "TYPE_STRING":
            text = str(CORRELATION_ID).encode()
            return struct.pack("<I", len(text)) + text
        return struct.pack(f"<{_FORMATS[data_type]}", CORRELATION_ID)
    values = control.fp32_false_true or control.bool_false_true or control.int32_false_true
    return struct.pack(f"<{_FORMATS[data_type]}", values[1])


def _reads_as(control: ModelSequenceBatching.Control, zero: bool) -> str:
    """What a control's warmup data means: zero_data (false, true, or neither of its values),
    or the file `control_bytes` writes."""
    kind = _CONTROL.Kind.Name(control.kind).removeprefix("CONTROL_SEQUENCE_")
    if control.kind == _CONTROL.CONTROL_SEQUENCE_CORRID:
        return f"{kind} {0 if zero else CORRELATION_ID}"
    if not zero:
        return f"{kind} true"
    values = list(control.fp32_false_true or control.bool_false_true or control.int32_false_true)
    meaning = "false" if values[0] == 0 else "true" if values[1] == 0 else "neither false nor true"
    return f"{kind} {meaning}"


def _controls(
    config: ModelConfig, files: dict[str, bytes] | None, notes: list[str]
) -> dict[str, ModelWarmup.Input]:
    """A warmup input for each sequence control tensor (see the module doc); with `files`,
    their data files are added to it."""
    entries: dict[str, ModelWarmup.Input] = {}
    declared = {t.name for t in config.input}
    for name, data_type, control in control_tensors(config):
        if name in declared or data_type not in (*_FORMATS, "TYPE_STRING"):
            continue  # a config input already, or a control Triton refuses (lint reports it)
        entry = ModelWarmup.Input(data_type=data_type, dims=[1])
        if files is not None:
            file_name = _file_name(name, files)
            files[file_name] = control_bytes(data_type, control)
            entry.input_data_file = file_name
        else:
            entry.zero_data = True
        entries[name] = entry
    if entries:
        meaning = ", ".join(
            _reads_as(c, files is None) for n, _, c in control_tensors(config) if n in entries
        )
        how = (
            f"their files hold a one-request sequence: {meaning}"
            if files is not None
            else f"zero_data: {meaning} (--data-dir writes a one-request sequence instead)"
        )
        notes.append(
            f"sequence control tensors {', '.join(entries)}: Triton's warmup adds none, so each "
            f"sample gives them, dims [1]; {how}"
        )
    return entries


def _states(
    config: ModelConfig, request: WarmupRequest, files: dict[str, bytes] | None, notes: list[str]
) -> dict[str, ModelWarmup.Input]:
    """A warmup input for each implicit state (see the module doc): zeros of the state's type."""
    entries: dict[str, ModelWarmup.Input] = {}
    declared = {t.name for t in config.input}
    rng = random.Random(0)
    for state in config.sequence_batching.state:
        name = state.input_name
        if name in declared or not name:
            continue
        dims = [request.dims.get(name, -1) if d == -1 else d for d in state.dims]
        if -1 in dims:
            notes.append(f"state '{name}' has a -1 dim: left out of the samples (give --dim)")
            continue
        entry = ModelWarmup.Input(data_type=state.data_type, dims=dims)
        if files is not None:
            file_name = _file_name(name, files)
            dtype = DataType.Name(state.data_type)
            files[file_name] = element_bytes(dtype, math.prod(dims), "zero", rng)
            entry.input_data_file = file_name
        else:
            entry.zero_data = True
        entries[name] = entry
    if entries:
        notes.append(
            f"implicit state {', '.join(entries)}: Triton's warmup loads none, so each sample "
            "gives it, zeros"
        )
    return entries


def generate(target: Target, request: WarmupRequest, notes: list[str]) -> Change:
    message = target.parsed.message
    if message.platform == "ensemble":
        raise GenError(f"model_warmup can not be specified for ensemble '{target.name}'")
    config = completed_config(target)
    states = {s.input_name for s in config.sequence_batching.state}
    unknown = set(request.dims) - {t.name for t in config.input} - states
    if unknown:
        raise GenUsageError(
            f"--dim names no input of model '{target.name}': {', '.join(sorted(unknown))}"
        )
    rng = random.Random(0)
    inputs: dict[str, ModelWarmup.Input] = {}
    files: dict[str, bytes] = {}
    for tensor in config.input:
        dims = _dims(tensor, request.dims)
        if dims is None and tensor.optional:
            notes.append(f"optional input '{tensor.name}' has a -1 dim: left out (give --dim)")
            continue
        if dims is None:
            raise GenUsageError(
                f"input '{tensor.name}' has a variable dim {list(tensor.dims)}: give "
                f"--dim {tensor.name}=SIZE (Triton's warmup needs every dim fixed)"
            )
        entry = ModelWarmup.Input(data_type=tensor.data_type, dims=dims)
        dtype = DataType.Name(tensor.data_type)
        if request.files:
            name = _file_name(tensor.name, files)
            files[name] = element_bytes(dtype, math.prod(dims), request.data, rng)
            entry.input_data_file = name
        elif request.data == "random":
            entry.random_data = True
        else:
            entry.zero_data = True
        inputs[tensor.name] = entry
    if not inputs:
        raise GenError(f"model '{target.name}' has no input to warm up")
    inputs.update(_controls(config, files if request.files else None, notes))
    inputs.update(_states(config, request, files if request.files else None, notes))
    wanted = ModelConfig()
    for size in batch_sizes(message):
        sample = wanted.model_warmup.add(name=f"batch_{size}", batch_size=size, count=request.count)
        for name, entry in inputs.items():
            sample.inputs[name].CopyFrom(entry)
    text = set_fields(target.parsed, wanted, ("model_warmup",))
    notes.append(
        f"samples for batch sizes {', '.join(str(s.batch_size) for s in wanted.model_warmup)}"
    )
    change = Change(
        target.config_path, target.parsed.source, text, notes, root=target.loaded.dir.root
    )
    change.extra_files = {target.dir / WARMUP_DIR / name: data for name, data in files.items()}
    return change
