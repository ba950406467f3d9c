"""TC110-TC113: AUTOFILL and VALIDATE of the backend fields. Which backend runs the model after
`AutoCompleteBackendFields` (model_config_utils.cc), and whether `ValidateModelConfig` accepts
the platform/backend pair. Its checks of an empty name, of an empty platform and backend and of a
missing version policy cannot fire from a repository: auto-complete fills them in first."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.complete.autofill import ENSEMBLE, KNOWN_BACKEND_PLATFORMS
from tritoncfg.diagnostics import Severity
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.workspace import LoadedModel

KNOWN_PLATFORMS = (*sorted({p for ps in KNOWN_BACKEND_PLATFORMS.values() for p in ps}), ENSEMBLE)
DETECTED_FILES = "model.onnx, model.plan, model.savedmodel/, model.graphdef, model.pt, model.pt2, model.xml, model.py"


def _written(model: LoadedModel, field: str) -> bool:
    return model.config is not None and bool(getattr(model.config.message, field))


def _field_span(model: LoadedModel, *fields: str) -> Span:
    """The value of the first of `fields` written in the file (file start if none is)."""
    for field in fields:
        if _written(model, field):
            return at(model, field, value=True)
    return FILE_START


@model_rule(
    "TC110",
    severity=Severity.ERROR,
    summary="No backend, platform or recognizable model file: Triton cannot tell which backend to use.",
    phase=Phase.AUTOFILL,
)
def backend_not_determined(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a model for which Triton's auto-complete finds no backend: the config sets none of
    `backend`, `platform` and `default_model_filename`, the directory Triton looks in holds no
    model file it recognizes, and the model's directory name has no `.<backend>` suffix.

    ## Why it matters
    Triton refuses the model, in strict mode too: `Invalid model name: Could not determine
    backend for model 'm' with no backend in model configuration. Expected model name of the
    form 'model.<backend_name>'.` It looks for files only in the byte-wise first subdirectory,
    so a `.ipynb_checkpoints/` or a `10/` next to `2/` hides the model file.

    ## Example
    ```text
    m/config.pbtxt    max_batch_size: 8
    m/1/              (empty)
    ```

    ## Fix
    ```text
    m/config.pbtxt    backend: "onnxruntime"  max_batch_size: 8
    ```
    """
    error = ctx.completion(model).autofill_error
    if error is None:
        return
    looked = model.dir.detection_dir
    where = (
        "no subdirectory to look for a model file in"
        if looked is None
        else f"no model file Triton recognizes ({DETECTED_FILES}) in '{looked.name}/', the "
        "byte-wise first subdirectory and the only one it looks in"
    )
    yield Finding(
        f"Triton cannot tell which backend runs model '{model.name}': the config sets no "
        f"`backend` or `platform`, there is {where}, and the directory name has no "
        "'.<backend>' suffix; set `backend` (e.g. backend: \"onnxruntime\")",
        FILE_START,
        triton_message=error,
    )


@model_rule(
    "TC111",
    severity=Severity.ERROR,
    summary="No backend after auto-complete: the platform (or model file name) names no backend.",
    phase=Phase.VALIDATE,
)
def unknown_platform(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a model that still has no `backend` after auto-complete and is not an ensemble:
    its `platform` is not one Triton maps to a backend, or only a `default_model_filename`
    Triton does not recognize is given.

    ## Why it matters
    Triton refuses the model: `unexpected platform type 'foo' for m`. Only
    `tensorflow_graphdef`, `tensorflow_savedmodel`, `tensorrt_plan`, `onnxruntime_onnx`,
    `pytorch_libtorch`, `torch_aoti` and `ensemble` are platforms; every other backend is
    named with `backend`.

    ## Example
    ```pbtxt
    platform: "python"
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    ```
    """
    completion = ctx.completion(model)
    config = completion.config
    if config.backend or config.platform == ENSEMBLE or completion.autofill_error is not None:
        return  # TC110 reports the model with nothing to go on
    if config.platform:
        what = (
            f"platform '{config.platform}' is not a platform Triton knows "
            f"({', '.join(KNOWN_PLATFORMS)})"
        )
    else:
        what = f"default_model_filename '{config.default_model_filename}' names no backend"
    yield Finding(
        f"{what} and no `backend` is set; name the backend with `backend` (e.g. backend: "
        '"python") and remove or correct `platform`',
        _field_span(model, "platform", "default_model_filename"),
        triton_message=f"unexpected platform type '{config.platform}' for {completion.name}",
    )


@model_rule(
    "TC112",
    severity=Severity.ERROR,
    summary='An ensemble (platform "ensemble") that also sets a backend.',
    phase=Phase.VALIDATE,
)
def ensemble_with_backend(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `platform: "ensemble"` together with a `backend`.

    ## Why it matters
    Ensembles are run by Triton's own scheduler, not by a backend; Triton refuses the model:
    `Ensemble model 'm' must have platform type 'ensemble' and empty backend type`.

    ## Example
    ```pbtxt
    platform: "ensemble"
    backend: "python"
    ```

    ## Fix
    ```pbtxt
    platform: "ensemble"
    ```
    """
    completion = ctx.completion(model)
    config = completion.config
    if config.platform == ENSEMBLE and config.backend:
        yield Finding(
            f"an ensemble is run by Triton itself and takes no backend, but backend "
            f"'{config.backend}' is set; remove `backend`",
            _field_span(model, "backend"),
            triton_message=f"Ensemble model '{completion.name}' must have platform type "
            f"'{ENSEMBLE}' and empty backend type",
        )


@model_rule(
    "TC113",
    severity=Severity.ERROR,
    summary="The platform does not belong to the backend (tensorflow, tensorrt, onnxruntime, pytorch).",
    phase=Phase.VALIDATE,
)
def platform_backend_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `tensorflow`, `tensorrt`, `onnxruntime` or `pytorch` backend whose platform (after
    auto-complete) is not one of that backend's: a typo (`onnxruntim`), another framework's
    platform, the alias `libtorch`, or a TensorFlow model whose platform could not be detected.
    Other backends accept any platform.

    ## Why it matters
    Triton refuses the model: `unexpected 'platform' and 'backend' pair, got:onnxruntim,
    onnxruntime`.

    ## Example
    ```pbtxt
    platform: "onnxruntim"
    default_model_filename: "model.onnx"
    ```

    ## Fix
    ```pbtxt
    platform: "onnxruntime_onnx"
    default_model_filename: "model.onnx"
    ```
    """
    config = ctx.config(model)
    accepted = KNOWN_BACKEND_PLATFORMS.get(config.backend)
    if accepted is None or config.platform in accepted:
        return
    choices = " or ".join(f"'{p}'" for p in accepted)
    if config.platform:
        what = f"platform '{config.platform}' does not belong to backend '{config.backend}'"
        fix = f"write {choices}, or remove `platform` and let Triton fill it in"
    else:
        what = f"backend '{config.backend}' needs a platform and none could be detected"
        fix = f"set `platform` to {choices}"
    yield Finding(
        f"{what} ({choices}); {fix}",
        _field_span(model, "platform", "backend", "default_model_filename"),
        triton_message="unexpected 'platform' and 'backend' pair, got:"
        f"{config.platform}, {config.backend}",
    )
