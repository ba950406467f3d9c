"""The gates: whether a config uses the feature a family of rules checks. A rule names its gate
where it is declared (`model_rule(..., gate=sequence_batching)`); the engine does not call a rule
whose gate is shut for a config: on a 2,000-model repository most rules have nothing to look at."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a gate only reads the config it is given
    from tritoncfg.schema import ModelConfig

Gate = Callable[["ModelConfig"], bool]  # whether a config uses the feature a rule checks


def sequence_batching(config: ModelConfig) -> bool:
    return config.HasField("sequence_batching")


def dynamic_batching(config: ModelConfig) -> bool:
    return config.HasField("dynamic_batching")


def ensemble(config: ModelConfig) -> bool:
    return config.platform == "ensemble" or config.HasField("ensemble_scheduling")


def warmup(config: ModelConfig) -> bool:
    return bool(config.model_warmup)


def onnx(config: ModelConfig) -> bool:
    return config.backend == "onnxruntime"


def tensorrt(config: ModelConfig) -> bool:
    return config.backend == "tensorrt" or config.platform == "tensorrt_plan"


def openvino(config: ModelConfig) -> bool:
    return config.backend == "openvino"


def batch_io(config: ModelConfig) -> bool:
    return bool(config.batch_input) or bool(config.batch_output)


def labels(config: ModelConfig) -> bool:
    return any(output.label_filename for output in config.output)


def parameters(config: ModelConfig) -> bool:
    return bool(config.parameters)


def backend_owned(config: ModelConfig) -> bool:
    return config.backend in ("pytorch", "dali")


def cache_metrics_rate_limiter(config: ModelConfig) -> bool:
    return (
        config.response_cache.enable
        or config.HasField("model_metrics")
        or any(group.rate_limiter.resources for group in config.instance_group)
    )
