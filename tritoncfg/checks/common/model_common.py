"""What the ONNX Runtime and TensorRT backend rules share: the backends' common helpers
(`CheckAllowedModelInput`, `CompareDimsSupported`, `ShapeToString`) restated, and the config
facts both need (a tensor's dims or reshape, the sequence controls, the first instance name).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.complete.instance_groups import normalize_instance_groups
from tritoncfg.models.io import Dim, TensorInfo
from tritoncfg.record import record
from tritoncfg.repository.model import byte_order
from tritoncfg.schema import DataType, ModelConfig, ModelInput, ModelOutput
from tritoncfg.text import FieldPath
from tritoncfg.workspace import LoadedModel

Tensor = ModelInput | ModelOutput

_CONTROL_KINDS = (
    ("CONTROL_SEQUENCE_START", 0),
    ("CONTROL_SEQUENCE_END", 2),
    ("CONTROL_SEQUENCE_READY", 1),
    ("CONTROL_SEQUENCE_CORRID", 3),
)  # the order the backends look them up in


def shape_string(dims: Iterable[int]) -> str:
    """`backend::ShapeToString`: `[-1,3,224,224]`."""
    return "[" + ",".join(str(d) for d in dims) + "]"


def model_shape(tensor: TensorInfo) -> str:
    """The model's own shape for tritoncfg's messages: `[batch, 3, 224, 224]`."""
    shape: tuple[Dim, ...] = tensor.shape or ()
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def allowed_list(names: Iterable[str]) -> str:
    """The names as a `std::set<std::string>` joins them: byte order, comma separated."""
    return ", ".join(sorted(set(names), key=byte_order))


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest name, ignoring case; empty when none is close."""
    by_folded = {c.casefold(): c for c in choices}
    from difflib import get_close_matches  # only for a name that is wrong

    close = get_close_matches(name.casefold(), list(by_folded), n=1, cutoff=0.6)
    return f" (did you mean '{by_folded[close[0]]}'?)" if close else ""


def tensor_dims(tensor: Tensor) -> tuple[list[int], FieldPath]:
    """The shape the backends compare with the model: `reshape.shape` when there is a reshape,
    else `dims`; and the field it comes from."""
    if tensor.HasField("reshape"):
        return list(tensor.reshape.shape), ("reshape", "shape")
    return list(tensor.dims), ("dims",)


@record(frozen=True)
class ShapedTensor:
    """A config tensor whose shape a backend compares with the model's."""

    kind: str  # "input" | "output"
    tensor: Tensor
    info: TensorInfo  # the model's (or engine's) tensor of that name
    dims: list[int]  # reshape.shape or dims
    path: FieldPath  # the field they come from


def shaped_tensors(
    written: Iterable[tuple[str, int, Tensor, TensorInfo]], config: ModelConfig
) -> Iterator[ShapedTensor]:
    """The written tensors (kind, index, tensor, model tensor) whose model shape is known and that
    `CompareDimsSupported` sees: not ragged inputs, not batch outputs (compared differently), and
    not a tensor without dims (core's `must specify 'dims'` comes first)."""
    batch_outputs = {n for b in config.batch_output for n in b.target_name}
    for kind, i, tensor, info in written:
        if info.shape is None:
            continue
        if isinstance(tensor, ModelInput) and tensor.allow_ragged_batch:
            continue
        if kind == "output" and tensor.name in batch_outputs:
            continue
        dims, field = tensor_dims(tensor)
        if dims or tensor.HasField("reshape"):
            yield ShapedTensor(kind, tensor, info, dims, (kind, i, *field))


def full_dims(dims: list[int], batching: bool) -> list[int]:
    return [-1, *dims] if batching else list(dims)


def dims_differ(
    model: tuple[int, ...], config: list[int], *, exact: bool, config_wildcards: bool
) -> int | None:
    """The first index where `CompareDimsSupported` finds the full config shape and the model's
    apart (len(model) when the ranks differ), or None when they agree. A model -1 matches any
    config value unless `exact`; `config_wildcards` (TensorRT) lets a config -1 match too."""
    if len(model) != len(config):
        return len(model)
    for i, (mine, theirs) in enumerate(zip(model, config, strict=True)):
        skip = not exact and (mine == -1 or (config_wildcards and theirs == -1))
        if not skip and mine != theirs:
            return i
    return None


def dims_message(
    model_name: str, tensor_name: str, model: tuple[int, ...], dims: list[int], batching: bool
) -> str:
    """The "the model expects N dimensions ..." text both backends log."""
    head = (
        f"model '{model_name}', tensor '{tensor_name}': the model expects {len(model)} "
        f"dimensions (shape {shape_string(model)}) but the model configuration specifies "
    )
    if batching:
        full = full_dims(dims, True)
        return head + (
            f"{len(full)} dimensions (an initial batch dimension because max_batch_size > 0 "
            f"followed by the explicit tensor shape, making complete shape {shape_string(full)})"
        )
    return head + f"{len(dims)} dimensions (shape {shape_string(dims)})"


