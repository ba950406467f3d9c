"""TC711-TC714: the response cache and model metrics (VALIDATE, model_config_utils.cc:
`ValidateModelConfig`, `ValidateModelMetrics`; MODEL_INIT, metric_model_reporter.cc). Parameters
read by core are in `parameters.py`, the rate limiter in `rate_limiter.py`."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel

CUSTOMIZABLE_METRICS = ("nv_inference_first_response_histogram_ms",)  # metric_model_reporter.h


def _cache_enabled(config: ModelConfig) -> bool:
    return config.response_cache.enable


@model_rule(
    "TC711",
    severity=Severity.ERROR,
    summary="The response cache is enabled on a model that uses the sequence batcher.",
    phase=Phase.VALIDATE,
    gate=gates.cache_metrics_rate_limiter,
)
def response_cache_with_sequence_batching(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports `response_cache { enable: true }` together with `sequence_batching`.

    ## Why it matters
    Only the default and dynamic batchers can use the response cache. Triton refuses the model:
    `Response Cache does not currently support model <model> with sequence batching scheduler.
    Please disable the response cache.`

    ## Example
    ```pbtxt
    backend: "python"
    sequence_batching { }
    response_cache { enable: true }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    sequence_batching { }
    ```
    """
    config = ctx.config(model)
    if config.HasField("sequence_batching") and _cache_enabled(config):
        yield Finding(
            "the response cache cannot be used with sequence_batching: remove response_cache "
            "(or set enable: false), or use dynamic_batching",
            at(model, "response_cache", "enable", value=True),
            triton_message=f"Response Cache does not currently support model {config.name} with "
            "sequence batching scheduler. Please disable the response cache.",
        )


@model_rule(
    "TC712",
    severity=Severity.ERROR,
    summary="The response cache is enabled on a decoupled model.",
    phase=Phase.VALIDATE,
    gate=gates.cache_metrics_rate_limiter,
)
def response_cache_with_decoupled(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `response_cache { enable: true }` together with
    `model_transaction_policy { decoupled: true }`.

    ## Why it matters
    A decoupled model may send any number of responses per request, which the cache cannot
    store. Triton refuses the model: `Response Cache does not currently support model <model>
    with 'decoupled' transaction policy. Please disable the response cache.`

    ## Example
    ```pbtxt
    backend: "python"
    model_transaction_policy { decoupled: true }
    response_cache { enable: true }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    model_transaction_policy { decoupled: true }
    ```
    """
    config = ctx.config(model)
    if config.model_transaction_policy.decoupled and _cache_enabled(config):
        yield Finding(
            "the response cache cannot be used with a decoupled model: remove response_cache "
            "(or set enable: false)",
            at(model, "response_cache", "enable", value=True),
            triton_message=f"Response Cache does not currently support model {config.name} with "
            "'decoupled' transaction policy. Please disable the response cache.",
        )


@model_rule(
    "TC713",
    severity=Severity.ERROR,
    summary="A model_metrics metric_control lacks its metric family or histogram buckets.",
    phase=Phase.VALIDATE,
    gate=gates.cache_metrics_rate_limiter,
)
def invalid_metric_control(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `model_metrics.metric_control` entry without a `metric_identifier`, with an empty
    `family`, without `histogram_options`, or with no `buckets`.

    ## Why it matters
    Triton refuses the model with one of `metric control must specify 'metric_identifier'`,
    `metric identifier must specify non-empty 'family'`, `metric control must specify
    'histogram_options'`, `histogram options must specify non-empty 'buckets'`.
    `model_metrics` is newer than Triton 2.51 (24.10): older servers reject the field itself
    (`Message type "inference.ModelConfig" has no field named "model_metrics"`).

    ## Example
    ```pbtxt
    backend: "python"
    model_metrics { metric_control [ { metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options { } } ] }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    model_metrics { metric_control [ { metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options { buckets: [ 1, 2, 4, 8 ] } } ] }
    ```
    """
    controls = ctx.config(model).model_metrics.metric_control
    for i, control in enumerate(controls):
        path = ("model_metrics", "metric_control", i)
        # ValidateModelMetrics checks identifier, family, histogram, buckets; one pair each
        if not control.HasField("metric_identifier"):
            yield Finding(
                "metric_control has no metric_identifier: add metric_identifier { family: "
                '"nv_inference_first_response_histogram_ms" }',
                at(model, *path),
                triton_message="metric control must specify 'metric_identifier'",
            )
        elif not control.metric_identifier.family:
            yield Finding(
                "metric_identifier has an empty family: name the metric family to configure",
                at(model, *path, "metric_identifier", "family", value=True),
                triton_message="metric identifier must specify non-empty 'family'",
            )
        if not control.HasField("histogram_options"):
            yield Finding(
                "metric_control has no histogram_options: add histogram_options { buckets: [...] }",
                at(model, *path),
                triton_message="metric control must specify 'histogram_options'",
            )
        elif not control.histogram_options.buckets:
            yield Finding(
                "histogram_options has no buckets: list the bucket boundaries, e.g. [1, 2, 4, 8]",
                at(model, *path, "histogram_options"),
                triton_message="histogram options must specify non-empty 'buckets'",
            )


@model_rule(
    "TC714",
    severity=Severity.WARNING,
    summary="A model_metrics family that Triton core does not let you customize; it is ignored.",
    phase=Phase.MODEL_INIT,
    gate=gates.cache_metrics_rate_limiter,
)
def metric_family_not_customizable(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `metric_identifier.family` other than `nv_inference_first_response_histogram_ms`,
    the only histogram Triton core lets a model configure.

    ## Why it matters
    The model loads, but the setting does nothing; Triton only warns: `Metric family '<f>' in
    'metric_identifier' is not a customizable metric in Triton core.`

    ## Example
    ```pbtxt
    backend: "python"
    model_metrics { metric_control [ { metric_identifier { family: "nv_inference_request_success" } histogram_options { buckets: [ 1, 2 ] } } ] }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    model_metrics { metric_control [ { metric_identifier { family: "nv_inference_first_response_histogram_ms" } histogram_options { buckets: [ 1, 2 ] } } ] }
    ```
    """
    for i, control in enumerate(ctx.config(model).model_metrics.metric_control):
        family = control.metric_identifier.family
        if family and family not in CUSTOMIZABLE_METRICS:
            yield Finding(
                f"metric family '{family}' cannot be customized, so this metric_control is "
                f"ignored; only {', '.join(CUSTOMIZABLE_METRICS)} can",
                at(
                    model,
                    "model_metrics",
                    "metric_control",
                    i,
                    "metric_identifier",
                    "family",
                    value=True,
                ),
                triton_message=f"Metric family '{family}' in 'metric_identifier' is not a "
                "customizable metric in Triton core.",
            )
