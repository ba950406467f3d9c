"""The GPU layer without a GPU: the names the engine and execute code call exist on the installed
TensorRT module, and cuda-python's real error codes become GpuError with CUDA's error name."""

from __future__ import annotations

import pytest
from probe.trtkit import installed_adapter

from tritoncfg.probe.tensorrt import gpu

ENGINE_API = {
    "ICudaEngine": [
        "num_io_tensors",
        "get_tensor_name",
        "get_tensor_mode",
        "get_tensor_shape",
        "get_tensor_dtype",
        "get_tensor_profile_shape",
        "num_optimization_profiles",
        "create_execution_context",
        "is_shape_inference_io",
    ],
    "IExecutionContext": [
        "set_input_shape",
        "infer_shapes",
        "get_tensor_shape",
        "set_tensor_address",
        "execute_async_v3",
        "set_optimization_profile_async",
    ],
    "Runtime": ["deserialize_cuda_engine"],
}


def test_the_installed_module_has_every_name_the_gpu_code_calls() -> None:
    trt = installed_adapter().module
    missing = [
        f"{cls}.{name}"
        for cls, names in ENGINE_API.items()
        for name in names
        if not hasattr(getattr(trt, cls), name)
    ]
    assert missing == []
    assert trt.nptype(trt.DataType.FLOAT).__name__ == "float32"
    memory = trt.ICudaEngine
    assert hasattr(memory, "get_device_memory_size_for_profile_v2") or hasattr(
        memory, "get_device_memory_size_for_profile"
    )


def no_device_but_cuda_python() -> str:
    pytest.importorskip("cuda.bindings.runtime", reason="cuda-python is not installed")
    problem = gpu.gpu_problem()
    if problem is None:
        pytest.skip("a CUDA device is present")
    return problem


def test_gpu_problem_names_cudas_error() -> None:
    problem = no_device_but_cuda_python()
    assert problem.startswith(("cudaGetDeviceCount: ", "cudaGetDeviceCount raised "))


def test_cuda_errors_become_gpu_errors_with_the_call_and_error_name() -> None:
    problem = no_device_but_cuda_python()
    if not problem.startswith("cudaGetDeviceCount: cuda"):
        pytest.skip(f"the CUDA runtime gives no error code here: {problem}")
    code = problem.removeprefix("cudaGetDeviceCount: ")
    with pytest.raises(gpu.GpuError, match=rf"^cudaMalloc\(16\): {code}$"):
        gpu.malloc(16)
    with pytest.raises(gpu.GpuError, match=r"^cudaSetDevice: "):
        gpu.device_info(0)
    with pytest.raises(gpu.GpuError, match=r"^cudaStreamCreate: "):
        gpu.stream_create()
