"""The rules, one subpackage per family, named for what Triton checks; `core/` runs them and
`common/` holds the analyses several families share.

TC0xx parse · TC1xx repository (layout, platform, versions) and backends · TC2xx batching ·
TC3xx io · TC4xx instance_groups · TC5xx ensembles · TC6xx sequence_batching ·
TC7xx warmup_and_runtime (warmup, response cache, metrics, rate limiter, parameters) ·
TC8xx model_formats · TC9xx practice · TC000 verify.
"""

from __future__ import annotations

from importlib import import_module

from tritoncfg.checks.core.context import Finding, LintOptions
from tritoncfg.checks.core.registry import RULES, Rule

# The family modules, in the order their rules enter RULES (importing one registers its rules). The order decides which rule reports first within a
# phase of Triton's pipeline (e.g. an ensemble's step error): keep it when adding a family.
FAMILIES = (
    "practice.alternative_configs",
    "backends.library",
    "io.backend_owned",
    "batching.dynamic_batching",
    "ensembles.flow",
    "ensembles.scheduling",
    "ensembles.deps",
    "ensembles.xmodel",
    "instance_groups.groups",
    "practice.gpu_memory",
    "instance_groups.settings",
    "io.tensors",
    "io.batch_io",
    "io.features",
    "io.labels",
    "repository.layout",
    "warmup_and_runtime.parameters",
    "warmup_and_runtime.cache_and_metrics",
    "warmup_and_runtime.rate_limiter",
    "backends.model_files",
    "model_formats.onnx_model",
    "model_formats.onnx_shapes",
    "model_formats.onnx_inputs",
    "model_formats.openvino_model",
    "model_formats.tensorrt_plan",
    "model_formats.tensorrt_autofill",
    "model_formats.tensorrt_bindings",
    "model_formats.tensorrt_profiles",
    "warmup_and_runtime.parameters_tensorrt",
    "parse.text_format",
    "repository.platform",
    "practice.serving",
    "backends.python",
    "warmup_and_runtime.rate_limit_resources",
    "sequence_batching.controls",
    "sequence_batching.state",
    "sequence_batching.state_data",
    "sequence_batching.state_files",
    "sequence_batching.control_values",
    "core.suppress",
    "parse.target_release",
    "repository.version_policy",
    "warmup_and_runtime.warmup",
    "warmup_and_runtime.warmup_data",
    "warmup_and_runtime.warmup_request",
    # TC000, emitted by `verify`, stays last in RULES
    "verify.triton_rejected",
)
for _family in FAMILIES:
    import_module(f"{__name__}.{_family}")

from tritoncfg.checks.core.engine import run_checks  # noqa: E402  (after the rules it runs)

__all__ = ["FAMILIES", "RULES", "Finding", "LintOptions", "Rule", "run_checks"]
