"""The OpenVINO backend's auto-complete (openvino_backend `src/openvino.cc`,
`ModelState::AutoCompleteConfig`), offline, from the IR that `tritoncfg.models.openvino` read.

* Batching (`AutoCompleteBatching`): the model can batch when every input and output has a
  layout with an `N` dimension. Then a `max_batch_size` of 0 becomes the backend's default
  (`default-max-batch-size`, at least 1), and above 1 an empty `dynamic_batching` is added when
  no batcher is set. A layout without batch and a non-zero `max_batch_size` is only a warning.
* Inputs and outputs (`AutoCompleteInputOrOutput`), each only when the config lists none: name
  (`get_any_name()`), data type, and dims from the model's shape (dim 0 dropped when batching);
  every dim is -1 when any dim of the shape is dynamic (`io_shape.is_static()` is per shape).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritoncfg.models.openvino import has_batch
from tritoncfg.schema import DataType, ModelConfig

if TYPE_CHECKING:
    from tritoncfg.complete.completion import BackendCompletion, ConfigTensors
    from tritoncfg.models.io import ModelIO, TensorInfo


def openvino_proposal(
    config: ModelConfig, model_io: ModelIO, default_mbs: int, done: BackendCompletion
) -> ModelConfig:
    proposal = ModelConfig()
    proposal.CopyFrom(config)
    name = config.name
    tensors = (*model_io.inputs, *model_io.outputs)
    if all(has_batch(t.layout) for t in tensors):
        if proposal.max_batch_size == 0:
            proposal.max_batch_size = max(default_mbs, 1)
            done.notes.append(
                f"autofilled max_batch_size to {proposal.max_batch_size} for model '{name}' since "
                "batching is supported but no max_batch_size is specified in model "
                "configuration. Must specify max_batch_size to utilize autofill with a larger "
                "max batch size"
            )
        if proposal.max_batch_size > 1 and proposal.WhichOneof("scheduling_choice") is None:
            proposal.dynamic_batching.SetInParent()
    elif proposal.max_batch_size != 0:
        done.notes.append(
            f"model layout for model {name} does not support batching while non-zero "
            "max_batch_size is specified"
        )
    mbs = proposal.max_batch_size
    for kind, ios, model_tensors in (
        ("input", proposal.input, model_io.inputs),
        ("output", proposal.output, model_io.outputs),
    ):
        if len(ios):
            done.notes.append(
                f"skipping {kind} model configuration auto-complete for '{name}': {kind} "
                "already specified"
            )
            continue
        _fill(ios, model_tensors, mbs)
    return proposal


def _fill(ios: ConfigTensors, tensors: tuple[TensorInfo, ...], mbs: int) -> None:
    for tensor in tensors:
        io = ios.add()
        io.name = tensor.name
        type_name = tensor.data_type or "TYPE_INVALID"
        io.data_type = DataType.Value(type_name)  # type: ignore[assignment]
        shape = tensor.shape or ()
        static = all(isinstance(d, int) for d in shape)
        io.dims.extend(
            d if static and isinstance(d, int) else -1 for d in shape[1 if mbs > 0 else 0 :]
        )


__all__ = ["openvino_proposal"]
