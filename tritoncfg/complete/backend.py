"""BACKEND AUTO-COMPLETE: what the ONNX Runtime, TensorRT and OpenVINO (`backend_openvino`)
backends add from the model file.

Offline, against the `ModelIO` a reader made of the model file (the backends' `AutoCompleteConfig`:
`tensorrt_backend` `src/model_state.cc`, `onnxruntime_backend` `src/onnxruntime.cc`). Triton
runs it in BACKEND_CREATE, after NormalizeInstanceGroup and only when auto-complete is on (not
with --disable-auto-complete-config). Core then keeps only `max_batch_size`, `input`, `output`,
the scheduling choice (if none was set) and `model_transaction_policy.decoupled` from the
backend's config (`backend_model.cc:TritonModel::UpdateModelConfig`) and normalizes again
(`NormalizeModelConfig`).

Tensor order: ONNX Runtime keeps the model's tensors in an `unordered_map`, so Triton's order is
unspecified (its QA accepts every order); the model's own order is used here.
"""

from __future__ import annotations

from collections.abc import Iterable

from tritoncfg.complete.completion import BackendCompletion, ConfigTensors
from tritoncfg.models.io import ModelIO, TensorInfo
from tritoncfg.repository import stoll
from tritoncfg.schema import DataType, ModelConfig, ModelInput, ModelInstanceGroup, ModelOutput

DEFAULT_MAX_BATCH_SIZE = 4  # core's --backend-config=default-max-batch-size (`backend_model.cc`)
INT_MAX = 2**31 - 1


def autocomplete_backend(
    config: ModelConfig,
    model_io: ModelIO,
    *,
    default_max_batch_size: int = DEFAULT_MAX_BATCH_SIZE,
    strict: bool = False,
) -> BackendCompletion:
    """What the config becomes after its backend's auto-complete from `model_io`.

    `config` is the config as the backend sees it: autofilled, normalized and, for TensorRT,
    with its instance groups normalized (the backend reads the first group's kind and every
    group's profiles). It is not changed; on an error the result holds it unchanged."""
    done = BackendCompletion(_copy(config))
    if strict:
        done.notes.append(
            f"auto-complete is disabled (strict mode): '{config.name}' is not completed from "
            "its model file"
        )
        return done
    proposal: ModelConfig | None
    if config.backend == "onnxruntime" and model_io.format == "onnx":
        proposal = _onnxruntime(config, model_io, default_max_batch_size, done)
    elif config.backend == "tensorrt" and model_io.format == "tensorrt":
        proposal = _tensorrt(config, model_io, done)
    elif config.backend == "openvino" and model_io.format == "openvino":
        from tritoncfg.complete.backend_openvino import openvino_proposal

        proposal = openvino_proposal(config, model_io, default_max_batch_size, done)
    else:
        done.notes.append(
            f"no auto-complete is modelled for backend '{config.backend}' with a "
            f"{model_io.format} model file ({model_io.path.name})"
        )
        return done
    if proposal is not None and not done.errors:
        error = take_backend_fields(done.config, proposal)
        if error is not None:
            done.errors.append(error)
            done.config = _copy(config)
        else:
            done.ran = True
    return done


def take_backend_fields(config: ModelConfig, updated: ModelConfig) -> str | None:
    """`TritonModel::UpdateModelConfig`: copy what core takes from the backend's config into `config`; returns core's
    error when the backend picked another scheduling choice."""
    config.max_batch_size = updated.max_batch_size
    del config.input[:]
    config.input.extend(updated.input)
    del config.output[:]
    config.output.extend(updated.output)
    current = config.WhichOneof("scheduling_choice")
    chosen = updated.WhichOneof("scheduling_choice")
    if current is None:
        if chosen is not None:
            getattr(config, chosen).CopyFrom(getattr(updated, chosen))
    elif chosen != current:
        number = ModelConfig.DESCRIPTOR.fields_by_name[current].number
        # sic: Triton prints the config's choice twice
        return f"Cannot update scheduling choice from {number} to {number} when auto-completing."
    if updated.HasField("model_transaction_policy"):
        config.model_transaction_policy.decoupled = updated.model_transaction_policy.decoupled
    return None


# ---------------------------------------------------------------------------------------------
# ONNX Runtime (`onnxruntime.cc:AutoCompleteConfig`)