def dims_explanation(
    kind: str,
    info: TensorInfo,
    dims: list[int],
    batching: bool,
    where: int,
    exact: bool,
    owner: str = "model",
) -> str:
    """tritoncfg's account of a dims mismatch `dims_differ` found at `where` (`owner`: "model",
    "engine")."""
    model = info.wildcard_shape or ()
    full = full_dims(dims, batching)
    said = (
        f"max_batch_size > 0 adds the batch dimension, so dims {shape_string(dims)} make "
        f"{shape_string(full)}"
        if batching
        else f"the config says {shape_string(dims)}"
    )
    head = f"the {owner}'s {kind} '{info.name}' has shape {model_shape(info)}; {said}"
    if where == len(model):
        wanted = list(model[1:] if batching else model)
        hint = (
            f"; write dims: [ {', '.join(map(str, wanted))} ]"
            if wanted and (not batching or model[0] == -1)
            else ""
        )
        return f"{head}: {len(full)} dimensions against the model's {len(model)}{hint}"
    mine, theirs = model[where], full[where]
    if theirs == -1:
        return (
            f"{head}: dimension {where} is variable (-1) in the config but {mine} in the model; "
            f"the ONNX Runtime backend accepts -1 only where the model's dimension is variable too"
        )
    if mine == -1:
        return (
            f"{head}: dimension {where} is variable in the model but {theirs} in the config; "
            f"{kind} dims must match the model exactly (write -1)"
        )
    return f"{head}: dimension {where} is {theirs} in the config but {mine} in the {owner}"


@record(frozen=True)
class Control:
    kind: str  # CONTROL_SEQUENCE_START ...
    name: str  # the input tensor
    data_type: str  # TYPE_INT32 / TYPE_FP32 / TYPE_BOOL for the boolean kinds
    path: FieldPath  # the control_input's `name`


def sequence_controls(config: ModelConfig) -> list[Control]:
    """The control tensors the sequence batcher feeds, in the order the backends check them."""
    if config.WhichOneof("scheduling_choice") != "sequence_batching":
        return []
    found: list[Control] = []
    batching = config.sequence_batching
    for kind_name, kind in _CONTROL_KINDS:
        for i, control_input in enumerate(batching.control_input):
            control = next((c for c in control_input.control if c.kind == kind), None)
            if control is None:
                continue
            if kind_name == "CONTROL_SEQUENCE_CORRID":
                data_type = _type_name(control.data_type)
            elif control.int32_false_true:
                data_type = "TYPE_INT32"
            elif control.fp32_false_true:
                data_type = "TYPE_FP32"
            else:
                data_type = "TYPE_BOOL"
            path: FieldPath = ("sequence_batching", "control_input", i, "name")
            found.append(Control(kind_name, control_input.name, data_type, path))
            break
    return found


def _type_name(data_type: int) -> str:
    return str(DataType.Name(data_type))


def type_name(tensor: Tensor) -> str | None:
    """The tensor's `TYPE_*`, or None when unset (TYPE_INVALID: core reports that)."""
    return None if tensor.data_type == 0 else _type_name(tensor.data_type)


def first_instance_name(config: ModelConfig, ctx: CheckContext, group: int = 0) -> str:
    """The name of the first instance of a group (`<group>_0`), which fails first."""
    groups = normalize_instance_groups(config, config.backend, ctx.options.gpus)
    if group >= len(groups):
        return f"{config.name}_0"
    names = groups[group].instance_names
    return names[0] if names else f"{groups[group].name}_0"


def unknown_name_findings(
    model: LoadedModel,
    ctx: CheckContext,
    direction: str,
    written: Iterable[tuple[int, str]],
    allowed: set[str],
    what: str,
) -> Iterator[Finding]:
    """`unexpected inference input 'X', allowed inputs are: a, b` for each written name that is
    not allowed; `what` names the model file in the message ("the model", "the engine")."""
    listed = allowed_list(allowed)
    for index, name in written:
        if name in allowed:
            continue
        yield Finding(
            f"{direction} '{name}' is not an {direction} of {what}{did_you_mean(name, allowed)}; "
            f"its {direction}s are: {listed or '(none)'}",
            at(model, direction, index, "name", value=True),
            triton_message=(
                f"unexpected inference {direction} '{name}', allowed {direction}s are: {listed}"
            ),
        )


__all__ = [
    "Control",
    "Tensor",
    "allowed_list",
    "did_you_mean",
    "dims_differ",
    "dims_explanation",
    "dims_message",
    "first_instance_name",
    "full_dims",
    "model_shape",
    "sequence_controls",
    "shape_string",
    "tensor_dims",
    "type_name",
    "unknown_name_findings",
]
