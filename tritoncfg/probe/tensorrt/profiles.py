"""Optimization profiles from the completed config and the network's inputs (pure data).

One profile, as `docs/probe-tensorrt.md` documents:
- the batch dim (axis 0 when `max_batch_size > 0`): min 1, opt = the largest
  `dynamic_batching.preferred_batch_size` (else `max_batch_size`), max = `max_batch_size`;
- every other -1 dim of the network: the config's size for that dim when the config fixes it,
  else `--dim` (`ProbeSettings.dims`) read exactly as the shape plan reads it (`plan.py`,
  `docs/probe.md`): `INPUT.AXIS` (axis of the model's shape, the batch dim included), then the
  ONNX symbolic name of that dim ("seq"), then `INPUT` (every variable dim of that input); else
  the plan's default range (`plan.DEFAULT_RANGE`), so the engine accepts every point planned;
- fixed dims: min = opt = max = the network's size.

A `--dim` naming something this model does not have is ignored, as the plan ignores it: one
`--dim` applies to a whole repository.
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
    # the ONNX model's symbolic name of each dim ("batch", "seq"), None where it has none
    dim_names: tuple[str | None, ...] = ()


def batch_range(config: Any) -> Range | None:
    """(1, opt, max_batch_size) for a batching model, None when `max_batch_size` is 0."""
    mbs = int(config.max_batch_size)
    if mbs <= 0:
        return None
    preferred = [int(p) for p in config.dynamic_batching.preferred_batch_size if 0 < p <= mbs]
    return (1, max(preferred) if preferred else mbs, mbs)


def check_dims(dims: Mapping[str, Range]) -> None:
    """Every `--dim` must hold 1 <= MIN <= OPT <= MAX (the CLI checks it too)."""
    for key, (low, opt, high) in dims.items():
        if not 1 <= low <= opt <= high:
            raise ProfileError(
                f"--dim {key}={low}:{opt}:{high}: sizes must satisfy 1 <= MIN <= OPT <= MAX"
            )


def derive_profile(
    config: Any, inputs: Sequence[NetInput], dims: Mapping[str, Range]
) -> ProfileShapes:
    """The (min, opt, max) shape of every network input; raises ProfileError."""
    check_dims(dims)
    batch = batch_range(config)
    declared = {i.name: [int(d) for d in i.dims] for i in config.input}
    owners = _symbol_owners(inputs, declared, batch is not None)
    profile: ProfileShapes = {}
    for net in inputs:
        if net.is_shape_tensor:
            raise ProfileError(
                f"input '{net.name}' is a shape tensor: probe does not derive profile values "
                "for shape-tensor inputs; give the model a plan built with them"
            )
        axes = [
            _axis_range(net, axis, batch, declared.get(net.name), dims, owners)
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
    owners: Mapping[str, tuple[str, int]],
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
    from tritoncfg.probe.plan import DEFAULT_RANGE, asked_dim

    symbol = net.dim_names[axis] if axis < len(net.dim_names) else None
    name, at = owners.get(symbol or "", (net.name, axis))
    return asked_dim(dims, name, at, symbol) or DEFAULT_RANGE


def _symbol_owners(
    inputs: Sequence[NetInput], declared: Mapping[str, list[int]], batched: bool
) -> dict[str, tuple[str, int]]:
    """Each symbolic dim's first variable (input, axis) in the config's input order: the plan
    sizes a symbol shared by several inputs once, from the first such input's `--dim` keys."""
    order = list(declared)
    ranked = sorted(inputs, key=lambda i: order.index(i.name) if i.name in order else len(order))
    offset = 1 if batched else 0
    owners: dict[str, tuple[str, int]] = {}
    for net in ranked:
        config_dims = declared.get(net.name, [])
        for axis, symbol in enumerate(net.dim_names):
            k = axis - offset
            fixed = len(config_dims) + offset == len(net.shape) and k >= 0 and config_dims[k] > 0
            if symbol and k >= 0 and net.shape[axis] < 0 and not fixed:
                owners.setdefault(symbol, (net.name, axis))
    return owners
