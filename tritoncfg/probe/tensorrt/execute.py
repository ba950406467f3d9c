"""Run one test point on a deserialized engine (GPU only): pick the profile that accepts the
shapes, `set_input_shape`, bind device buffers, `execute_async_v3` on a non-default stream, and
time every run with CUDA events. Warm-up runs follow each shape change (the first enqueue after
a change is slow), and are not timed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tritoncfg.probe.tensorrt import gpu
from tritoncfg.probe.tensorrt.adapter import CapturedLog, TrtAdapter
from tritoncfg.probe.tensorrt.engine import EngineInfo

if TYPE_CHECKING:
    import numpy as np


class ExecutionError(RuntimeError):
    """A point failed in TensorRT; the message is the library's own where it logged one."""


def pick_profile(info: EngineInfo, shapes: Mapping[str, tuple[int, ...]]) -> int | None:
    """The first profile whose min..max range holds every input shape, or None."""
    inputs = [t for t in info.tensors if t.is_input]
    for index in range(info.num_profiles):
        if all(_fits(t.profiles[index], shapes.get(t.name)) for t in inputs):
            return index
    return None


def _fits(profile: tuple[tuple[int, ...], ...], shape: tuple[int, ...] | None) -> bool:
    if shape is None or len(shape) != len(profile[0]):
        return False
    return all(lo <= s <= hi for lo, s, hi in zip(profile[0], shape, profile[2], strict=True))


class Executor:
    """One execution context and stream over an engine."""

    def __init__(self, adapter: TrtAdapter, engine: Any, info: EngineInfo, log: CapturedLog):
        self.adapter, self.engine, self.info, self.log = adapter, engine, info, log
        self.context = engine.create_execution_context()
        self.stream = gpu.stream_create()
        self.timer = gpu.EventTimer()
        self.profile = 0
        self._buffers: dict[str, tuple[int, int]] = {}  # name -> (pointer, bytes)

    def run(
        self, inputs: Mapping[str, np.ndarray], warmup: int, timed: int
    ) -> tuple[dict[str, np.ndarray], list[float]]:
        import numpy as np

        shapes = {name: tuple(int(d) for d in a.shape) for name, a in inputs.items()}
        for tensor in self.info.tensors:
            if tensor.is_input and self.engine.is_shape_inference_io(tensor.name):
                raise ExecutionError(
                    f"input '{tensor.name}' is a shape tensor: probe does not run shape-tensor "
                    "inputs on TensorRT"
                )
        profile = pick_profile(self.info, shapes)
        if profile is None:
            raise ExecutionError(f"no optimization profile accepts the shapes {shapes}")
        self._select(profile)
        self.log.clear()
        for name, shape in shapes.items():
            if not self.context.set_input_shape(name, shape):
                raise ExecutionError(self._last(f"set_input_shape({name}, {shape}) refused"))
        missing = self.context.infer_shapes()
        if missing:
            raise ExecutionError(f"shapes not specified for: {', '.join(missing)}")
        host_out: dict[str, np.ndarray] = {}
        for tensor in self.info.tensors:
            dtype = np.dtype(self.adapter.module.nptype(self.engine.get_tensor_dtype(tensor.name)))
            if tensor.is_input:
                array = np.ascontiguousarray(inputs[tensor.name], dtype=dtype)
                pointer = self._buffer(tensor.name, array.nbytes)
                gpu.copy_htod(pointer, array.ctypes.data, array.nbytes, self.stream)
            else:
                shape = tuple(int(d) for d in self.context.get_tensor_shape(tensor.name))
                if any(d < 0 for d in shape):
                    raise ExecutionError(
                        f"output '{tensor.name}' has a data-dependent shape {shape}"
                    )
                host_out[tensor.name] = np.empty(shape, dtype=dtype)
                pointer = self._buffer(tensor.name, host_out[tensor.name].nbytes)
            self.context.set_tensor_address(tensor.name, pointer)
        latencies = [self._enqueue(timed=i >= warmup) for i in range(warmup + max(timed, 1))]
        for name, array in host_out.items():
            gpu.copy_dtoh(array.ctypes.data, self._buffers[name][0], array.nbytes, self.stream)
        gpu.stream_sync(self.stream)
        return host_out, [ms for ms in latencies if ms is not None]

    def _enqueue(self, timed: bool) -> float | None:
        self.timer.record_start(self.stream)
        if not self.context.execute_async_v3(int(self.stream)):
            raise ExecutionError(self._last("execute_async_v3 returned False"))
        self.timer.record_end(self.stream)
        ms = self.timer.elapsed_ms()
        return ms if timed else None

    def _select(self, profile: int) -> None:
        if profile == self.profile:
            return
        if not self.context.set_optimization_profile_async(profile, int(self.stream)):
            raise ExecutionError(self._last(f"set_optimization_profile_async({profile}) refused"))
        gpu.stream_sync(self.stream)
        self.profile = profile

    def _buffer(self, name: str, nbytes: int) -> int:
        pointer, size = self._buffers.get(name, (0, 0))
        if size < nbytes:
            if pointer:
                gpu.free(pointer)
            pointer = gpu.malloc(nbytes)
            self._buffers[name] = (pointer, nbytes)
        return pointer

    def _last(self, fallback: str) -> str:
        errors = self.log.errors()
        return errors[-1] if errors else fallback

    def close(self) -> None:
        for pointer, _ in self._buffers.values():
            gpu.free(pointer)
        self._buffers.clear()
        self.timer.close()
        gpu.stream_destroy(self.stream)
        self.context = None
