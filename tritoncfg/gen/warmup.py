"""`gen warmup`: `model_warmup` samples, one per batch size that matters, and their data files.

How Triton runs them (`backend_model_instance.cc`, `GenerateWarmupData` and `WarmUp`): each sample
becomes `batch_size` requests of batch 1 executed together, on every non-passive instance, before
the model is ready. Dims exclude the batch dimension and must all be fixed. `input_data_file` is
read from `<model>/warmup/<file>` beside `config.pbtxt`: the raw bytes of one request's tensor,
little-endian, row-major, no header; a `TYPE_STRING` tensor is its elements, each a 4-byte
little-endian length followed by the bytes. Ensembles cannot have warmup (`ValidateModelConfig`).
"""

from __future__ import annotations

import math
import random
import re
import struct
from dataclasses import field

from tritoncfg.gen.change import Change, GenError, GenUsageError, set_fields
from tritoncfg.gen.target import Target, completed_config
from tritoncfg.record import record
from tritoncfg.schema import DataType, ModelConfig, ModelInput, ModelWarmup

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


def _file_name(tensor: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", tensor) + ".bin"


def generate(target: Target, request: WarmupRequest, notes: list[str]) -> Change:
    message = target.parsed.message
    if message.platform == "ensemble":
        raise GenError(f"model_warmup can not be specified for ensemble '{target.name}'")
    config = completed_config(target)
    unknown = set(request.dims) - {t.name for t in config.input}
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
            name = _file_name(tensor.name)
            files[name] = element_bytes(dtype, math.prod(dims), request.data, rng)
            entry.input_data_file = name
        elif request.data == "random":
            entry.random_data = True
        else:
            entry.zero_data = True
        inputs[tensor.name] = entry
    if not inputs:
        raise GenError(f"model '{target.name}' has no input to warm up")
    wanted = ModelConfig()
    for size in batch_sizes(message):
        sample = wanted.model_warmup.add(name=f"batch_{size}", batch_size=size, count=request.count)
        for name, entry in inputs.items():
            sample.inputs[name].CopyFrom(entry)
    text = set_fields(target.parsed, wanted, ("model_warmup",))
    notes.append(
        f"samples for batch sizes {', '.join(str(s.batch_size) for s in wanted.model_warmup)}"
    )
    change = Change(target.config_path, target.parsed.source, text, notes)
    change.extra_files = {target.dir / WARMUP_DIR / name: data for name, data in files.items()}
    return change