def _onnxruntime(
    config: ModelConfig, model_io: ModelIO, default_mbs: int, done: BackendCompletion
) -> ModelConfig | None:
    name = config.name
    input_count = len(config.input) + len(config.batch_input)
    output_count = len(config.output)
    if input_count and output_count:
        done.notes.append(
            f"skipping model configuration auto-complete for '{name}': inputs and outputs "
            "already specified"
        )
        return None
    proposal = _copy(config)
    tensors = (*model_io.inputs, *model_io.outputs)
    _note_unknown_ranks(tensors, done)
    # ONNX Runtime reports symbolic and unknown dims as -1
    batching = all(_dims(t)[:1] == [-1] for t in tensors)
    if batching:
        if proposal.max_batch_size == 0:
            proposal.max_batch_size = max(default_mbs, 0)
            done.notes.append(
                f"autofilled max_batch_size to {proposal.max_batch_size} for model '{name}' "
                "since batching is supporrted but no max_batch_size is specified in model "
                "configuration. Must specify max_batch_size to utilize autofill with a larger "
                "max batch size"  # sic: Triton's typo
            )
        if proposal.max_batch_size > 1:
            _add_dynamic_batching(proposal)
    elif proposal.max_batch_size != 0:
        done.errors.append(
            f"autofill failed for model '{name}': model does not support batching while "
            "non-zero max_batch_size is specified"
        )
        return None
    mbs = proposal.max_batch_size
    if input_count == 0:
        _fill(proposal.input, model_io.inputs, mbs, reshape_scalars=mbs > 0)
    if output_count == 0:
        _fill(proposal.output, model_io.outputs, mbs, reshape_scalars=mbs > 0)
    return proposal


# ---------------------------------------------------------------------------------------------
# TensorRT (`model_state.cc:AutoCompleteConfigHelper`)


def _tensorrt(
    config: ModelConfig, model_io: ModelIO, done: BackendCompletion
) -> ModelConfig | None:
    name = config.name
    groups = config.instance_group
    if not groups or groups[0].kind != ModelInstanceGroup.KIND_GPU:
        done.notes.append(
            f"no TensorRT auto-complete for '{name}': the backend completes a config only when "
            "its first instance group is KIND_GPU (it supports GPU instances only)"
        )
        return None
    engine = {t.name: t for t in (*model_io.inputs, *model_io.outputs)}
    _note_unknown_ranks(engine.values(), done)
    hint = _trt_batch_hint(config, model_io, engine, done)
    if hint is None:
        return None
    config_hint, shaped = hint
    engine_max = _trt_max_batch(config, model_io, done)
    if engine_max is None:
        return None
    if config_hint and engine_max == 0:
        done.errors.append(
            f"autofill failed for model '{name}': model tensor shape configuration hints for "
            "dynamic batching but the underlying engine doesn't support batching."
        )
        return None
    if shaped and not config_hint:
        done.notes.append(
            f"The specified dimensions in model config for {name} hints that batching is "
            "unavailable"
        )
        engine_max = 0
    proposal = _copy(config)
    if proposal.max_batch_size == 0:
        proposal.max_batch_size = engine_max
    elif proposal.max_batch_size > engine_max:
        done.errors.append(
            f"autofill failed for model '{name}': configuration specified max-batch "
            f"{proposal.max_batch_size} but TensorRT engine only supports max-batch {engine_max}"
        )
        return None
    if engine_max > 1:
        _add_dynamic_batching(proposal)
    mbs = proposal.max_batch_size
    if not _trt_fix_io(proposal.input, model_io.inputs, mbs, done):
        return None
    if not _trt_fix_io(proposal.output, model_io.outputs, mbs, done):
        return None
    return proposal


