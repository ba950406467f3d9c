"""TC123, TC125: BACKEND_CREATE for Python code. A Python-based backend's `model.py` in the backend
directory (backend_model.cc: `GetBackendLibraryProperties`), and the python backend's own check that
each loaded version holds its model file (a backend-owned check, python_backend's `initialize`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tritoncfg.checks.backends.library import (
    DEFAULT_BACKEND_DIR,
    PHASE,
    PYTHON_RUNTIME,
    exists_on_host,
    library_name,
)
from tritoncfg.checks.backends.model_files import filename_span, missing_message, versions_without
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.repository import Version, backend_version_dirname
from tritoncfg.workspace import LoadedModel

PYTHON_BACKEND = "python"
# the standard backends whose folder holds a model.py: pytorch's Python runtime (PyTorch 2), vllm
PYTHON_BASED_BACKENDS = frozenset({"pytorch", "vllm"})


@model_rule(
    "TC123",
    severity=Severity.ERROR,
    summary='runtime "model.py" names a Python-based backend that has no model.py.',
    phase=PHASE,
)
def python_based_backend_model_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `runtime: "model.py"` (a Python-based backend such as vllm) when
    `<backend-dir>/<backend>/model.py` does not exist. Without `--backend-dir`, of the standard
    backends only the Python-based ones (pytorch's Python runtime, vllm) pass, and so do the
    backends listed in `[tool.tritoncfg] backends`; any other backend, `python` included, is
    reported.

    ## Why it matters
    `runtime: "model.py"` does not name the model's own `model.py`: it makes Triton load the
    backend itself from `<backend-dir>/<backend>/model.py` (`TritonModel::
    GetBackendLibraryProperties` in `backend_model.cc`). Where there is none, Triton fails the
    load: `unable to find Python backend based backend library 'model.py' for model 'm',
    searched: '/opt/tritonserver/backends/python/model.py'`.

    ## Example
    ```pbtxt
    backend: "python"
    runtime: "model.py"
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    ```
    """
    config = ctx.config(model)
    backend_dir = ctx.options.backend_dir
    if config.runtime != PYTHON_RUNTIME or not config.backend:
        return
    if backend_dir is not None:
        path = backend_dir / config.backend / PYTHON_RUNTIME
        if exists_on_host(path):
            return
        hint = "check `backend`, or install the backend there"
    elif config.backend in PYTHON_BASED_BACKENDS or config.backend in ctx.options.backends:
        return  # assumed installed on the host, with its model.py
    else:
        path = Path(DEFAULT_BACKEND_DIR) / config.backend / PYTHON_RUNTIME
        hint = (
            "remove `runtime` (a python model's own model.py needs none), or check `backend`; "
            f"if the serving host has a Python-based '{config.backend}' backend, pass "
            "--backend-dir or list it in [tool.tritoncfg] backends"
        )
    yield Finding(
        f"runtime \"model.py\" makes '{config.backend}' a Python-based backend, but '{path}' "
        f"does not exist; {hint}",
        at(model, "runtime", value=True),
        triton_message=f"unable to find Python backend based backend library '{PYTHON_RUNTIME}' "
        f"for model '{ctx.completion(model).name}', searched: '{path}'",
    )


@model_rule(
    "TC125",
    severity=Severity.ERROR,
    summary="A python backend model version without its model file (model.py).",
    phase=PHASE,
)
def python_model_file_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each version Triton loads for a `python` backend model that has no
    `default_model_filename` (`model.py` unless set) in its version directory.

    ## Why it matters
    The python backend cannot start the model's stub: `Failed to preinitialize Python stub:
    Python model file not found in '/models/m/1/model.py'`. In explicit model control mode
    such a model can even stay in LOADING.

    ## Example
    ```text
    m/config.pbtxt  backend: "python"
    m/1/model.py.bak
    ```

    ## Fix
    ```text
    m/config.pbtxt  backend: "python"
    m/1/model.py
    ```
    """
    config = ctx.config(model)
    if config.backend != PYTHON_BACKEND or config.runtime == PYTHON_RUNTIME:
        return
    filename = config.default_model_filename or PYTHON_RUNTIME
    if "/" in filename:
        return  # a path below the version directory: discovery lists only its top level
    if config.runtime and config.runtime != library_name(PYTHON_BACKEND):
        return  # another library runs the model
    span = filename_span(model)

    def present(version: Version) -> bool:
        return version.entry(filename) is not None

    for number, _ in versions_without(model, ctx, config, present):
        expected = model.dir.path / backend_version_dirname(number) / filename
        yield Finding(
            missing_message(f"python model '{model.name}'", number, filename, expected, ""),
            span,
            triton_message=f"Python model file not found in '{expected}'",
        )
