"""The runners probe knows, by name, imported only when a model needs one.

The registry holds `"module:Class"` strings, so listing the runners imports no runtime. A runner
is constructed as `Runner(settings)`; a module that is missing (an install without it) makes
`load_runner` raise `RunnerUnavailable` with the reason, and probe exits 3.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import cast

from tritoncfg.probe.contract import ProbeSettings, Runner, RunnerUnavailable

RUNNERS: dict[str, str] = {
    "onnxruntime": "tritoncfg.probe.runners.onnxruntime:OnnxRuntimeRunner",
    "tensorrt": "tritoncfg.probe.runners.tensorrt:TensorRTRunner",
}

# `--runtime auto`: the runtime each model file kind runs on
_BY_SUFFIX = {".onnx": "onnxruntime", ".plan": "tensorrt"}


def load_runner(name: str, settings: ProbeSettings) -> Runner:
    """A new runner `name`; RunnerUnavailable when it cannot be imported here."""
    target = RUNNERS.get(name)
    if target is None:
        raise RunnerUnavailable(f"unknown runner '{name}' (known: {', '.join(sorted(RUNNERS))})")
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        missing = exc.name or str(exc)
        raise RunnerUnavailable(
            f"the {name} runner cannot be imported in this install ({missing} is missing)"
        ) from exc
    runner_class = getattr(module, class_name, None)
    if runner_class is None:
        raise RunnerUnavailable(f"the {name} runner module has no {class_name}")
    return cast("Runner", runner_class(settings))


def choose_runtime(choice: str, model_file: Path | None) -> tuple[str | None, str | None]:
    """(runtime, why not) for a model file under `--runtime choice` (auto, onnxruntime,
    tensorrt): `.onnx` runs on ONNX Runtime by default, `.plan` on TensorRT; TensorRT can also
    build an engine from an `.onnx`, but ONNX Runtime cannot run a plan."""
    if model_file is None:
        return None, "no model file to run"
    suffix = model_file.suffix
    if suffix not in _BY_SUFFIX:
        return None, f"{model_file.name}: probe runs .onnx and .plan model files only"
    if choice == "auto":
        return _BY_SUFFIX[suffix], None
    if choice == "onnxruntime" and suffix == ".plan":
        return None, "ONNX Runtime cannot run a TensorRT plan (use --runtime tensorrt or auto)"
    return choice, None


__all__ = ["RUNNERS", "choose_runtime", "load_runner"]
