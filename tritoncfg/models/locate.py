"""Which model file Triton would load for a model, and reading it with the right reader.

`model_file` is pure (the repository model's entries only). `read_model_io` picks the version
Triton loads, finds its file and hands it to the reader of the backend's format; readers import
their heavy libraries lazily, so a repository without model files never imports them.
"""

from __future__ import annotations

from pathlib import Path

from tritoncfg.models.io import ModelIO, Unknowable
from tritoncfg.repository import ModelDir, Version
from tritoncfg.repository.version_selection import VersionSelection, select_versions
from tritoncfg.runtimes import BY_NAME
from tritoncfg.schema import ModelConfig

ONNX_DEFAULT = BY_NAME["onnxruntime"].default_file
OPENVINO_DEFAULT = "model.xml"  # openvino_backend `ModelState::ReadModel`

# Backends whose model file Triton hands to the framework, which alone knows the I/O: what
# tritoncfg can say about it. Model code is never imported or executed.
_OPAQUE: dict[str, str] = {
    "pytorch": (
        "a TorchScript / AOTInductor file does not describe its inputs and outputs; the PyTorch "
        "backend takes them from the config"
    ),
    "tensorflow": (
        "reading a SavedModel / GraphDef signature needs TensorFlow, which tritoncfg does not use"
    ),
    "python": (
        "a python model's I/O comes from its auto_complete_config() in model.py, which tritoncfg "
        "never imports or runs"
    ),
}
_OPAQUE_DEFAULTS = {
    "pytorch": BY_NAME["pytorch"].default_file,
    "tensorflow": "model.savedmodel",
    "python": "model.py",
}


def backend_format(config: ModelConfig) -> str | None:
    """`onnxruntime`, `tensorrt`, `openvino`, or the opaque backend the completed config names."""
    if config.backend == "onnxruntime" or config.platform == "onnxruntime_onnx":
        return "onnxruntime"
    if config.backend == "tensorrt" or config.platform == "tensorrt_plan":
        return "tensorrt"
    if config.backend == "openvino":
        return "openvino"
    return config.backend if config.backend in _OPAQUE else None


def loaded_version(
    model: ModelDir, config: ModelConfig, selection: VersionSelection | None = None
) -> Version | None:
    """The highest version the version policy selects that exists on disk (`selection`: the
    policy's selection, where the caller has it)."""
    if selection is None:
        selection = select_versions(config.version_policy, model.version_numbers)
    for number in reversed(selection.selected):
        version = model.version(number)
        if version is not None:
            return version
    return None


def model_file(version: Version, filename: str, *, onnx: bool) -> Path | None:
    """The file Triton opens: `<model>/<version>/<filename>`; an ONNX `model.onnx` directory
    stands for `<dir>/model.onnx` (the ONNX Runtime backend accepts a directory). None when it
    is not there. Pure: a nested name or a `model.onnx` directory is not looked into (the caller
    checks the file, and that no symlink leads out of the model directory)."""
    if not version.dirname_is_canonical or version.number < 0:
        # Triton reads `<model>/<number>`, which is not this folder; a backend reads a negative
        # version from `<model>/<number as uint64>/`
        return None
    parts = Path(filename.lstrip("/")).parts
    if not parts or ".." in parts:
        return None
    entry = version.entry(parts[0])
    if entry is None or entry.outside_root or not (entry.is_file or entry.is_dir):
        return None
    target = version.path.joinpath(*parts)
    if len(parts) == 1 and entry.is_dir:
        return target / ONNX_DEFAULT if onnx else None
    return target


def read_model_io(
    model: ModelDir, config: ModelConfig, selection: VersionSelection | None = None
) -> ModelIO | Unknowable | None:
    """What the model file of the loaded version says about its I/O; None without a file
    (`selection`: as for `loaded_version`)."""
    kind = backend_format(config)
    if kind is None:
        return None
    version = loaded_version(model, config, selection)
    if version is None:
        return None
    if kind in _OPAQUE:
        name = config.default_model_filename or _OPAQUE_DEFAULTS[kind]
        found = version.entry(name)
        return None if found is None else Unknowable(found.path, _OPAQUE[kind])
    onnx = kind == "onnxruntime"
    default = OPENVINO_DEFAULT if kind == "openvino" else BY_NAME[kind].default_file
    filename = config.default_model_filename or default
    path = model_file(version, filename, onnx=onnx)
    if path is None or model.resolve(str(path.relative_to(model.path))) is None:
        return None  # not there, or a symlink out of the model directory
    if not path.is_file():
        return None  # the missing file is another rule's finding
    if onnx:
        from tritoncfg.models.onnx import read_onnx

        return read_onnx(path)
    if kind == "openvino":
        from tritoncfg.models.openvino import read_openvino

        return read_openvino(path)
    from tritoncfg.models.tensorrt import read_plan

    return read_plan(path)


__all__ = ["backend_format", "loaded_version", "model_file", "read_model_io"]
