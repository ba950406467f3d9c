"""TC751: MODEL_INIT. The `parameters` the TensorRT backend validates when it creates the model
(`tensorrt_backend src/model_state.cc:ModelState::ParseParameters`)."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.backends.library import did_you_mean
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel

ALLOCATION_STRATEGY = "execution_context_allocation_strategy"
ALLOCATION_STRATEGIES = ("STATIC", "ON_PROFILE_CHANGE")


@model_rule(
    "TC751",
    severity=Severity.ERROR,
    summary="A TensorRT model's `parameters` value the TensorRT backend rejects.",
    phase=Phase.MODEL_INIT,
    gate=gates.parameters,
)
def tensorrt_invalid_parameter(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For a TensorRT model, reports an `execution_context_allocation_strategy` parameter whose
    value is not `STATIC` or `ON_PROFILE_CHANGE` (compared as written: case matters).

    ## Why it matters
    The TensorRT backend fails the model: `Invalid value for
    'execution_context_allocation_strategy': 'static' for model instance 'm'. Supported values
    are 'STATIC' and 'ON_PROFILE_CHANGE'.`

    ## Example
    ```pbtxt
    backend: "tensorrt"
    parameters { key: "execution_context_allocation_strategy" value { string_value: "static" } }
    ```

    ## Fix
    ```pbtxt
    backend: "tensorrt"
    parameters { key: "execution_context_allocation_strategy" value { string_value: "STATIC" } }
    ```
    """
    config = ctx.config(model)
    if config.backend != "tensorrt" or ALLOCATION_STRATEGY not in config.parameters:
        return
    value = config.parameters[ALLOCATION_STRATEGY].string_value
    if value in ALLOCATION_STRATEGIES:
        return
    yield Finding(
        f"{ALLOCATION_STRATEGY} '{value}' is not one the TensorRT backend knows (STATIC, "
        f"ON_PROFILE_CHANGE){did_you_mean(value, ALLOCATION_STRATEGIES)}",
        at(model, "parameters", ALLOCATION_STRATEGY, "value", "string_value", value=True),
        triton_message=f"Invalid value for '{ALLOCATION_STRATEGY}': '{value}' for model instance "
        f"'{config.name}'. Supported values are 'STATIC' and 'ON_PROFILE_CHANGE'.",
    )
