"""`new --from-model FILE`: a model folder around an existing model file, its config written
by Triton's auto-complete offline (`tritoncfg.complete`), as `complete --write` writes it.

ONNX files are read with onnx, TensorRT plans where TensorRT runs (tritoncfg.models.tensorrt);
a TorchScript file does not describe its tensors, so they come from `--input` / `--output`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from tritoncfg.models.io import ModelIO, Unknowable
from tritoncfg.scaffold.models import KEEP, MODEL_FILES, ModelFiles, config_text, tensor_config
from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec

SUFFIXES = {".onnx": "onnxruntime", ".plan": "tensorrt", ".engine": "tensorrt", ".pt": "pytorch"}


def from_model_file(
    name: str, source: Path, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> ModelFiles:
    backend = SUFFIXES.get(source.suffix.lower())
    if backend is None:
        known = ", ".join(SUFFIXES)
        raise ScaffoldError(f"{source}: unknown model file type (expected one of {known})")
    if not source.is_file():
        raise ScaffoldError(f"{source}: no such file")
    target = f"1/{MODEL_FILES[backend]}"
    if backend == "pytorch":
        if not inputs or not outputs:
            raise ScaffoldError(
                f"{source}: a TorchScript file does not describe its tensors; give them with "
                "--input NAME:DTYPE:DIMS and --output NAME:DTYPE:DIMS (e.g. INPUT__0:FP32:16)"
            )
        text = config_text(tensor_config(name, backend, inputs, outputs))
        return ModelFiles(name, {"config.pbtxt": text, target: source, f"1/{KEEP}": ""})
    if inputs or outputs:
        raise ScaffoldError(
            f"{source}: the file describes its tensors; --input and --output are for templates "
            "and TorchScript files"
        )
    model_io = _read(source, backend)
    files: dict[str, str | Path] = {"config.pbtxt": completed_config(name, backend, model_io)}
    files[target] = source
    files[f"1/{KEEP}"] = ""  # the model file stays out of git (.gitignore): a clone keeps 1/
    if model_io.external_data:
        for location in external_files(source):
            files[f"1/{location}"] = source.parent / location
    return ModelFiles(name, files)


def external_files(source: Path) -> list[str]:
    """The files beside an ONNX model that hold its weights (copied with it, as ONNX Runtime
    reads them from the model's folder). One that resolves elsewhere (a symlink) is refused,
    as ONNX Runtime refuses it: its bytes are never copied into the project."""
    import onnx

    from tritoncfg.models.onnx import external_data_escape

    model = onnx.load(str(source), load_external_data=False)
    found: set[str] = set()
    for tensor in model.graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL:
            continue
        location = {e.key: e.value for e in tensor.external_data}.get("location", "")
        parts = Path(location).parts
        if not parts or ".." in parts or Path(location).is_absolute():
            raise ScaffoldError(f"{source}: external data location {location!r} is not beside it")
        outside = external_data_escape(source.parent, location)
        if outside is not None:  # a symlink to a file elsewhere: its bytes are not copied
            raise ScaffoldError(
                f"{source}: its external data file {source.parent / location} is not copied: "
                f"{outside}; ONNX Runtime refuses external data outside the model file's folder "
                "(put the file itself beside the model)"
            )
        if not (source.parent / location).is_file():
            raise ScaffoldError(
                f"{source}: its weights file {location!r} is not beside it; ONNX Runtime "
                "could not load the model"
            )
        found.add(location)
    return sorted(found)


def _read(source: Path, backend: str) -> ModelIO:
    if backend == "onnxruntime":
        try:
            from tritoncfg.models.onnx import read_onnx
        except ImportError:
            raise ScaffoldError(
                f"{source}: reading an ONNX file needs onnx (pip install 'tritoncfg[onnx]')"
            ) from None
        found = read_onnx(source)
    else:
        from tritoncfg.models.tensorrt import read_plan

        found = read_plan(source)
    if isinstance(found, Unknowable):
        raise ScaffoldError(f"{source}: {found.reason}")
    return found


def completed_config(name: str, backend: str, model_io: ModelIO) -> str:
    """The config `complete --write` creates for a model folder holding only the model file:
    name, backend, and what the backend's auto-complete derives (max_batch_size, input, output,
    dynamic_batching). The folder is staged empty; `model_io` is the file, already read."""
    from tritoncfg.complete.full import complete_model
    from tritoncfg.complete.merge import MergeError, fields_to_write, merge_config
    from tritoncfg.repository import discover
    from tritoncfg.workspace import load_model

    with tempfile.TemporaryDirectory(prefix="tritoncfg-new-") as staging:
        model_dir = Path(staging) / name
        (model_dir / "1").mkdir(parents=True)
        (model_dir / "1" / MODEL_FILES[backend]).touch()
        (model_dir / "config.pbtxt").write_text(f'backend: "{backend}"\n', encoding="utf-8")
        repository = discover(staging)
        found = repository.model(name)
        assert found is not None
        completion = complete_model(load_model(found, repository), model_io=model_io, gpus=())
    if completion.errors:
        raise ScaffoldError(f"{model_io.path}: Triton would not load it: {completion.errors[0]}")
    wanted = fields_to_write(completion, creating=True)
    try:
        return merge_config(None, wanted).text
    except MergeError as exc:  # pragma: no cover - a tritoncfg bug
        raise ScaffoldError(f"cannot write the config: {exc}") from exc


__all__ = ["SUFFIXES", "completed_config", "external_files", "from_model_file"]
