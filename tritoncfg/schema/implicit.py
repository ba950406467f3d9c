"""The inputs Triton adds to a model's requests beyond `config.input`: the sequence batcher's
control tensors (`sequence_batching.control_input`) and implicit state
(`sequence_batching.state`). The model file expects them, so probe feeds them too, at Triton's
shapes: `[1]` per request (with the batch dimension in front when the model batches); a state's
variable dims at 1. `gen warmup` writes them into warmup samples and lint (TC715) asks for them
there, since warmup requests bypass the sequence batcher.
"""

from __future__ import annotations

from tritoncfg.schema import DataType, ModelConfig, ModelSequenceBatching

_KIND = ModelSequenceBatching.Control


def implicit_inputs(config: ModelConfig) -> list[tuple[str, str, tuple[int, ...]]]:
    """(name, TYPE_*, dims without the batch dimension) of each input Triton adds."""
    if not config.HasField("sequence_batching"):
        return []
    found: list[tuple[str, str, tuple[int, ...]]] = [
        (name, data_type, (1,)) for name, data_type, _ in control_tensors(config)
    ]
    for state in config.sequence_batching.state:
        dims = tuple(1 if d == -1 else d for d in state.dims)
        found.append((state.input_name, DataType.Name(state.data_type), dims))
    return found


def control_tensors(
    config: ModelConfig,
) -> list[tuple[str, str, ModelSequenceBatching.Control]]:
    """(name, TYPE_*, its control) of each control tensor the sequence batcher adds to a request
    (`sequence_batch_scheduler.cc`, `CreateBooleanControlTensors`: shape `[1]`; START, END and
    READY typed by the `*_false_true` they set, CORRID by its `data_type`)."""
    if not config.HasField("sequence_batching"):
        return []
    return [
        (control_input.name, _control_type(control), control)
        for control_input in config.sequence_batching.control_input
        for control in control_input.control[:1]  # one control per tensor (Triton's rule)
    ]


def _control_type(control: ModelSequenceBatching.Control) -> str:
    if control.kind == _KIND.CONTROL_SEQUENCE_CORRID:
        return DataType.Name(control.data_type)
    if control.fp32_false_true:
        return "TYPE_FP32"
    if control.bool_false_true:
        return "TYPE_BOOL"
    return "TYPE_INT32"


def input_types(config: ModelConfig) -> dict[str, str]:
    """Every input probe feeds (declared, then implicit), with its Triton type."""
    types = {t.name: DataType.Name(t.data_type) for t in config.input}
    types.update({name: data_type for name, data_type, _ in implicit_inputs(config)})
    return types


__all__ = ["control_tensors", "implicit_inputs", "input_types"]
