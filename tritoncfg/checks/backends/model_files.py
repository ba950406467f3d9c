"""TC126: the model file each standard backend opens for every version Triton loads.

Core does not look into a version directory (`model_lifecycle.cc`); each backend joins
`<model>/<version>/<default_model_filename or its default name>` and fails the load when it is
not there (`onnxruntime.cc:ModelState::LoadModel`, `tensorrt_backend instance_state.cc` and
`model_state.cc:AutoCompleteConfig`, `pytorch_backend src/pt/model_state.cc` and
`src/pt2/model_state.cc`, `tensorflow.cc`, `openvino.cc:ModelState::ReadModel`). The python
backend's `model.py` is TC125. `model-files = "optional"` (`--model-files optional`) turns both
off for repositories whose model files are fetched at deploy time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from tritoncfg.checks.common.model_common import first_instance_name
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.record import record
from tritoncfg.repository import Version, backend_version_dirname
from tritoncfg.schema import ModelConfig
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.workspace import LoadedModel


@record(frozen=True)
class ModelFile:
    """The file a backend opens in a version directory, and how it says it is missing."""

    backend: str
    filename: str
    directory_ok: bool  # a directory of that name is the model (SavedModel; ONNX: <dir>/model.onnx)
    inner: str | None = None  # ONNX: a directory stands for <dir>/model.onnx


def expected_file(config: ModelConfig) -> ModelFile | None:
    """The model file the completed config's backend opens; None for backends tritoncfg does
    not know the file of (custom backends, python: TC125, ensembles)."""
    written = config.default_model_filename
    backend, platform = config.backend, config.platform
    if backend == "onnxruntime":
        return ModelFile(backend, written or "model.onnx", True, "model.onnx")
    if backend == "tensorrt":
        if config.cc_model_filenames:
            return None  # the file depends on the serving GPU's compute capability
        return ModelFile(backend, written or "model.plan", False)
    if backend == "pytorch":
        default = "model.pt2" if platform == "torch_aoti" else "model.pt"
        return ModelFile(backend, written or default, False)
    if backend == "tensorflow":
        graphdef = platform == "tensorflow_graphdef"
        default = "model.graphdef" if graphdef else "model.savedmodel"
        return ModelFile(backend, written or default, not graphdef)
    if backend == "openvino":
        return ModelFile(backend, written or "model.xml", False)
    return None


def _present(version: Version, wanted: ModelFile) -> bool:
    """Whether the backend finds its file (FileExists: a file or a directory of that name)."""
    entry = version.entry(wanted.filename)
    if entry is None or entry.outside_root:
        return False
    if entry.is_dir and wanted.inner is not None:
        return (entry.path / wanted.inner).exists()
    return entry.is_file or entry.is_dir


def missing_message(what: str, number: int, filename: str, path: Path, optional: str) -> str:
    """Lint's message for a version without its model file; a negative version is never found
    (the backend reads it as uint64)."""
    if number < 0:
        return (
            f"version {number} of {what} is read by the backend as the unsigned "
            f"{backend_version_dirname(number)}, so it looks for '{path}' and fails; rename the "
            "version directory to a non-negative number"
        )
    return (
        f"version {number} of {what} has no '{filename}' (expected '{path}'); add the file, or "
        f"set default_model_filename to the file's name{optional}"
    )


def skips(ctx: CheckContext, number: int) -> bool:
    """With model-files = "optional" only negative versions, which never load, are reported."""
    return ctx.options.model_files == "optional" and number >= 0


def versions_without(
    model: LoadedModel,
    ctx: CheckContext,
    config: ModelConfig,
    present: Callable[[Version], bool],
) -> Iterator[tuple[int, Version | None]]:
    """Each version Triton loads whose directory lacks the model file (`present` says whether
    a version has it), as (number, version): the walk TC125 and TC126 share. A negative or
    non-canonical name (`+5`, ` 7`) is read by the backend from another directory, so it never
    counts as present."""
    for number in ctx.versions(model).selected:
        version = model.dir.version(number)
        if skips(ctx, number):
            continue
        canonical = number >= 0 and version is not None and version.dirname_is_canonical
        if not (canonical and version is not None and present(version)):
            yield number, version


def filename_span(model: LoadedModel) -> Span:
    """Where a missing-file finding points: the written default_model_filename, else the file."""
    written = model.config is not None and bool(model.config.message.default_model_filename)
    return at(model, "default_model_filename", value=True) if written else FILE_START


def _triton_message(
    ctx: CheckContext, wanted: ModelFile, path: Path, config: ModelConfig, *, inner: bool
) -> str:
    """The backend's own words (auto-complete runs first in default mode, with the model's
    name; in strict mode the first instance reports)."""
    instance = first_instance_name(config, ctx)
    if wanted.backend == "onnxruntime":
        if inner:  # a directory without its model.onnx
            owner = config.name if not ctx.strict else instance
            return f"unable to find '{path}' for model instance '{owner}'"
        return f"failed to stat file {path}"  # IsDirectory() stats the missing path first
    if wanted.backend == "tensorrt" and not ctx.strict:
        return f"unable to load plan file to auto complete config: {path}"
    if wanted.backend == "pytorch" and config.platform == "torch_aoti":
        return f'PyTorch inductor model file "{path}" is unreachable or inaccessible.'
    if wanted.backend == "openvino":
        return f"unable to find '{path}' for model '{config.name}'"
    return f"unable to find '{path}' for model instance '{instance}'"


@model_rule(
    "TC126",
    severity=Severity.ERROR,
    summary="A loaded version has no model file for its backend (model.onnx, model.plan, ...).",
    phase=Phase.MODEL_INIT,
)
def model_file_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For the ONNX Runtime, TensorRT, PyTorch, TensorFlow and OpenVINO backends, reports each
    version Triton loads whose directory lacks the file the backend opens:
    `default_model_filename` when set, otherwise the backend's default (`model.onnx`, a file or
    a directory holding `model.onnx`; `model.plan`; `model.pt`, or `model.pt2` for `torch_aoti`;
    `model.savedmodel/` or `model.graphdef`; `model.xml`). A TensorRT model with
    `cc_model_filenames` is not checked (its file depends on the serving GPU). The python
    backend's `model.py` is TC125.

    Turned off by `model-files = "optional"` in `[tool.tritoncfg]` or `--model-files optional`,
    for repositories that keep configs in git and fetch model files at deploy time; a negative
    version (a directory `-3`) is reported even then: core reads it with `std::stoll` as -3, but
    backends get the version as uint64 and look in `18446744073709551613/`, so it never loads.

    ## Why it matters
    The backend fails the load, e.g. ONNX Runtime: `failed to stat file /models/m/1/model.onnx`;
    TensorRT, PyTorch, TensorFlow: `unable to find '/models/m/1/model.plan' for model instance
    'm_0'`; OpenVINO: `unable to find '/models/m/1/model.xml' for model 'm'`.

    ## Example
    ```pbtxt
    # m/1/ is empty
    name: "m"
    backend: "onnxruntime"
    max_batch_size: 0
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    ```

    ## Fix
    Put the model file into the version directory (`m/1/model.onnx`), or name the file that is
    there with `default_model_filename`.
    """
    config = ctx.config(model)
    wanted = expected_file(config)
    if wanted is None or "/" in wanted.filename:
        return  # a path below the version directory: discovery lists only its top level
    span = filename_span(model)
    for number, version in versions_without(model, ctx, config, lambda v: _present(v, wanted)):
        path = model.dir.path / backend_version_dirname(number) / wanted.filename
        entry = version.entry(wanted.filename) if version is not None and number >= 0 else None
        inner = entry is not None and entry.is_dir and wanted.inner is not None
        if inner and wanted.inner is not None:
            path = path / wanted.inner
        yield Finding(
            missing_message(
                f"{wanted.backend} model '{model.name}'",
                number,
                wanted.filename,
                path,
                ', or set model-files = "optional" when model files are fetched at deploy time',
            ),
            span,
            triton_message=_triton_message(ctx, wanted, path, config, inner=inner),
        )
