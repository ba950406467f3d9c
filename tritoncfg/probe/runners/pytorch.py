"""The PyTorch runner: a TorchScript `model.pt` (platform `pytorch_libtorch`), loaded with
`torch.jit.load` as Triton's PyTorch backend loads it, its inputs bound to `forward()` by the
backend's rules (`pytorch_binding.py`). It runs on `cuda:<--gpu>` when an instance group is
KIND_GPU and torch has a CUDA device (timed there with CUDA events, synchronized), else on the
CPU (timed by probe's loop on the host clock). Every failure carries torch's own message.

The parameters the backend reads that change how the model runs are applied as it applies them
(`pytorch_backend` `src/pt/model_state.cc`, `ParseParameters`): `INFERENCE_MODE` (default
true), `DISABLE_OPTIMIZED_EXECUTION` (default false), `INTRA_OP_THREAD_COUNT` and
`INTER_OP_THREAD_COUNT`. torch is imported here only, in probe's worker process.
"""

from __future__ import annotations

import warnings
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
from tritoncfg.probe.runners import runs_on_gpu
from tritoncfg.probe.runners.parameters import bool_parameter, int_parameter
from tritoncfg.probe.runners.pytorch_binding import Argument, Binding, bind
from tritoncfg.schema import ModelConfig

if TYPE_CHECKING:
    import numpy as np


class PyTorchRunner:
    name = "pytorch"

    def __init__(self, settings: ProbeSettings) -> None:
        self.settings = settings
        self._torch: Any = None
        self._module: Any = None
        self._binding: Binding | None = None
        self._device = "cpu"
        self._options: dict[str, Any] = {}
        self._notes: list[str] = []

    def load(self, model_file: Path, config: Any) -> None:
        try:
            import torch
        except ImportError as exc:
            raise RunnerUnavailable(
                "torch is not installed (pip install 'tritoncfg[pytorch]')"
            ) from exc
        self._torch = torch
        config = config if isinstance(config, ModelConfig) else ModelConfig()
        self._device = self._choose_device(torch, config)
        self._options = _options(config)
        self._set_threads(torch)
        try:
            with warnings.catch_warnings():  # torch 2.13 deprecates TorchScript, which Triton loads
                warnings.simplefilter("ignore", DeprecationWarning)
                self._module = torch.jit.load(str(model_file), map_location=self._device)
        except Exception as exc:  # torch raises RuntimeError, ValueError, ...
            raise RunnerError(f"PyTorch cannot load {model_file.name}: {_message(exc)}") from exc
        self._module.eval()
        arguments = [Argument(a.name, a.type.kind()) for a in self._module.forward.schema.arguments]
        self._binding = bind(config, arguments)

    def run(self, point: TestPoint, inputs: Mapping[str, np.ndarray]) -> RunOutput:
        if self._module is None or self._binding is None:
            raise RunnerError("the model is not loaded")
        torch = self._torch
        args = self._arguments(inputs)
        cuda = self._device.startswith("cuda")
        with (
            torch.jit.optimized_execution(self._options["optimized_execution"]),
            torch.inference_mode(self._options["inference_mode"]),
            torch.no_grad(),
        ):
            try:
                if not cuda:
                    return RunOutput(self._outputs(self._module(*args)))
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                result = self._module(*args)
                end.record()
                end.synchronize()
                return RunOutput(self._outputs(result), [float(start.elapsed_time(end))])
            except RunnerError:
                raise
            except Exception as exc:  # the TorchScript interpreter raises RuntimeError, ...
                raise RunnerError(f"PyTorch execute failure: {_message(exc)}") from exc

    def describe(self) -> dict[str, Any]:
        torch = self._torch
        facts: dict[str, Any] = {"runtime": "pytorch"}
        if torch is None:
            return facts
        facts.update(version=torch.__version__, device=self._device)
        if self._device.startswith("cuda"):
            facts["gpu"] = torch.cuda.get_device_name(self._device)
        if self._binding is not None:
            facts["naming"] = {
                "inputs": self._binding.input_convention,
                "outputs": self._binding.output_convention,
            }
        facts["options"] = dict(
            self._options,
            intra_op_threads=torch.get_num_threads(),
            inter_op_threads=torch.get_num_interop_threads(),
        )
        if self._notes:
            facts["notes"] = list(self._notes)
        return facts

    def close(self) -> None:
        self._module = None
        if self._torch is not None and self._device.startswith("cuda"):
            self._torch.cuda.empty_cache()

    def _choose_device(self, torch: Any, config: ModelConfig) -> str:
        """`cuda:<--gpu>` for a KIND_GPU instance group on a machine with CUDA, else the CPU."""
        if not runs_on_gpu(self.name, config):
            return "cpu"
        if not torch.cuda.is_available():
            self._notes.append(
                "the config's instance group is KIND_GPU, but torch has no CUDA device here: "
                "run on the CPU"
            )
            return "cpu"
        return f"cuda:{self.settings.device}"

    def _set_threads(self, torch: Any) -> None:
        intra = self._options.pop("intra_op_thread_count") or self.settings.threads
        if intra > 0:
            torch.set_num_threads(intra)
        inter = self._options.pop("inter_op_thread_count")
        if inter > 0:
            try:  # once per process, before any parallel work (a fresh worker has done none)
                torch.set_num_interop_threads(inter)
            except RuntimeError as exc:
                self._notes.append(f"INTER_OP_THREAD_COUNT not applied: {exc}")

    def _arguments(self, inputs: Mapping[str, np.ndarray]) -> list[Any]:
        """forward()'s arguments in the binding's order (one dict for a dictionary input)."""
        assert self._binding is not None
        tensors = {name: self._tensor(array) for name, array in inputs.items()}
        missing = [n for n in self._binding.inputs if n not in tensors]
        if missing:
            raise RunnerError(f"no value for input '{missing[0]}'")
        if self._binding.as_dict:
            return [{name: tensors[name] for name in self._binding.inputs}]
        args: list[Any] = [None] * self._binding.arguments
        for name, position in self._binding.inputs.items():
            if not 0 <= position < len(args):
                raise RunnerError(
                    f"input '{name}' goes to forward() argument {position}, and forward() takes "
                    f"{len(args)}"
                )
            args[position] = tensors[name]
        return args

    def _tensor(self, array: np.ndarray) -> Any:
        """A torch tensor on the model's device; strings as a List[str], as the backend does."""
        if array.dtype.kind in "OSU":
            return [str(v) for v in array.reshape(-1)]
        return self._torch.from_numpy(array).to(self._device)

    def _outputs(self, result: Any) -> dict[str, np.ndarray]:
        """The config's outputs picked from what forward() returned, by the binding's index."""
        assert self._binding is not None
        returned = list(result) if isinstance(result, tuple) else [result]
        outputs = {}
        for name, index in self._binding.outputs.items():
            if not 0 <= index < len(returned):
                raise RunnerError(
                    f"The output {name} in the model configuration refers to an output index "
                    f"which doesn't exist. This model has {len(returned)} outputs"
                )
            outputs[name] = _array(name, returned[index])
        return outputs


