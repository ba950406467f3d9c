"""The runners probe knows, imported only when a model needs one.

Each runtime's runner is named (`"module:Class"`) in the one runtime table,
`tritoncfg/runtimes.py`, so listing the runners imports no runtime. A runner is constructed as
`Runner(settings)`; a module that is missing (an install without it) makes `load_runner` raise
`RunnerUnavailable` with the reason and the extra that installs it, and probe exits 3.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, cast

from tritoncfg.probe.contract import ProbeSettings, Runner, RunnerUnavailable
from tritoncfg.runtimes import BY_NAME, RUNTIMES, runtime_for_file
from tritoncfg.schema import ModelInstanceGroup

RUNNERS: dict[str, str] = {r.name: r.runner for r in RUNTIMES}


def load_runner(name: str, settings: ProbeSettings) -> Runner:
    """A new runner `name`; RunnerUnavailable when it cannot be imported here."""
    runtime = BY_NAME.get(name)
    if runtime is None:
        raise RunnerUnavailable(f"unknown runner '{name}' (known: {', '.join(sorted(BY_NAME))})")
    module_name, _, class_name = runtime.runner.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        missing = exc.name or str(exc)
        raise RunnerUnavailable(
            f"the {name} runner cannot be imported in this install ({missing} is missing; "
            f"pip install 'tritoncfg[{runtime.extra}]')"
        ) from exc
    runner_class = getattr(module, class_name, None)
    if runner_class is None:
        raise RunnerUnavailable(f"the {name} runner module has no {class_name}")
    return cast("Runner", runner_class(settings))


def choose_runtime(choice: str, model_file: Path | None) -> tuple[str | None, str | None]:
    """(runtime, why not) for a model file under `--runtime choice` (auto or a runtime's name):
    `auto` runs each file on the runtime of its suffix; a runtime asked for by name also takes
    the files it builds from (TensorRT builds an engine from an `.onnx`)."""
    if model_file is None:
        return None, "no model file to run"
    suffix = model_file.suffix
    if choice == "auto":
        found = runtime_for_file(suffix)
        if found is None:
            known = ", ".join(s for r in RUNTIMES for s in r.suffixes)
            return None, f"{model_file.name}: probe runs {known} model files only"
        return found.name, None
    runtime = BY_NAME[choice]
    if suffix in runtime.suffixes + runtime.builds_from:
        return choice, None
    owner = runtime_for_file(suffix)
    if owner is None:
        return None, f"{runtime.title} cannot run {model_file.name}"
    return None, (
        f"{runtime.title} cannot run {model_file.name} ({owner.title} runs it: use --runtime "
        f"{owner.name} or auto)"
    )


def runs_on_gpu(runtime: str | None, config: Any) -> bool:
    """Whether the runtime runs this (completed) config's model on a GPU: always, never, or
    (PyTorch) when an instance group is KIND_GPU, as Triton places its instances."""
    found = BY_NAME.get(runtime or "")
    if found is None or found.device == "cpu":
        return False
    if found.device == "gpu":
        return True
    return any(g.kind == ModelInstanceGroup.KIND_GPU for g in config.instance_group)


__all__ = ["RUNNERS", "choose_runtime", "load_runner", "runs_on_gpu"]
