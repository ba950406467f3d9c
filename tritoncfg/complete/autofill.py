"""AUTOFILL: Triton's `AutoCompleteBackendFields` (`model_config_utils.cc`), offline.

Sets `name`, `platform`, `backend` and `default_model_filename` the way Triton does before any
validation, in strict mode too. Framework blocks run in Triton's order; the first that claims the
model returns. File detection looks only in the byte-wise first subdirectory of the model
(`*std::set<string>.begin()` in `AutoCompleteBackendFields`).
"""

from __future__ import annotations

from tritoncfg.repository import Entry, ModelDir
from tritoncfg.schema import ModelConfig

TF_SAVEDMODEL = "tensorflow_savedmodel"
TF_GRAPHDEF = "tensorflow_graphdef"
TENSORRT_PLAN = "tensorrt_plan"
ONNXRUNTIME_ONNX = "onnxruntime_onnx"
PYTORCH_LIBTORCH = "pytorch_libtorch"
TORCH_AOTI = "torch_aoti"
ENSEMBLE = "ensemble"

# The backends whose platform must match (`ValidateModelConfig`'s platform/backend pair check); other backends accept any platform string.
KNOWN_BACKEND_PLATFORMS: dict[str, tuple[str, ...]] = {
    "tensorflow": (TF_GRAPHDEF, TF_SAVEDMODEL),
    "tensorrt": (TENSORRT_PLAN,),
    "onnxruntime": (ONNXRUNTIME_ONNX,),
    "pytorch": (PYTORCH_LIBTORCH, TORCH_AOTI),
}


class _Files:
    """The detection directory's entries (the byte-wise first subdirectory): names that exist, and which are files or dirs."""

    def __init__(self, entries: tuple[Entry, ...], present: bool) -> None:
        self.present = present
        self.by_name = {e.name: e for e in entries}

    def exists(self, name: str) -> bool:
        return name in self.by_name

    def is_file(self, name: str) -> bool:
        entry = self.by_name.get(name)
        return entry is not None and not entry.is_dir

    def is_dir(self, name: str) -> bool:
        entry = self.by_name.get(name)
        return entry is not None and entry.is_dir


def custom_backend_error(dirname: str) -> str:
    return (
        f"Invalid model name: Could not determine backend for model '{dirname}' with no backend in "
        "model configuration. Expected model name of the form 'model.<backend_name>'."
    )


def autofill_backend_fields(config: ModelConfig, model: ModelDir) -> str | None:
    """Fill the backend fields of `config` in place; returns Triton's `Could not determine backend`
    message on failure."""
    if not config.name:
        config.name = model.name
    files = _Files(model.detection_entries, model.detection_dir is not None)
    for block in (_tensorflow, _tensorrt, _onnx, _openvino, _pytorch, _python):
        if block(config, files):
            return None
    if not config.backend and not config.platform and not config.default_model_filename:
        if "." not in model.name:
            return custom_backend_error(model.name)
        backend = model.name.split(".", 1)[1]
        config.backend = backend
        config.default_model_filename = f"model.{backend}"
    return None


def _tensorflow(config: ModelConfig, files: _Files) -> bool:
    if not config.platform and config.backend in ("", "tensorflow"):
        filename = config.default_model_filename
        if filename == "model.savedmodel":
            config.platform = TF_SAVEDMODEL
        elif filename == "model.graphdef":
            config.platform = TF_GRAPHDEF
        elif not filename and files.present:
            if files.is_dir("model.savedmodel"):
                config.platform = TF_SAVEDMODEL
            if files.is_file("model.graphdef"):
                config.platform = TF_GRAPHDEF  # graphdef wins when both are there
    if config.platform not in (TF_SAVEDMODEL, TF_GRAPHDEF):
        return False
    if not config.backend:
        config.backend = "tensorflow"
    if not config.default_model_filename:
        savedmodel = config.platform == TF_SAVEDMODEL
        config.default_model_filename = "model.savedmodel" if savedmodel else "model.graphdef"
    return True


def _single_file_framework(
    config: ModelConfig, files: _Files, *, backend: str, platform: str, filename: str, dir_ok: bool
) -> bool:
    if not config.backend:
        if config.platform == platform or config.default_model_filename == filename:
            config.backend = backend
        elif not config.platform and not config.default_model_filename and files.present:
            found = files.exists(filename) if dir_ok else files.is_file(filename)
            if found:
                config.backend = backend
    if config.backend != backend:
        return False
    if not config.platform:
        config.platform = platform
    if not config.default_model_filename:
        config.default_model_filename = filename
    return True


def _tensorrt(config: ModelConfig, files: _Files) -> bool:
    # a `model.plan` directory does not count (Triton checks IsDirectory)
    return _single_file_framework(
        config,
        files,
        backend="tensorrt",
        platform=TENSORRT_PLAN,
        filename="model.plan",
        dir_ok=False,
    )


def _onnx(config: ModelConfig, files: _Files) -> bool:
    # `model.onnx` may be a directory (external-data models)
    return _single_file_framework(
        config,
        files,
        backend="onnxruntime",
        platform=ONNXRUNTIME_ONNX,
        filename="model.onnx",
        dir_ok=True,
    )


def _openvino(config: ModelConfig, files: _Files) -> bool:
    if not config.backend:
        filename = config.default_model_filename
        if filename == "model.xml" or (
            not config.platform and not filename and files.present and files.exists("model.xml")
        ):
            config.backend = "openvino"
    if config.backend != "openvino":
        return False
    if not config.default_model_filename:
        config.default_model_filename = "model.xml"  # the platform is never set for OpenVINO
    return True


def _pytorch(config: ModelConfig, files: _Files) -> bool:
    if not config.backend:
        platform, filename = config.platform, config.default_model_filename
        if (
            platform in (PYTORCH_LIBTORCH, "libtorch")
            or filename == "model.pt"
            or platform == TORCH_AOTI
            or filename == "model.pt2"
        ):
            config.backend = "pytorch"
        elif not platform and not filename and files.present:
            if files.is_file("model.pt"):
                config.backend, config.platform = "pytorch", PYTORCH_LIBTORCH
            elif files.is_file("model.pt2"):
                config.backend, config.platform = "pytorch", TORCH_AOTI
    if config.backend != "pytorch":
        return False
    if not config.platform:
        config.platform = PYTORCH_LIBTORCH
        if not config.default_model_filename:
            config.default_model_filename = "model.pt"
    elif config.platform == TORCH_AOTI and not config.default_model_filename:
        config.default_model_filename = "model.pt2"
    return True


def _python(config: ModelConfig, files: _Files) -> bool:
    if not config.backend:
        filename = config.default_model_filename
        if filename == "model.py" or (
            not config.platform and not filename and files.present and files.exists("model.py")
        ):
            config.backend = "python"
    if config.backend != "python":
        return False
    if not config.default_model_filename:
        config.default_model_filename = "model.py"
    return True