def _array(name: str, value: Any) -> np.ndarray:
    import numpy as np

    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return np.array(value, dtype=object)
    if not hasattr(value, "detach"):
        raise RunnerError(
            f"output '{name}' is a {type(value).__name__}: the backend takes a Tensor, a "
            "List[str] or a tuple of them"
        )
    try:
        array: np.ndarray = value.detach().cpu().numpy()
    except TypeError as exc:  # bfloat16 and other types numpy has no dtype for
        raise RunnerError(f"output '{name}': {exc}") from exc
    return array


def _options(config: ModelConfig) -> dict[str, Any]:
    def flag(key: str, default: bool) -> bool:
        return bool_parameter(config, key, default, "pytorch")

    def count(key: str) -> int:
        return max(int_parameter(config, key, "pytorch"), 0)

    return {
        "inference_mode": flag("INFERENCE_MODE", True),
        "optimized_execution": not flag("DISABLE_OPTIMIZED_EXECUTION", False),
        "intra_op_thread_count": count("INTRA_OP_THREAD_COUNT"),
        "inter_op_thread_count": count("INTER_OP_THREAD_COUNT"),
    }


def _message(exc: BaseException) -> str:
    """torch's own message: the TorchScript interpreter's last line (its error), without the
    traceback of the scripted code above it."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if len(lines) > 1 and "TorchScript" in lines[0]:
        return lines[-1].strip()
    return " ".join(line.strip() for line in lines)


__all__ = ["PyTorchRunner"]
