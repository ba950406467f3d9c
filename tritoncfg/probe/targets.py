"""From paths to model plans: each model's completed config, its model file and runtime, its
test points; an ensemble's steps planned with the shapes its wiring passes them.

A model no runtime of `tritoncfg/runtimes.py` runs (python, tensorflow, ...) is skipped with
the reason; a config Triton would refuse to load is a failure carrying Triton's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tritoncfg.complete import complete_core
from tritoncfg.complete.full import complete_model
from tritoncfg.models.io import ModelIO, Unknowable
from tritoncfg.models.locate import read_model_io
from tritoncfg.probe.coverage import ALL, BatchCoverage, batch_sizes, left_out, left_out_note
from tritoncfg.probe.lintgate import lint_refusal
from tritoncfg.probe.plan import ModelPlan, Range, plan_points
from tritoncfg.probe.runners import choose_runtime
from tritoncfg.runtimes import RUNTIMES, runtime_serving
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel, Workspace


def plan_workspace(
    workspace: Workspace,
    dims: Mapping[str, Range],
    runtime: str = "auto",
    coverage: BatchCoverage = ALL,
) -> list[ModelPlan]:
    return [
        plan_model(loaded, workspace, dims, runtime, coverage=coverage)
        for loaded in workspace.models
    ]


def plan_model(
    loaded: LoadedModel,
    workspace: Workspace,
    dims: Mapping[str, Range],
    runtime: str = "auto",
    *,
    wiring: Mapping[str, tuple[int, ...]] | None = None,
    step: str | None = None,
    ensemble_batches: Mapping[int, tuple[str, ...]] | None = None,
    coverage: BatchCoverage = ALL,
) -> ModelPlan:
    """The plan of one model (of an ensemble's `step`, when `wiring` gives its input dims)."""
    path = _shown(loaded.dir.path)
    refused = lint_refusal(loaded.dir.path) if step is None else None
    if refused is not None:
        message = loaded.config.message if loaded.config is not None else None
        config = ModelConfig(name=loaded.name) if message is None else message
        return ModelPlan(loaded.name, path, config, fail=refused)
    # no config at all is fine: Triton completes one from the model file (default mode)
    if loaded.read_error is not None or (loaded.config is not None and not loaded.config.ok):
        why = "its config cannot be read or parsed (run `tritoncfg lint`)"
        return ModelPlan(loaded.name, path, ModelConfig(name=loaded.name), fail=why)
    model_io = _model_io(loaded)
    completion = complete_model(
        loaded,
        model_io=model_io,
        gpus=(),
        peer=lambda name: workspace.peer(loaded, name),
    )
    config = completion.config
    plan = ModelPlan(loaded.name, path, config, directory=loaded.dir.path)
    if loaded.config is not None:
        plan.config_path = loaded.dir.config_path
    if completion.errors:
        plan.fail = f"Triton would not load it: {completion.errors[0]}"
        return plan
    if config.HasField("ensemble_scheduling"):
        plan.steps = _plan_steps(loaded, workspace, config, dims, runtime, coverage)
        return plan
    if runtime_serving(config.backend, config.platform) is None:
        plan.skip = _opaque_reason(config)
        return plan
    model_file = model_io.path if isinstance(model_io, ModelIO | Unknowable) else None
    plan.model_file = model_file
    plan.runtime, plan.skip = choose_runtime(runtime, model_file)
    if model_file is None:
        plan.skip = "no model file in the version Triton loads"
    readable = model_io if isinstance(model_io, ModelIO) else None
    if isinstance(model_io, Unknowable):
        plan.notes.append(model_io.reason)
    points, plan.variables, notes = plan_points(
        config,
        readable,
        dims,
        wiring=wiring,
        step=step,
        ensemble_batches=ensemble_batches,
        coverage=coverage,
    )
    plan.points = points
    plan.notes.extend(notes)
    if config.max_batch_size > 0:
        plan.left_out = left_out(config.max_batch_size, {p.batch_size or 1 for p in points})
        if plan.left_out:
            plan.notes.append(left_out_note(config.max_batch_size, plan.left_out))
    return plan


def _shown(path: Path) -> str:
    """The model directory relative to the working directory when it is inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _model_io(loaded: LoadedModel) -> ModelIO | Unknowable | None:
    core = complete_core(loaded.config.message if loaded.config else None, loaded.dir)
    try:
        return read_model_io(loaded.dir, core.config)
    except ImportError as exc:
        return Unknowable(None, f"no reader for this model file here ({exc.name or exc})")


def _opaque_reason(config: ModelConfig) -> str:
    backend = config.backend or config.platform or "unknown"
    if backend == "python":
        return "python backend: tritoncfg never imports or runs model.py"
    if config.platform and config.platform != backend:
        backend = f"{backend} ({config.platform})"
    served = ", ".join(f"{r.title} ({r.default_file})" for r in RUNTIMES)
    return f"{backend} backend: probe runs {served} models only"


def _plan_steps(
    loaded: LoadedModel,
    workspace: Workspace,
    config: ModelConfig,
    dims: Mapping[str, Range],
    runtime: str,
    coverage: BatchCoverage,
) -> list[ModelPlan]:
    """Each step at the ensemble's batch sizes, its inputs sized by the tensors wired to them:
    an ensemble input's dims, or the dims the producing step declares for its output."""
    known: dict[str, tuple[int, ...]] = {t.name: tuple(t.dims) for t in config.input}
    # the batch sizes the ensemble sends on (as --batch-sizes picks them for the ensemble);
    # one request when it does not batch
    batches = batch_sizes(config, [], coverage) or {1: ("1",)}
    plans = []
    for step in config.ensemble_scheduling.step:
        member = workspace.peer(loaded, step.model_name)
        if member is None:
            missing = ModelPlan(step.model_name, "", ModelConfig(name=step.model_name))
            missing.fail = f"step model '{step.model_name}' is not in the repository"
            plans.append(missing)
            continue
        if member.config is not None and member.config.message.HasField("ensemble_scheduling"):
            nested = ModelPlan(step.model_name, _shown(member.dir.path), member.config.message)
            nested.skip = "a nested ensemble: probed through its own steps where it is listed"
            plans.append(nested)
            continue
        wiring = {key: known[value] for key, value in step.input_map.items() if value in known}
        plan = plan_model(
            member,
            workspace,
            dims,
            runtime,
            wiring=wiring,
            step=step.model_name,
            ensemble_batches=batches,
            coverage=coverage,
        )
        plan.wiring_in = dict(step.input_map)
        plan.wiring_out = dict(step.output_map)
        outputs = {t.name: tuple(t.dims) for t in plan.config.output}
        for key, value in step.output_map.items():
            if key in outputs:
                known[value] = outputs[key]
        plans.append(plan)
    return plans


__all__ = ["plan_model", "plan_workspace"]
