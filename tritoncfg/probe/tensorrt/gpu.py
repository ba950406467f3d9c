"""Device memory, streams and events through cuda-python's runtime API (`cuda.bindings.runtime`,
or `cuda.cudart` in older cuda-python), the primary context TensorRT and Triton use.

Every call returns `(error, *values)`; `_call` turns a non-success error into `GpuError` with
CUDA's own error name. pycuda is not used (NVIDIA's TensorRT samples dropped it in 10.14).
"""

from __future__ import annotations

import importlib
from typing import Any

from tritoncfg.record import record


class GpuError(RuntimeError):
    """A CUDA runtime call failed; the message carries CUDA's error name."""


def cudart() -> Any:
    """The cuda-python runtime module; raises ImportError when cuda-python is missing."""
    try:
        return importlib.import_module("cuda.bindings.runtime")
    except ImportError:
        return importlib.import_module("cuda.cudart")


def gpu_problem() -> str | None:
    """Why no CUDA device can be used here, or None when `cudaGetDeviceCount` finds one."""
    try:
        rt = cudart()
    except ImportError as missing:
        return f"cuda-python is not installed ({missing}); install tritoncfg[trt]"
    try:
        status, count = rt.cudaGetDeviceCount()
    except Exception as exc:  # missing driver library raises instead of returning an error
        return f"cudaGetDeviceCount raised {exc}"
    if status != rt.cudaError_t.cudaSuccess:
        return f"cudaGetDeviceCount: {getattr(status, 'name', status)}"
    return None if count else "cudaGetDeviceCount: 0 devices"


def _call(result: Any, what: str) -> Any:
    rt = cudart()
    error, *values = result if isinstance(result, tuple) else (result,)
    if error != rt.cudaError_t.cudaSuccess:
        raise GpuError(f"{what}: {getattr(error, 'name', error)}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


@record(frozen=True)
class DeviceInfo:
    index: int
    name: str
    compute_capability: str  # "9.0"
    total_memory: int


def device_info(index: int) -> DeviceInfo:
    rt = cudart()
    _call(rt.cudaSetDevice(index), "cudaSetDevice")
    props = _call(rt.cudaGetDeviceProperties(index), "cudaGetDeviceProperties")
    name = props.name.decode(errors="replace") if isinstance(props.name, bytes) else props.name
    return DeviceInfo(
        index=index,
        name=str(name).rstrip("\x00"),
        compute_capability=f"{props.major}.{props.minor}",
        total_memory=int(props.totalGlobalMem),
    )


def malloc(nbytes: int) -> int:
    return int(_call(cudart().cudaMalloc(max(nbytes, 1)), f"cudaMalloc({nbytes})"))


def free(ptr: int) -> None:
    _call(cudart().cudaFree(ptr), "cudaFree")


def stream_create() -> Any:
    return _call(cudart().cudaStreamCreate(), "cudaStreamCreate")


def stream_destroy(stream: Any) -> None:
    _call(cudart().cudaStreamDestroy(stream), "cudaStreamDestroy")


def stream_sync(stream: Any) -> None:
    _call(cudart().cudaStreamSynchronize(stream), "cudaStreamSynchronize")


def copy_htod(dst: int, src: Any, nbytes: int, stream: Any) -> None:
    rt = cudart()
    kind = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
    _call(rt.cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync(HtoD)")


def copy_dtoh(dst: Any, src: int, nbytes: int, stream: Any) -> None:
    rt = cudart()
    kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
    _call(rt.cudaMemcpyAsync(dst, src, nbytes, kind, stream), "cudaMemcpyAsync(DtoH)")


class EventTimer:
    """A start/end CUDA event pair recorded on a stream: elapsed milliseconds on the device."""

    def __init__(self) -> None:
        rt = cudart()
        self.start = _call(rt.cudaEventCreate(), "cudaEventCreate")
        self.end = _call(rt.cudaEventCreate(), "cudaEventCreate")

    def record_start(self, stream: Any) -> None:
        _call(cudart().cudaEventRecord(self.start, stream), "cudaEventRecord")

    def record_end(self, stream: Any) -> None:
        _call(cudart().cudaEventRecord(self.end, stream), "cudaEventRecord")

    def elapsed_ms(self) -> float:
        rt = cudart()
        _call(rt.cudaEventSynchronize(self.end), "cudaEventSynchronize")
        return float(_call(rt.cudaEventElapsedTime(self.start, self.end), "cudaEventElapsedTime"))

    def close(self) -> None:
        rt = cudart()
        _call(rt.cudaEventDestroy(self.start), "cudaEventDestroy")
        _call(rt.cudaEventDestroy(self.end), "cudaEventDestroy")
