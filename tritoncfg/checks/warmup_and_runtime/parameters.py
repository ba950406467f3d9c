"""TC72x, TC74x: MODEL_INIT. The `parameters` Triton core itself reads: the custom batching library
`TRITON_BATCH_STRATEGY_PATH` (model.cc: `Model::Init`) and the python backend's `EXECUTION_ENV_PATH`
(model_config_utils.cc: `AutoCompleteBackendFields`). Other parameters go to backends
unvalidated."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.repository import WARMUP_DIRNAME
from tritoncfg.schema import ModelConfig
from tritoncfg.text.span import Span
from tritoncfg.workspace import LoadedModel

BATCH_STRATEGY = "TRITON_BATCH_STRATEGY_PATH"
EXECUTION_ENV = "EXECUTION_ENV_PATH"
MODEL_DIR_VAR = "$$TRITON_MODEL_DIRECTORY"


def exists_in_model_dir(model: LoadedModel, target: Path) -> bool:
    """Whether `target` (a path `ModelDir.resolve` returned, so inside the root) exists. The
    repository model answers for the model directory and warmup/; deeper paths are looked up."""
    base = model.dir.path
    if target == base:
        return True
    if target.parent == base:
        return model.dir.entry(target.name) is not None
    if target.parent == base / WARMUP_DIRNAME:
        return target.name in model.dir.warmup_files
    return target.exists()  # stat only; resolve() guarantees it stays inside the root


def _value(model: LoadedModel, config: ModelConfig, key: str) -> tuple[str, Span] | None:
    """A parameter's string value and the span of that value, if the parameter is given."""
    if key not in config.parameters:
        return None
    return config.parameters[key].string_value, at(
        model, "parameters", key, "value", "string_value", value=True
    )


def is_ensemble(config: ModelConfig) -> bool:
    """Ensembles have no instances and skip backend model creation."""
    return config.platform == "ensemble" or config.HasField("ensemble_scheduling")


def _inside_candidates(model: LoadedModel, absolute: str) -> list[tuple[str, bool]]:
    """Where an absolute server path may fall inside this model directory: (path relative to
    it, exact). Exact when it names the directory as seen here; otherwise each component equal
    to the model's name is taken as the directory as the server sees it (mounted elsewhere)."""
    parts = PurePosixPath(posixpath.normpath(absolute)).parts
    for base in (model.dir.path, model.dir.path.resolve()):
        base_parts = PurePosixPath(base.as_posix()).parts
        if parts[: len(base_parts)] == base_parts and len(parts) > len(base_parts):
            return [("/".join(parts[len(base_parts) :]), True)]
    return [
        ("/".join(parts[k + 1 :]), False)
        for k in range(1, len(parts) - 1)
        if parts[k] == model.dir.name
    ]


