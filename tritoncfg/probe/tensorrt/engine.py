"""Deserialize an engine (needs a GPU), describe its I/O and profiles, and check them against the
config the way Triton's TensorRT backend does (`tensorrt_backend` `model_instance_state.cc`):
names, data types, shapes, and profiles that cover every declared batch size and dim.

`check_engine` works on plain data (`EngineInfo`), so it is tested on CPU.
"""

from __future__ import annotations

from typing import Any

from tritoncfg.models.dtypes import short_type, trt_type
from tritoncfg.probe.tensorrt.adapter import CapturedLog, TrtAdapter
from tritoncfg.probe.tensorrt.profiles import Range, batch_range
from tritoncfg.record import field, record

Shape = tuple[int, ...]


@record(frozen=True)
class EngineTensor:
    name: str
    is_input: bool
    dtype: str  # trt.DataType member name
    shape: Shape  # -1 for dynamic
    profiles: tuple[tuple[Shape, Shape, Shape], ...] = ()  # inputs: (min, opt, max) per profile


@record
class EngineInfo:
    tensors: list[EngineTensor] = field(default_factory=list)
    num_profiles: int = 0
    memory_per_profile: list[int] = field(default_factory=list)  # bytes of device memory

    def by_name(self) -> dict[str, EngineTensor]:
        return {t.name: t for t in self.tensors}


def deserialize(adapter: TrtAdapter, plan: bytes, log: CapturedLog) -> tuple[Any, Any, Any]:
    """(logger, runtime, engine); raises RuntimeError with the library's message on failure."""
    trt = adapter.module
    logger = adapter.make_logger(log)
    runtime = trt.Runtime(logger)
    if hasattr(runtime, "engine_host_code_allowed"):
        runtime.engine_host_code_allowed = True  # version-compatible plans (Polygraphy does so)
    engine = runtime.deserialize_cuda_engine(plan)
    if engine is None:
        errors = log.errors() or ["no message"]
        raise RuntimeError(f"{adapter.label} cannot deserialize the plan: {errors[-1]}")
    return logger, runtime, engine


def inspect_engine(adapter: TrtAdapter, engine: Any) -> EngineInfo:
    trt = adapter.module
    info = EngineInfo(num_profiles=int(engine.num_optimization_profiles))
    for i in range(engine.num_io_tensors):
        name = engine.get_tensor_name(i)
        is_input = engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT
        profiles: list[tuple[Shape, Shape, Shape]] = []
        if is_input:
            for p in range(info.num_profiles):
                low, opt, high = engine.get_tensor_profile_shape(name, p)
                profiles.append((_dims(low), _dims(opt), _dims(high)))
        dtype = engine.get_tensor_dtype(name)
        info.tensors.append(
            EngineTensor(
                name=name,
                is_input=is_input,
                dtype=str(getattr(dtype, "name", dtype)),
                shape=_dims(engine.get_tensor_shape(name)),
                profiles=tuple(profiles),
            )
        )
    sizer = getattr(engine, "get_device_memory_size_for_profile_v2", None)
    sizer = sizer or getattr(engine, "get_device_memory_size_for_profile", None)
    if sizer is not None:
        info.memory_per_profile = [int(sizer(p)) for p in range(info.num_profiles)]
    return info


def _dims(dims: Any) -> Shape:
    return tuple(int(d) for d in dims)


def check_engine(info: EngineInfo, config: Any, dims: dict[str, Range] | None = None) -> list[str]:
    """Mismatches between the engine and the config, in Triton's terms; [] when they agree."""
    problems: list[str] = []
    tensors = info.by_name()
    batch = batch_range(config)
    for kind, entries, want_input in (
        ("input", config.input, True),
        ("output", config.output, False),
    ):
        for entry in entries:
            tensor = tensors.get(entry.name)
            if tensor is None or tensor.is_input != want_input:
                names = sorted(t.name for t in info.tensors if t.is_input == want_input)
                problems.append(
                    f"{kind} '{entry.name}': the engine has no such {kind} (it has: "
                    f"{', '.join(names) or 'none'})"
                )
                continue
            problems += _check_tensor(kind, entry, tensor, batch)
    return problems


def _check_tensor(kind: str, entry: Any, tensor: EngineTensor, batch: Range | None) -> list[str]:
    problems = []
    declared = trt_type(tensor.dtype)
    config_type = _type_name(entry)
    if declared != config_type:
        problems.append(
            f"{kind} '{entry.name}': data type {short_type(config_type)} in the config, the "
            f"engine has {tensor.dtype}"
        )
    want = ([-1] if batch is not None else []) + [int(d) for d in entry.dims]
    if len(want) != len(tensor.shape):
        problems.append(
            f"{kind} '{entry.name}': the config declares {len(want)} dims (batch included), the "
            f"engine has {len(tensor.shape)}: {list(tensor.shape)}"
        )
        return problems
    for axis, (w, e) in enumerate(zip(want, tensor.shape, strict=True)):
        if w >= 0 and e >= 0 and w != e:
            problems.append(
                f"{kind} '{entry.name}': dim {axis} is {w} in the config, {e} in the engine"
            )
    if tensor.is_input:
        problems += _check_profiles(entry.name, want, tensor, batch)
    return problems


def _check_profiles(
    name: str, want: list[int], tensor: EngineTensor, batch: Range | None
) -> list[str]:
    """Some profile must accept each batch size 1..max_batch_size (the dynamic batcher forms any
    of them) and every dim the config fixes."""
    problems = []
    if batch is not None and 0 <= tensor.shape[0] < batch[2]:
        problems.append(
            f"input '{name}': the engine fixes the batch dim at {tensor.shape[0]}, the config's "
            f"max_batch_size is {batch[2]}"
        )
    if batch is not None and tensor.shape[0] == -1:
        ranges = sorted({(p[0][0], p[2][0]) for p in tensor.profiles})
        uncovered = [
            b for b in range(1, batch[2] + 1) if not any(lo <= b <= hi for lo, hi in ranges)
        ]
        if uncovered:
            accepted = ", ".join(f"{lo}..{hi}" for lo, hi in ranges) or "none"
            problems.append(
                f"input '{name}': no profile accepts batch {_spans(uncovered)} (the profiles "
                f"accept {accepted}), the config's max_batch_size is {batch[2]}"
            )
    for axis, w in enumerate(want):
        if w < 0 or tensor.shape[axis] >= 0:
            continue
        if not any(p[0][axis] <= w <= p[2][axis] for p in tensor.profiles):
            problems.append(
                f"input '{name}': no profile accepts size {w} at dim {axis} that the config fixes"
            )
    return problems


def _spans(values: list[int]) -> str:
    """`1, 5..8` for [1, 5, 6, 7, 8]."""
    spans: list[list[int]] = []
    for v in values:
        if spans and v == spans[-1][1] + 1:
            spans[-1][1] = v
        else:
            spans.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in spans)


def _type_name(entry: Any) -> str:
    from tritoncfg.schema import model_config_pb2

    return str(model_config_pb2.DataType.Name(entry.data_type))
