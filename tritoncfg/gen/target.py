"""The model a generator works on: its directory, its parsed config, and what Triton completes."""

from __future__ import annotations

from pathlib import Path

from tritoncfg.gen.change import GenError, GenUsageError
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig
from tritoncfg.text import ParsedConfig
from tritoncfg.workspace import LoadedModel


@record
class Target:
    loaded: LoadedModel
    parsed: ParsedConfig

    @property
    def dir(self) -> Path:
        return Path(self.loaded.dir.path)

    @property
    def config_path(self) -> Path:
        return Path(self.loaded.config_path)

    @property
    def name(self) -> str:
        return self.parsed.message.name or self.loaded.name


def load_target(path: Path, config_name: str | None = None) -> Target:
    """The one model at `path` (a model directory or its config file), parsed without errors;
    `config_name`: the settings' `model-config-name` (Triton's --model-config-name). Raises
    GenUsageError when there is no such model or its config does not parse."""
    from tritoncfg.api import load
    from tritoncfg.confined import PathRefused, check_input

    try:
        check_input(path)  # a loop, a name too long, a FIFO or a device
    except PathRefused as refused:
        raise GenUsageError(str(refused)) from None
    if not path.exists():
        raise GenUsageError(f"{path}: no such file or directory")
    models = load(path, config_name=config_name).models
    if len(models) != 1:
        found = "no model directory" if not models else f"{len(models)} models"
        raise GenUsageError(f"{path}: {found} found; give one model directory")
    loaded = models[0]
    if not loaded.dir.accessible:  # a link leaving the repository, or a folder not listable
        issue = next((i for i in loaded.repository.issues if i.path == loaded.dir.path), None)
        why = issue.detail if issue is not None else "the model directory cannot be listed"
        raise GenUsageError(f"{loaded.dir.path}: {why}")
    if loaded.read_error is not None:
        raise GenUsageError(f"{loaded.config_path}: cannot read: {loaded.read_error.reason}")
    parsed = loaded.config
    if parsed is None:
        raise GenUsageError(
            f"{loaded.config_path}: no config file (run `tritoncfg complete --write`)"
        )
    if not parsed.ok:
        error = parsed.errors[0]
        raise GenUsageError(
            f"{loaded.config_path}:{error.span.line}:{error.span.column}: {error.message} "
            "(fix it first)"
        )
    return Target(loaded, parsed)


def completed_config(target: Target) -> ModelConfig:
    """The config as Triton completes it (autofill, the backend's auto-complete from the model
    file, normalization) on a host without GPUs: the tensors and batch size a generator needs
    even when the file leaves them to Triton."""
    from tritoncfg.complete import complete_core
    from tritoncfg.complete.full import complete_model
    from tritoncfg.models.io import Unknowable

    core = complete_core(target.parsed.message, target.loaded.dir)
    try:
        from tritoncfg.models.locate import read_model_io

        model_io = read_model_io(target.loaded.dir, core.config)
    except ImportError as exc:
        model_io = Unknowable(None, f"no reader for this model file ({exc.name or exc})")
    completion = complete_model(target.loaded, model_io=model_io, gpus=())
    if completion.errors:
        raise GenError(
            f"{target.config_path}: Triton would not load this model: {completion.errors[0]}"
        )
    return completion.config