@model_rule(
    "TC721",
    severity=Severity.ERROR,
    summary="TRITON_BATCH_STRATEGY_PATH is set on a model that uses the sequence batcher.",
    phase=Phase.MODEL_INIT,
    gate=gates.parameters,
)
def batch_strategy_with_sequence_batching(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports the `TRITON_BATCH_STRATEGY_PATH` parameter on a model with `sequence_batching`.

    ## Why it matters
    Custom batching strategies only plug into the dynamic batcher. Despite its wording, Triton
    fails the load: `TRITON_BATCH_STRATEGY_PATH cannot be specified with sequence batcher,
    using default batching strategy`.

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching { }
    parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/models/m/batch.so" } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching { }
    ```
    """
    config = ctx.config(model)
    if BATCH_STRATEGY not in config.parameters or is_ensemble(config):
        return
    if config.HasField("sequence_batching"):
        yield Finding(
            f"{BATCH_STRATEGY} cannot be used with sequence_batching: remove the parameter, "
            "or use dynamic_batching",
            at(model, "parameters", BATCH_STRATEGY),
            triton_message=f"{BATCH_STRATEGY} cannot be specified with sequence batcher, "
            "using default batching strategy",
        )


def _batch_strategy(model: LoadedModel, ctx: CheckContext) -> tuple[str, Span] | None:
    """The library path, when Triton goes on to check it (not for ensembles or sequence models)."""
    config = ctx.config(model)
    if is_ensemble(config) or config.HasField("sequence_batching"):
        return None
    return _value(model, config, BATCH_STRATEGY)


@model_rule(
    "TC722",
    severity=Severity.ERROR,
    summary="TRITON_BATCH_STRATEGY_PATH is not an absolute path inside the model directory.",
    phase=Phase.MODEL_INIT,
    gate=gates.parameters,
)
def batch_strategy_outside_model_dir(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `TRITON_BATCH_STRATEGY_PATH` that is empty, relative, or outside the model
    directory. Triton uses the value as it is: a relative path is resolved against the
    server's working directory, not the model directory.

    ## Why it matters
    Triton refuses the model: `Batching library path escapes model repository.` (an empty
    value: `Parent path and child path must be non-empty`). Releases before that check
    (Triton 2.51) look for the file as written (`TritonModel::Create` in `backend_model.cc`), so
    a relative path fails there too unless the server was started from a folder that holds it:
    `Batching library path not found: libbatch.so`.

    ## Example
    ```pbtxt
    backend: "python"
    parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/opt/libs/batch.so" } }
    ```

    ## Fix
    Copy the library into the model directory and give its absolute path on the server:
    ```pbtxt
    backend: "python"
    ```
    """
    found = _batch_strategy(model, ctx)
    if found is None:
        return
    value, span = found
    escapes = "Batching library path escapes model repository."
    if not value:
        yield Finding(
            f"{BATCH_STRATEGY} is empty: give the absolute path of the library inside the model "
            "directory, or remove the parameter",
            span,
            triton_message="Parent path and child path must be non-empty",
        )
    elif not value.startswith("/"):
        yield Finding(
            f"{BATCH_STRATEGY} '{value}' is relative: Triton resolves it against the server's "
            "working directory, not the model directory; write the library's absolute path "
            f"on the server (e.g. /models/{model.dir.name}/{value})",
            span,
            triton_message=escapes,
        )
    else:
        candidates = _inside_candidates(model, value)
        if not candidates:
            yield Finding(
                f"{BATCH_STRATEGY} '{value}' is outside the model directory; Triton only loads "
                f"a batching library from inside '{model.dir.name}/'",
                span,
                triton_message=escapes,
            )
        elif all(model.dir.resolve(rel) is None for rel, _ in candidates):
            yield Finding(
                f"{BATCH_STRATEGY} '{value}' leaves the model directory (through '..' or a "
                "symlink); keep the library inside it",
                span,
                triton_message=escapes,
            )


@model_rule(
    "TC723",
    severity=Severity.ERROR,
    summary="The TRITON_BATCH_STRATEGY_PATH library does not exist in the model directory.",
    phase=Phase.MODEL_INIT,
    gate=gates.parameters,
)
def batch_strategy_not_found(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `TRITON_BATCH_STRATEGY_PATH` inside the model directory that names no file. An
    absolute path that is not this directory as seen here is matched at the model's name
    (`/models/m/lib/batch.so` is taken as `m/lib/batch.so`). With `model-files = "optional"`
    (the files are fetched at deploy time, and the library may come with them) such a match is a
    warning.

    ## Why it matters
    Triton fails the load (`TritonModel::Create` in `backend_model.cc`): `Batching library path
    not found: <path>`.

    ## Example
    ```text
    m/config.pbtxt:  parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/models/m/batch.so" } }
    and no m/batch.so
    ```

    ## Fix
    Build the library into `m/batch.so`, or correct the path.
    """
    found = _batch_strategy(model, ctx)
    if found is None or not found[0].startswith("/"):
        return
    value, span = found
    candidates = [
        (rel, exact, model.dir.resolve(rel)) for rel, exact in _inside_candidates(model, value)
    ]
    inside = [(rel, exact, target) for rel, exact, target in candidates if target is not None]
    if not inside or any(exists_in_model_dir(model, target) for _, _, target in inside):
        return
    rel, exact, _ = inside[0]
    assumed = "" if exact else f" (taking '{value}' as {model.dir.name}/{rel} on the server)"
    # only the files fetched at deploy time may bring it; else the repository is what is served
    fetched = not exact and ctx.options.model_files == "optional"
    yield Finding(
        f"batching library '{value}' not found{assumed}: put the library at "
        f"{model.dir.name}/{rel} or correct the path"
        + (
            ""
            if exact or fetched
            else ' (model-files = "optional" if it is fetched at deploy time)'
        ),
        span,
        triton_message=f"Batching library path not found: {value}",
        severity=Severity.WARNING if fetched else None,
    )


def _uses_python_backend(config: ModelConfig) -> bool:
    # core substitutes $$TRITON_MODEL_DIRECTORY only for backend "python"
    # (`AutoCompleteBackendFields`)
    return config.backend == "python"


@model_rule(
    "TC741",
    severity=Severity.ERROR,
    summary="The python backend's EXECUTION_ENV_PATH names nothing inside the model directory.",
    phase=Phase.MODEL_INIT,
    gate=gates.parameters,
)
def execution_env_path_not_found(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `EXECUTION_ENV_PATH` written as `$$TRITON_MODEL_DIRECTORY/<path>` whose
    `<path>` does not exist in the model directory. Core replaces the variable with the model
    directory and collapses `..` (`AutoCompleteBackendFields`); a path that leaves the directory
    is not checked.

    ## Why it matters
    The python backend cannot find the environment and refuses the model: `Failed to get the
    canonical path for <model dir>/env.tar.gz.` (seen on a real Triton 2.51 by the differential
    tests).

    ## Example
    ```pbtxt
    backend: "python"
    parameters { key: "EXECUTION_ENV_PATH" value { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
    ```

    ## Fix
    Put the conda-pack archive at `m/env.tar.gz`, or correct the path:
    ```pbtxt
    backend: "python"
    ```
    """
    config = ctx.config(model)
    found = _value(model, config, EXECUTION_ENV)
    if found is None or not _uses_python_backend(config):
        return
    value, span = found
    if not value.startswith(MODEL_DIR_VAR):
        return
    rest = value[len(MODEL_DIR_VAR) :]
    target = model.dir.resolve(rest) if rest.startswith("/") else None
    if target is None or exists_in_model_dir(model, target):
        return
    shown = target.relative_to(model.dir.path).as_posix()
    yield Finding(
        f"{EXECUTION_ENV} '{value}' names {model.dir.name}/{shown}, which does not exist: "
        "put the execution environment (a conda-pack archive or directory) there",
        span,
        triton_message=f"Failed to get the canonical path for {target}.",
    )


@model_rule(
    "TC742",
    severity=Severity.WARNING,
    summary="A relative EXECUTION_ENV_PATH is resolved against the server's working directory.",
    phase=Phase.BEST_PRACTICE,
    gate=gates.parameters,
)
def execution_env_path_relative(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `EXECUTION_ENV_PATH` that is neither absolute nor starts with
    `$$TRITON_MODEL_DIRECTORY`.

    ## Why it matters
    Such a path is not relative to the model: it depends on the directory `tritonserver` was
    started from, so the model loads on one machine and not on another.

    ## Example
    ```pbtxt
    backend: "python"
    parameters { key: "EXECUTION_ENV_PATH" value { string_value: "env.tar.gz" } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    parameters { key: "EXECUTION_ENV_PATH" value { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
    ```
    """
    config = ctx.config(model)
    found = _value(model, config, EXECUTION_ENV)
    if found is None or not _uses_python_backend(config):
        return
    value, span = found
    if value and not value.startswith(("/", MODEL_DIR_VAR)):
        yield Finding(
            f"{EXECUTION_ENV} '{value}' is relative to the server's working directory; write "
            f"'{MODEL_DIR_VAR}/{value}' to point inside the model directory",
            span,
        )
