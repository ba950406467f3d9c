"""Backend-owned checks that a config alone decides (the backends' own sources): what the PyTorch
and DALI backends reject in `ModelInitFn`, before core validates inputs and outputs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel

PHASE = Phase.MODEL_INIT
_PLAIN_FILENAME = re.compile(r"[A-Za-z0-9._-]")


@model_rule(
    "TC340",
    severity=Severity.ERROR,
    summary="A PyTorch model lists no outputs; the PyTorch backend does not auto-complete them.",
    phase=PHASE,
    gate=gates.backend_owned,
)
def pytorch_without_outputs(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `pytorch` backend model with no `output`.

    ## Why it matters
    The PyTorch backend cannot read outputs from a TorchScript file, so it does not auto-complete
    them, and refuses the model: `model configuration must contain at least one output, none were
    specified`.

    ## Example
    ```text
    backend: "pytorch"
    input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 16 ] } ]
    ```

    ## Fix
    ```text
    backend: "pytorch"
    input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 16 ] } ]
    output [ { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 16 ] } ]
    ```
    """
    config = ctx.config(model)
    if config.backend == "pytorch" and not config.output:
        yield Finding(
            "the PyTorch backend needs every output listed in the config (it cannot read them from "
            "the model file); add an `output` entry per model output",
            at(model, "backend", value=True),
            triton_message="model configuration must contain at least one output, none were specified",
        )


@model_rule(
    "TC341",
    severity=Severity.ERROR,
    summary="A DALI model's default_model_filename holds a character other than letters, digits, '.', '_', '-'.",
    phase=PHASE,
    gate=gates.backend_owned,
)
def dali_invalid_model_filename(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `dali` backend `default_model_filename` with a path separator, a quote or another
    character outside `[A-Za-z0-9._-]`.

    ## Why it matters
    The DALI backend builds a Python command from the file name, so it refuses any name that could
    escape it: `... contains an invalid character: '/'`.

    ## Example
    ```text
    backend: "dali"
    default_model_filename: "../pipelines/dali.py"
    ```

    ## Fix
    ```text
    backend: "dali"
    default_model_filename: "dali.py"
    ```
    """
    config = ctx.config(model)
    name = config.default_model_filename
    if config.backend != "dali" or not name:
        return
    bad = next((c for c in name if not _PLAIN_FILENAME.fullmatch(c)), None)
    if bad is not None:
        yield Finding(
            f"default_model_filename {name!r} contains {bad!r}; the DALI backend accepts a plain "
            "file name in the version directory only",
            at(model, "default_model_filename", value=True),
            triton_message=f"contains an invalid character: '{bad}'",
        )
