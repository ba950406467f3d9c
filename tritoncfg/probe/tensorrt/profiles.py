"""Optimization profiles from the completed config and the network's inputs (pure data).

One profile, as `docs/probe-tensorrt.md` documents:
- the batch dim (axis 0 when `max_batch_size > 0`): min 1, opt = the largest
  `dynamic_batching.preferred_batch_size` (else `max_batch_size`), max = `max_batch_size`;
- every other -1 dim of the network: the config's size for that dim when the config fixes it,
  else `--dim` (`ProbeSettings.dims`), keyed `INPUT` (every variable dim of that input) or
  `INPUT.K` (axis K of the config's `dims`, the batch dim not counted);
- fixed dims: min = opt = max = the network's size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tritoncfg.record import record

Range = tuple[int, int, int]
Shape = tuple[int, ...]
ProfileShapes = dict[str, tuple[Shape, Shape, Shape]]  # input -> (min, opt, max)


class ProfileError(ValueError):
    """The profile cannot be derived: a bad or missing `--dim`, or an unsupported input."""


@record(frozen=True)
class NetInput:
    """A network input as the ONNX parser sees it: -1 for a dynamic dim."""

    name: str
    shape: Shape
    dtype: str = ""  # trt.DataType member name
    is_shape_tensor: bool = False


def batch_range(config: Any) -> Range | None:
    """(1, opt, max_batch_size) for a batching model, None when `max_batch_size` is 0."""
    mbs = int(config.max_batch_size)
    if mbs <= 0:
        return None
    preferred = [int(p) for p in config.dynamic_batching.preferred_batch_size if 0 < p <= mbs]
    return (1, max(preferred) if preferred else mbs, mbs)


def check_dims(dims: Mapping[str, Range], inputs: Sequence[NetInput]) -> None:
    """Every `--dim` must hold MIN<=OPT<=MAX (all >= 1) and name an input of the network."""
    names = {i.name for i in inputs}
    for key, (low, opt, high) in dims.items():
        if not 1 <= low <= opt <= high:
            raise ProfileError(
                f"--dim {key}={low}:{opt}:{high}: sizes must satisfy 1 <= MIN <= OPT <= MAX"
            )
        name = _split_key(key, names)[0]
        if name not in names:
            known = ", ".join(sorted(names)) or "none"
            raise ProfileError(f"--dim {key}: the model has no input '{name}' (inputs: {known})")


def derive_profile(
    config: Any, inputs: Sequence[NetInput], dims: Mapping[str, Range]
) -> ProfileShapes:
    """The (min, opt, max) shape of every network input; raises ProfileError."""
    check_dims(dims, inputs)
    batch = batch_range(config)
    _check_axis_keys(dims, inputs, batch is not None)
    declared = {i.name: [int(d) for d in i.dims] for i in config.input}
    profile: ProfileShapes = {}
    for net in inputs:
        if net.is_shape_tensor:
            raise ProfileError(
                f"input '{net.name}' is a shape tensor: probe does not derive profile values "
                "for shape-tensor inputs; give the model a plan built with them"
            )
        axes = [
            _axis_range(net, axis, batch, declared.get(net.name), dims)
            for axis in range(len(net.shape))
        ]
        profile[net.name] = (
            tuple(a[0] for a in axes),
            tuple(a[1] for a in axes),
            tuple(a[2] for a in axes),
        )
    return profile


def _axis_range(
    net: NetInput,
    axis: int,
    batch: Range | None,
    declared: list[int] | None,
    dims: Mapping[str, Range],
) -> Range:
    size = net.shape[axis]
    if batch is not None and axis == 0:
        if 0 <= size < batch[2]:
            raise ProfileError(
                f"input '{net.name}': the model fixes the batch dim at {size}, the config's "
                f"max_batch_size is {batch[2]}"
            )
        return batch if size < 0 else (size, size, size)
    if size >= 0:
        return (size, size, size)
    offset = 1 if batch is not None else 0
    k = axis - offset  # index into the config's dims
    if declared is not None and len(declared) + offset == len(net.shape) and declared[k] > 0:
        return (declared[k], declared[k], declared[k])
    for key in (f"{net.name}.{k}", net.name):
        if key in dims:
            return dims[key]
    raise ProfileError(
        f"input '{net.name}' axis {k} is variable (-1) and has no size: "
        f"give --dim {net.name}.{k}=MIN:OPT:MAX"
    )


def _split_key(key: str, names: set[str]) -> tuple[str, int | None]:
    if key in names:
        return key, None
    head, dot, tail = key.rpartition(".")
    if dot and tail.isdigit():
        return head, int(tail)
    return key, None


def _check_axis_keys(dims: Mapping[str, Range], inputs: Sequence[NetInput], batched: bool) -> None:
    """`INPUT.K` must name a variable axis of INPUT (the batch dim not counted)."""
    shapes = {i.name: i.shape for i in inputs}
    for key in dims:
        name, k = _split_key(key, set(shapes))
        if k is None:
            continue
        shape = shapes[name][1:] if batched else shapes[name]
        if k >= len(shape):
            raise ProfileError(f"--dim {key}: input '{name}' has only {len(shape)} dims")
        if shape[k] >= 0:
            raise ProfileError(
                f"--dim {key}: axis {k} of input '{name}' is fixed at {shape[k]} in the model"
            )
