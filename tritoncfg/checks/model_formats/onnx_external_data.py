"""TC813: an ONNX model's external data files must be inside the model file's folder, where
ONNX Runtime reads them (onnxruntime `tensorprotoutils.cc`, `ValidateExternalDataPath`)."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.models.io import ModelIO
from tritoncfg.models.locate import backend_format
from tritoncfg.workspace import LoadedModel


@model_rule(
    "TC813",
    severity=Severity.ERROR,
    summary="ONNX external data outside the model file's folder: ONNX Runtime refuses to load it.",
    phase=Phase.MODEL_INIT,
    gate=gates.onnx,
)
def onnx_external_data_outside_model(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `onnxruntime` model whose `model.onnx` keeps weights in external data files
    (`onnx.save(..., save_as_external_data=True)`) at a `location` that is not inside the model
    file's folder: an absolute path, a path through `..`, or a symlink whose target is
    elsewhere. Only the names are looked at: no file outside the repository is read.

    ## Why it matters
    ONNX Runtime resolves each location, symlinks followed, and refuses one outside the real
    path of the model file's folder when it creates the session, so the model does not load:
    `External data path validation failed for initializer: w. Error: External data path
    escapes model directory. External data path: "weights.bin" resolved path:
    "/data/weights.bin" allowed directory: ".../m/1"` (for an absolute location: `Absolute
    path not allowed for external data location`), as ONNX Runtime 1.32 does. A repository that
    links its weights from a shared folder elsewhere does not load.

    ## Example
    ```text
    m/config.pbtxt        backend: "onnxruntime"
    m/1/model.onnx        an initializer with location "weights.bin"
    m/1/weights.bin  ->   /data/shared/weights.bin (a symlink)
    ```

    ## Fix
    ```text
    m/config.pbtxt        backend: "onnxruntime"
    m/1/model.onnx        an initializer with location "weights.bin"
    m/1/weights.bin       the file itself (copied beside the model)
    ```
    """
    if backend_format(ctx.config(model)) != "onnxruntime":
        return
    io = ctx.model_io(model)
    if not isinstance(io, ModelIO) or not io.external_files:
        return
    from tritoncfg.models.onnx import external_data_escape

    where = (
        io.path.relative_to(model.dir.path) if io.path.is_relative_to(model.dir.path) else io.path
    )
    for location in io.external_files:
        why = external_data_escape(io.path.parent, location)
        if why is not None:
            yield Finding(
                f"{where} keeps weights in the external data file '{location}', but {why}: "
                "ONNX Runtime refuses external data outside the model file's folder and the "
                "model does not load; put the file itself beside the model",
                path=str(io.path),
                triton_message=(
                    f"External data path validation failed for initializer: External data path "
                    f'escapes model directory. External data path: "{location}"'
                ),
            )
