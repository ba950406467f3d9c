"""The runtimes that run a model file, each named once: the Triton backend and platforms it
serves, its model files, whether it runs on a GPU, the extra that installs it and probe's runner
for it.

`models/locate.py` takes its default file names from here, and probe (`probe/runners`, the plan,
the scheduler and `probe --runtime`) everything else, so adding a runtime is one entry. Pure
data: nothing here imports a runtime (a runner is named as `"module:Class"`).
"""

from __future__ import annotations

from typing import Literal

from tritoncfg.record import record

# where a runtime's runs happen: always the CPU, always a GPU, or a GPU when the config's
# instance groups are KIND_GPU (and the machine has one)
Device = Literal["cpu", "gpu", "instance_group"]


@record(frozen=True)
class Runtime:
    name: str  # `probe --runtime NAME`, the report's `runner`
    title: str  # for messages: "ONNX Runtime"
    backend: str  # the Triton backend that runs these models
    platforms: tuple[str, ...]  # the platforms of that backend it runs (others are skipped)
    default_file: str  # the file Triton loads when `default_model_filename` is not set
    suffixes: tuple[str, ...]  # the model files it runs under `--runtime auto`
    device: Device
    extra: str  # `pip install 'tritoncfg[EXTRA]'` installs it
    runner: str  # probe's runner, "module:Class", imported only when a model needs it
    # more model files it takes when asked for by name (`--runtime`), with the runtime whose
    # outputs it is then compared with
    builds_from: tuple[str, ...] = ()
    reference: str | None = None

    def serves(self, backend: str, platform: str) -> bool:
        """Whether a completed config's backend and platform are this runtime's."""
        if platform:
            return platform in self.platforms
        return backend == self.backend


RUNTIMES: tuple[Runtime, ...] = (
    Runtime(
        name="onnxruntime",
        title="ONNX Runtime",
        backend="onnxruntime",
        platforms=("onnxruntime_onnx",),
        default_file="model.onnx",
        suffixes=(".onnx",),
        device="cpu",
        extra="probe",
        runner="tritoncfg.probe.runners.onnxruntime:OnnxRuntimeRunner",
    ),
    Runtime(
        name="tensorrt",
        title="TensorRT",
        backend="tensorrt",
        platforms=("tensorrt_plan",),
        default_file="model.plan",
        suffixes=(".plan",),
        device="gpu",
        extra="trt",
        runner="tritoncfg.probe.runners.tensorrt:TensorRTRunner",
        builds_from=(".onnx",),
        reference="onnxruntime",
    ),
    Runtime(
        name="pytorch",
        title="PyTorch",
        backend="pytorch",
        # TorchScript only: `torch_aoti` (AOTInductor, model.pt2) is not run
        platforms=("pytorch_libtorch",),
        default_file="model.pt",
        suffixes=(".pt",),
        device="instance_group",
        extra="pytorch",
        runner="tritoncfg.probe.runners.pytorch:PyTorchRunner",
    ),
)

BY_NAME: dict[str, Runtime] = {r.name: r for r in RUNTIMES}


def runtime_serving(backend: str, platform: str) -> Runtime | None:
    """The runtime that runs a completed config's models, None when probe runs none of them."""
    return next((r for r in RUNTIMES if r.serves(backend, platform)), None)


def runtime_for_file(suffix: str) -> Runtime | None:
    """The runtime `--runtime auto` runs a model file with this suffix on."""
    return next((r for r in RUNTIMES if suffix in r.suffixes), None)


__all__ = ["BY_NAME", "RUNTIMES", "Device", "Runtime", "runtime_for_file", "runtime_serving"]
