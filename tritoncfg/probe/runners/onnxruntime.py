"""The ONNX Runtime runner: one session per model, on the CPU execution provider, or on the CUDA
(and, when the config asks for its TensorRT accelerator, TensorRT) providers of
`onnxruntime-gpu` when they are there, with the session options Triton's onnxruntime backend
derives from the config (`onnxruntime_options.py`). Every failure carries ONNX Runtime's own
message.
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
from tritoncfg.probe.runners.onnxruntime_options import (
    TritonSessionOptions,
    apply,
    triton_session_options,
)
from tritoncfg.record import replace
from tritoncfg.schema import ModelConfig

if TYPE_CHECKING:
    import numpy as np


class OnnxRuntimeRunner:
    name = "onnxruntime"

    def __init__(self, settings: ProbeSettings) -> None:
        self.settings = settings
        self._session: Any = None
        self._outputs: list[str] = []
        self._version = ""
        self._options = TritonSessionOptions()

    def load(self, model_file: Path, config: Any) -> None:
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]
        except ImportError as exc:
            raise RunnerUnavailable(
                "onnxruntime is not installed (pip install onnxruntime, or onnxruntime-gpu)"
            ) from exc
        self._version = ort.__version__
        ort.set_default_logger_severity(4)
        chosen = triton_session_options(config)
        if chosen.intra_op_num_threads == 0 and self.settings.threads > 0:
            # --jobs: sessions share the cores, unless the config sets the count itself
            chosen = replace(chosen, intra_op_num_threads=self.settings.threads)
        self._options = chosen
        options = ort.SessionOptions()
        # fatal only: every error is on its point's row, not also logged on stderr
        options.log_severity_level = 4
        apply(ort, options, chosen)
        providers = _providers(ort.get_available_providers(), config)
        try:
            self._session = ort.InferenceSession(
                str(model_file), sess_options=options, providers=providers
            )
        except Exception as exc:  # ORT raises its own pybind classes (Fail, InvalidGraph, ...)
            raise RunnerError(f"ONNX Runtime cannot load {model_file.name}: {exc}") from exc
        self._outputs = [o.name for o in self._session.get_outputs()]

    @property
    def session(self) -> Any:
        """The loaded `InferenceSession` (None before `load`)."""
        return self._session

    def run(self, point: TestPoint, inputs: Mapping[str, np.ndarray]) -> RunOutput:
        if self._session is None:
            raise RunnerError("the model is not loaded")
        try:
            values = self._session.run(None, dict(inputs))
        except Exception as exc:
            raise RunnerError(str(exc).strip()) from exc
        return RunOutput(dict(zip(self._outputs, values, strict=True)))

    def describe(self) -> dict[str, Any]:
        providers = self._session.get_providers() if self._session is not None else []
        return {
            "runtime": "onnxruntime",
            "version": self._version,
            "providers": providers,
            "session_options": self._options.report(),
        }

    def close(self) -> None:
        self._session = None


def _providers(available: list[str], config: Any) -> list[str]:
    """CPU always; CUDA first when onnxruntime-gpu has it; TensorRT before it when the config
    names the `tensorrt` GPU execution accelerator (as the ONNX Runtime backend does)."""
    chosen = []
    if isinstance(config, ModelConfig):
        accelerators = config.optimization.execution_accelerators.gpu_execution_accelerator
        wants_trt = any(a.name == "tensorrt" for a in accelerators)
        if wants_trt and "TensorrtExecutionProvider" in available:
            chosen.append("TensorrtExecutionProvider")
    if "CUDAExecutionProvider" in available:
        chosen.append("CUDAExecutionProvider")
    chosen.append("CPUExecutionProvider")
    return chosen
