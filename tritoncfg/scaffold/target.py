"""The model a BLS model calls (`--target`): it must be a model of the repository, and the BLS
model's tensors and batch size are the ones Triton completes for it, so that each request is
forwarded as the target takes it (`pb_utils.InferenceRequest(...).exec()` fails a request whose
tensors the target does not declare)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec, validate_name
from tritoncfg.schema import DataType, ModelConfig

if TYPE_CHECKING:
    from tritoncfg.text import ParsedConfig

_SHOWN = 6  # model names a "no such target" error lists


def target_config(repository: Path, target: str | None, caller: str) -> ModelConfig:
    """The target's config as Triton completes it (autofill, the backend's auto-complete from
    the model file, normalization), on a host without GPUs. Raises ScaffoldError naming why."""
    from tritoncfg.api import load
    from tritoncfg.complete import complete_core
    from tritoncfg.complete.full import complete_model
    from tritoncfg.models.locate import read_model_io
    from tritoncfg.repository.discover import is_model_dir

    if target is None:
        raise ScaffoldError("a bls model calls another model: name it with --target MODEL")
    validate_name(target, "--target model name")
    if target == caller:
        raise ScaffoldError(f"--target {target!r} is the bls model itself; name the model it calls")
    path = repository / target
    if not is_model_dir(path):
        raise ScaffoldError(f"--target {target!r}: {path} is not a model. {_known(repository)}")
    (loaded,) = load(path).models
    parsed = loaded.config
    if parsed is None or not parsed.ok:
        why = "it has no config.pbtxt" if parsed is None else _first_error(parsed)
        raise ScaffoldError(f"--target {target!r}: {loaded.config_path}: {why}")
    try:
        model_io = read_model_io(loaded.dir, complete_core(parsed.message, loaded.dir).config)
    except ImportError:  # no reader for its file here (onnx not installed): the config alone
        model_io = None
    completion = complete_model(loaded, model_io=model_io, gpus=())
    if completion.errors:
        raise ScaffoldError(
            f"--target {target!r}: Triton would not load it: {completion.errors[0]}"
        )
    if not completion.config.input or not completion.config.output:
        raise ScaffoldError(
            f"--target {target!r}: its config declares no inputs or no outputs to forward "
            "(add them, e.g. with `tritoncfg complete --write`)"
        )
    return completion.config


def target_tensors(config: ModelConfig) -> tuple[list[TensorSpec], list[TensorSpec]]:
    """The target's inputs and outputs, as the BLS model declares them."""
    return (
        [TensorSpec(t.name, DataType.Name(t.data_type), tuple(t.dims)) for t in config.input],
        [TensorSpec(t.name, DataType.Name(t.data_type), tuple(t.dims)) for t in config.output],
    )


def _known(repository: Path) -> str:
    from tritoncfg.scaffold.destination import model_names

    names = model_names(repository)
    if not names:
        return f"{repository} has no models yet: add the target first (new --model NAME)"
    shown = ", ".join(names[:_SHOWN]) + (", ..." if len(names) > _SHOWN else "")
    return f"The models of {repository}: {shown}"


def _first_error(parsed: ParsedConfig) -> str:
    error = parsed.errors[0]
    return f"line {error.span.line}, column {error.span.column}: {error.message} (fix it first)"


__all__ = ["target_config", "target_tensors"]