def _trt_batch_hint(
    config: ModelConfig, model_io: ModelIO, engine: dict[str, TensorInfo], done: BackendCompletion
) -> tuple[bool, bool] | None:
    """(config hints batching, some configured tensor has a shape), or None after an error."""
    if not (len(config.input) + len(config.batch_input)) and not config.output:
        return False, False
    allowed = {
        "input": sorted(t.name for t in model_io.inputs),
        "output": sorted(t.name for t in model_io.outputs),
    }
    hint = ragged = False
    shaped = 0
    configured: tuple[tuple[str, list[ModelInput] | list[ModelOutput]], ...] = (
        ("input", list(config.input)),
        ("output", list(config.output)),
    )
    for kind, ios in configured:
        for io in ios:
            if ragged:
                break  # Triton's loops stop at the first ragged tensor, outputs included
            if isinstance(io, ModelInput) and io.allow_ragged_batch:
                hint = ragged = True
                continue
            dims = list(io.reshape.shape if io.HasField("reshape") else io.dims)
            shaped += bool(dims)
            if io.name not in allowed[kind]:
                done.errors.append(
                    f"unexpected inference {kind} '{io.name}', allowed {kind}s are: "
                    + ", ".join(allowed[kind])
                )
                return None
            tensor = engine.get(io.name)
            if dims and tensor is not None:
                shape = _dims(tensor)
                if tensor.is_shape_tensor:  # batching adds one value to a shape tensor
                    should_batch = shape[:1] == [dims[0] + 1]
                else:
                    should_batch = len(shape) == len(dims) + 1
                hint = hint or should_batch
                if hint and not should_batch:
                    done.errors.append(
                        f"unable to autofill for '{config.name}', model tensor configurations "
                        "are contradicting each other in terms of whether batching is supported"
                    )
                    return None
    return hint, bool(shaped)


def _trt_max_batch(config: ModelConfig, model_io: ModelIO, done: BackendCompletion) -> int | None:
    """`GetMaxSupportedBatchSize`: the largest, over the selected profiles, of the smallest
    profile-max dim 0 over the inputs."""
    count = max(len(model_io.profiles), 1)  # an explicit-batch engine has at least one profile
    selected: set[int] = set()
    for group in config.instance_group:
        for written in group.profile:
            if not written:
                done.errors.append("profile name must not be empty")
                return None
            try:
                index = stoll(written)
            except ValueError:
                done.errors.append(f"unable to parse '{written}': stoi")
                return None
            if not 0 <= index < count:
                done.errors.append(
                    f"unable to autofill for '{config.name}', configuration specified invalid "
                    f"profile {written} . Number of profiles supported by TensorRT engine: {count}"
                )
                return None
            selected.add(index)
    if not model_io.profiles:
        return _trt_static_max_batch(config, model_io, done)
    profiles = {p.index: p for p in model_io.profiles}
    best = 0
    for index in selected or {0}:
        profile = profiles.get(index, model_io.profiles[0])
        smallest = INT_MAX
        for tensor in model_io.inputs:
            # a shape tensor's batch is the first value it carries, at the profile's max
            ranges = profile.values if tensor.is_shape_tensor else profile.shapes
            if tensor.name in ranges and ranges[tensor.name][2]:
                smallest = min(smallest, ranges[tensor.name][2][0])
        best = max(best, smallest)
    return best


def _trt_static_max_batch(
    config: ModelConfig, model_io: ModelIO, done: BackendCompletion
) -> int | None:
    """Without profiles from the reader: the file's own max batch, else the fixed dims 0."""
    if model_io.max_batch_size is not None:
        return model_io.max_batch_size
    firsts = [_dims(t)[:1] for t in model_io.inputs]
    if all(first and first[0] >= 0 for first in firsts):
        return min((first[0] for first in firsts), default=INT_MAX)
    done.notes.append(
        f"no TensorRT auto-complete for '{config.name}': the reader gave no optimization "
        "profiles for a plan with dynamic input dims"
    )
    return None


def _trt_fix_io(
    ios: ConfigTensors, tensors: tuple[TensorInfo, ...], mbs: int, done: BackendCompletion
) -> bool:
    """`GetRefIO` + `FixIO`: every engine tensor when none is configured, else complete the
    configured ones (data type, dims, reshape where unset; the shape-tensor and format flags).
    False after an error."""
    if not ios:
        for tensor in tensors:
            _trt_tensor(ios.add(), tensor, mbs)
        return True
    reference = {_trt_name(t): t for t in tensors}
    for io in ios:
        found = reference.get(io.name)
        if found is None:
            continue
        tensor = found
        if io.data_type == DataType.TYPE_INVALID:
            io.data_type = _data_type(tensor)  # type: ignore[assignment]
        if not io.dims:
            dims, reshape = _trt_dims(tensor, mbs)
            io.dims.extend(dims)
            if reshape and not io.HasField("reshape"):
                io.reshape.SetInParent()
        if io.is_shape_tensor and not tensor.is_shape_tensor:
            done.errors.append(f"'{io.name}' is incorrectly specified as a shape tensor.")
            return False
        io.is_shape_tensor = tensor.is_shape_tensor
        if io.is_non_linear_format_io and not tensor.non_linear_format:
            done.errors.append(
                f"'{io.name}' uses a linear IO format, but 'is_non_linear_format_io' is "
                "incorrectly set to true in the model configuration."
            )
            return False
        io.is_non_linear_format_io = tensor.non_linear_format
    return True


