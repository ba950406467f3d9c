"""The TensorRT runner: build an engine from `model.onnx` (or load `model.plan`), check it against
the config, and run every test point on the GPU, timed with CUDA events.

How failures are reported (`docs/probe-tensorrt.md`):
- TensorRT not installed, no CUDA device, or a plan only plain TensorRT can load while only
  TensorRT-RTX is installed: `RunnerUnavailable` (probe "cannot run", exit 3).
- An ONNX parse or builder error, a profile that cannot be derived, a precision the installed
  TensorRT cannot honour, an engine whose I/O disagrees with the config: `RunnerError` (FAIL),
  with the library's own messages. The build runs before the GPU check, so a machine without a
  GPU still reports build errors when TensorRT-RTX (or a TensorRT that builds there) is present.
- `--save-plan` refuses an engine built by TensorRT-RTX (Triton's TensorRT backend cannot load
  it) with `RunnerUnavailable`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.probe.contract import (
    ProbeSettings,
    RunnerError,
    RunnerUnavailable,
    RunOutput,
    TestPoint,
)

if TYPE_CHECKING:
    import numpy as np

    from tritoncfg.probe.tensorrt.adapter import TrtAdapter
    from tritoncfg.probe.tensorrt.build import BuildResult
    from tritoncfg.probe.tensorrt.execute import Executor

PLAN_NAME = "model.plan"  # Triton's TensorRT backend default model filename


class TensorRTRunner:
    name = "tensorrt"

    def __init__(self, settings: ProbeSettings) -> None:
        self.settings = settings
        self._adapter: TrtAdapter | None = None
        self._facts: dict[str, Any] = {"runtime": self.name}
        self._keep: tuple[Any, ...] = ()  # logger, runtime, engine: alive as long as the executor
        self._executor: Executor | None = None

    def load(self, model_file: Path, config: Any) -> None:
        from tritoncfg.probe.tensorrt.adapter import TrtMissing, load_adapter

        try:
            adapter = self._adapter = load_adapter()
        except TrtMissing as error:
            raise RunnerUnavailable(str(error)) from None
        self._facts.update(library=adapter.label, flavor=adapter.flavor, version=adapter.version)
        if model_file.suffix == ".onnx":
            plan = self._build(adapter, model_file, config)
            if self.settings.save_plan:
                self._save(adapter, model_file, plan)
        elif not adapter.triton_loadable:
            raise RunnerUnavailable(
                f"{model_file.name} is a TensorRT plan and only {adapter.label} is installed, "
                "which cannot load TensorRT engines; install `tensorrt` on a GPU machine"
            )
        else:
            plan = model_file.read_bytes()
        self._facts["engine_size"] = len(plan)
        self._start(adapter, plan, config)

    def _build(self, adapter: TrtAdapter, model_file: Path, config: Any) -> bytes:
        from tritoncfg.probe.tensorrt.build import BuildResult, build_engine, parse_onnx
        from tritoncfg.probe.tensorrt.profiles import ProfileError, derive_profile

        parsed = parse_onnx(adapter, model_file)
        if isinstance(parsed, BuildResult):
            raise RunnerError(_message(adapter, parsed))
        try:
            profile = derive_profile(config, parsed.info.net_inputs(), self.settings.dims)
        except ProfileError as error:
            raise RunnerError(f"optimization profile: {error}") from None
        self._facts["profiles"] = [
            {name: [list(s) for s in shapes] for name, shapes in profile.items()}
        ]
        self._facts["precision"] = list(self.settings.precision) or ["fp32"]
        result = build_engine(parsed, [profile], self.settings.precision)
        self._facts["build_seconds"] = round(result.seconds, 3)
        if result.plan is None:
            raise RunnerError(_message(adapter, result))
        return result.plan

    def _save(self, adapter: TrtAdapter, model_file: Path, plan: bytes) -> None:
        from tritoncfg.atomic import write_atomic_bytes

        if not adapter.triton_loadable:
            raise RunnerUnavailable(
                f"--save-plan refused: this engine was built by {adapter.label}, and Triton's "
                "TensorRT backend cannot load TensorRT-RTX engines; build on a machine with "
                "`tensorrt` and a GPU"
            )
        target = model_file.parent / PLAN_NAME
        write_atomic_bytes(target, plan)
        self._facts["saved_plan"] = str(target)

    def _start(self, adapter: TrtAdapter, plan: bytes, config: Any) -> None:
        from tritoncfg.probe.tensorrt import gpu
        from tritoncfg.probe.tensorrt.adapter import CapturedLog
        from tritoncfg.probe.tensorrt.engine import check_engine, deserialize, inspect_engine
        from tritoncfg.probe.tensorrt.execute import Executor

        problem = gpu.gpu_problem()
        if problem is not None:
            raise RunnerUnavailable(f"no CUDA device: {problem}")
        try:
            device = gpu.device_info(self.settings.device)
            self._facts["gpu"] = {
                "name": device.name,
                "compute_capability": device.compute_capability,
                "memory": device.total_memory,
            }
            log = CapturedLog()
            logger, runtime, engine = deserialize(adapter, plan, log)
            info = inspect_engine(adapter, engine)
        except (gpu.GpuError, RuntimeError) as error:
            raise RunnerError(str(error)) from None
        self._facts["device_memory_per_profile"] = info.memory_per_profile
        problems = check_engine(info, config)
        if problems:
            raise RunnerError("the engine does not match the config: " + "; ".join(problems))
        self._keep = (logger, runtime, engine)
        self._executor = Executor(adapter, engine, info, log)

    def run(self, point: TestPoint, inputs: Mapping[str, np.ndarray]) -> RunOutput:
        from tritoncfg.probe.tensorrt.execute import ExecutionError
        from tritoncfg.probe.tensorrt.gpu import GpuError

        if self._executor is None:
            raise RunnerError("the TensorRT runner has no engine loaded")
        try:
            # one timed execution per call: probe's loop (`execute.py`) does the warm-up runs
            # after each shape change and repeats the timed runs, as for every runner
            outputs, latencies = self._executor.run(inputs, warmup=0, timed=1)
        except (ExecutionError, GpuError) as error:
            raise RunnerError(f"{point.label}: {error}") from None
        return RunOutput(outputs=outputs, latencies_ms=latencies)

    def describe(self) -> dict[str, Any]:
        return dict(self._facts)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        self._keep = ()


def _message(adapter: TrtAdapter, result: BuildResult) -> str:
    return f"{adapter.label}: {result.message()}"


if TYPE_CHECKING:
    from tritoncfg.probe.contract import Runner

    _conforms: type[Runner] = TensorRTRunner  # mypy checks the runner against the protocol
