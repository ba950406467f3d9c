"""The rules, one module per family, in Triton's pipeline order.

TC0xx parse · TC1xx repository, versions, platform/backend, name · TC2xx dynamic batching ·
TC3xx inputs/outputs · TC4xx instance groups · TC5xx ensembles · TC6xx sequence batching ·
TC7xx warmup, rate limiter, response cache, metrics, parameters, misc · TC8xx model files ·
TC9xx best practice.
"""

from __future__ import annotations

# importing a family module registers its rules
from tritoncfg.checks import (  # noqa: F401
    alternative_configs,
    backend,
    backend_owned,
    batching,
    ensemble,
    ensemble_deps,
    ensemble_flow,
    ensemble_xmodel,
    gpu_memory,
    instance_group,
    instance_group_settings,
    io,
    io_batch,
    io_features,
    io_labels,
    layout,
    misc,
    model_files,
    model_onnx,
    model_onnx_inputs,
    model_onnx_shapes,
    model_openvino,
    model_tensorrt,
    model_tensorrt_autofill,
    model_tensorrt_bindings,
    model_tensorrt_profiles,
    parameters,
    parameters_tensorrt,
    parse,
    platform,
    practice,
    python_backend,
    rate_limit_resources,
    sequence,
    sequence_state,
    sequence_state_data,
    sequence_state_files,
    sequence_values,
    suppress,
    target_release,
    version_policy,
    warmup,
    warmup_data,
    warmup_request,
)
from tritoncfg.checks.engine import run_checks
from tritoncfg.checks.registry import RULES, Finding, LintOptions, Rule

# isort: split
# TC000, emitted by `verify`, stays last in RULES
from tritoncfg.checks import triton_rejected  # noqa: F401

__all__ = ["RULES", "Finding", "LintOptions", "Rule", "run_checks"]