def _trt_tensor(io: ModelInput | ModelOutput, tensor: TensorInfo, mbs: int) -> None:
    io.name = _trt_name(tensor)
    io.data_type = _data_type(tensor)  # type: ignore[assignment]
    dims, reshape = _trt_dims(tensor, mbs)
    io.dims.extend(dims)
    if reshape:
        io.reshape.SetInParent()
    io.is_shape_tensor = tensor.is_shape_tensor
    io.is_non_linear_format_io = tensor.non_linear_format


def _trt_dims(tensor: TensorInfo, mbs: int) -> tuple[list[int], bool]:
    """`InitIODims`: a shape tensor's dims are its value count (less the batch value)."""
    if not tensor.is_shape_tensor:
        return _config_dims(tensor, mbs, reshape_scalars=True)
    shape = _dims(tensor)
    if not shape:
        return [], False
    return [shape[0] - 1 if mbs != 0 else shape[0]], False


def _trt_name(tensor: TensorInfo) -> str:
    return tensor.name.split(" ", 1)[0]  # Triton cuts an engine tensor name at its first space


# ---------------------------------------------------------------------------------------------
# Shared


def _copy(config: ModelConfig) -> ModelConfig:
    copied = ModelConfig()
    copied.CopyFrom(config)
    return copied


def _add_dynamic_batching(config: ModelConfig) -> None:
    """An empty `dynamic_batching {}` when no batcher is configured."""
    if not config.HasField("sequence_batching") and not config.HasField("dynamic_batching"):
        config.dynamic_batching.SetInParent()


def _dims(tensor: TensorInfo) -> list[int]:
    """The tensor's shape as the backend reports it: symbolic and unknown dims are -1, and an
    unknown rank is an empty shape (what ONNX Runtime reports for a tensor without shape)."""
    return list(tensor.wildcard_shape or ())


def _note_unknown_ranks(tensors: Iterable[TensorInfo], done: BackendCompletion) -> None:
    for tensor in tensors:
        if tensor.shape is None:
            done.notes.append(
                f"the model file gives no shape for '{tensor.name}'; it is taken as the "
                "backend reports it, a shape of no dimensions"
            )


def _data_type(tensor: TensorInfo) -> int:
    names = DataType.keys()
    return DataType.Value(tensor.data_type) if tensor.data_type in names else 0  # TYPE_INVALID


def _config_dims(tensor: TensorInfo, mbs: int, *, reshape_scalars: bool) -> tuple[list[int], bool]:
    """Config `dims` (dim 0 dropped when batching) and whether an empty `reshape` goes with
    them: a tensor left without dims gets `dims: [1]`."""
    dims = _dims(tensor)[1 if mbs > 0 else 0 :]
    if dims:
        return dims, False
    return [1], reshape_scalars


def _fill(
    ios: ConfigTensors,
    tensors: tuple[TensorInfo, ...],
    mbs: int,
    *,
    reshape_scalars: bool,
) -> None:
    """`AutoCompleteIO` / `GetRefIO`: one config tensor per model tensor (name, type, dims)."""
    del ios[:]
    for tensor in tensors:
        io = ios.add()
        io.name = tensor.name
        io.data_type = _data_type(tensor)  # type: ignore[assignment]
        dims, reshape = _config_dims(tensor, mbs, reshape_scalars=reshape_scalars)
        io.dims.extend(dims)
        if reshape:
            io.reshape.SetInParent()


__all__ = [
    "DEFAULT_MAX_BATCH_SIZE",
    "BackendCompletion",
    "autocomplete_backend",
    "take_backend_fields",
]
