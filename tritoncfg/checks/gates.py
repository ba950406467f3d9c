"""Which rule families can find anything in a config. The engine skips a family whose feature the
completed config does not use: on a 2,000-model repository most rules have nothing to look at."""

from __future__ import annotations

from collections.abc import Callable

from tritoncfg.schema import ModelConfig

Gate = Callable[[ModelConfig], bool]


def _sequence(config: ModelConfig) -> bool:
    return config.HasField("sequence_batching")


def _ensemble(config: ModelConfig) -> bool:
    return config.platform == "ensemble" or config.HasField("ensemble_scheduling")


def _warmup(config: ModelConfig) -> bool:
    return bool(config.model_warmup)


def _onnx(config: ModelConfig) -> bool:
    return config.backend == "onnxruntime"


def _tensorrt(config: ModelConfig) -> bool:
    return config.backend == "tensorrt" or config.platform == "tensorrt_plan"


def _batch_io(config: ModelConfig) -> bool:
    return bool(config.batch_input) or bool(config.batch_output)


def _labels(config: ModelConfig) -> bool:
    return any(output.label_filename for output in config.output)


def _parameters(config: ModelConfig) -> bool:
    return bool(config.parameters)


def _backend_owned(config: ModelConfig) -> bool:
    return config.backend in ("pytorch", "dali")


def _misc(config: ModelConfig) -> bool:
    return (
        config.response_cache.enable
        or config.HasField("model_metrics")
        or any(group.rate_limiter.resources for group in config.instance_group)
    )


_FAMILIES: dict[Gate, tuple[str, ...]] = {
    _batch_io: ("io_batch",),
    _labels: ("io_labels",),
    _parameters: ("parameters",),
    _backend_owned: ("backend_owned",),
    _misc: ("misc",),
    _sequence: ("sequence", "sequence_values", "sequence_state", "sequence_state_data"),
    _ensemble: ("ensemble", "ensemble_flow", "ensemble_deps", "ensemble_xmodel"),
    _warmup: ("warmup", "warmup_request"),
    _onnx: ("model_onnx", "model_onnx_inputs", "model_onnx_shapes"),
    _tensorrt: (
        "model_tensorrt",
        "model_tensorrt_autofill",
        "model_tensorrt_bindings",
        "model_tensorrt_profiles",
    ),
}
GATES: dict[str, Gate] = {
    f"tritoncfg.checks.{module}": gate for gate, modules in _FAMILIES.items() for module in modules
}


def gate_of(check: object) -> Gate | None:
    """The gate of the family module a rule's check function lives in, if any."""
    return GATES.get(getattr(check, "__module__", ""))
