"""The shape plan: every batch size and shape a model's completed config promises, as test points.

Pure data: the completed `ModelConfig` (what Triton fills in) and the model file's I/O
(`models.io.ModelIO`) in, `TestPoint`s out. No runtime is imported here.

Batch sizes, when `max_batch_size > 0`: those `--batch-sizes` picks (`coverage.py`; by default
every size the dynamic batcher can send). The sizes the config names: 1, each
`dynamic_batching.preferred_batch_size`, `max_batch_size`, each `model_warmup[].batch_size` and
each `optimization.cuda.graph_spec[].batch_size` (sizes outside [1, max_batch_size] are noted,
not run: Triton refuses them at load, which `lint` reports). Each variable (-1) dim gets a
min/opt/max from, in order: `--dim`, the model file's fixed size at that axis, the TensorRT
engine's profile, or `DEFAULT_RANGE`. Every size the config names is crossed with three shape
points: all variable dims at min, all at opt, all at max (identical points are merged); the
other sizes run at opt, so the cost stays linear.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tritoncfg.models.io import ModelIO, Profile, TensorInfo
from tritoncfg.probe.contract import TestPoint
from tritoncfg.probe.coverage import ALL, SWEEP, BatchCoverage, batch_sizes
from tritoncfg.record import field, fields, record
from tritoncfg.schema import ModelConfig, ModelInput
from tritoncfg.schema.implicit import implicit_inputs

# min/opt/max for a variable dim nothing else sizes (documented in docs/probe.md)
DEFAULT_RANGE = (1, 16, 64)
LEVELS = ("min", "opt", "max")

Range = tuple[int, int, int]


@record(frozen=True)
class Variable:
    """One variable dim, or a family of them sharing a symbolic name in the model ("seq")."""

    key: str  # the symbolic name, or "INPUT.AXIS" (axis in the model's shape, batch included)
    range: Range
    source: str  # "--dim", "model", "profile", "wiring", "default"


@record
class ModelPlan:
    """What probe will do with one model: its runner and test points, or why it is skipped."""

    model: str
    path: str
    config: ModelConfig
    runtime: str | None = None  # a name of tritoncfg/runtimes.py; None: not run (see `skip`)
    model_file: Path | None = None
    points: list[TestPoint] = field(default_factory=list)
    variables: list[Variable] = field(default_factory=list)
    skip: str | None = None  # why the model is not run
    fail: str | None = None  # why it cannot load at all (Triton's own error)
    notes: list[str] = field(default_factory=list)
    steps: list[ModelPlan] = field(default_factory=list)  # an ensemble's step models
    directory: Path | None = None  # the model directory (lint reads it for --suggest)
    config_path: Path | None = None  # the config file as written, when there is one
    # batch sizes in [1, max_batch_size] the plan does not run, as (low, high) runs
    left_out: list[tuple[int, int]] = field(default_factory=list)
    # an ensemble step's wiring: its input -> the ensemble tensor it reads, its output -> the
    # ensemble tensor it writes
    wiring_in: dict[str, str] = field(default_factory=dict)
    wiring_out: dict[str, str] = field(default_factory=dict)

    @property
    def max_batch_size(self) -> int:
        return self.config.max_batch_size

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled for the worker process with the config as bytes (the generated protobuf
        module is not importable by the name pickle records)."""
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "config"}
        return (_rebuild_plan, (self.config.SerializeToString(), state))


def _rebuild_plan(config: bytes, state: dict[str, Any]) -> ModelPlan:
    return ModelPlan(config=ModelConfig.FromString(config), **state)


def parse_dim(text: str) -> tuple[str, Range]:
    """`NAME=min:opt:max` or `NAME=SIZE`; raises ValueError with what is wrong."""
    name, sep, sizes = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--dim {text!r}: expected NAME=min:opt:max or NAME=SIZE")
    parts = sizes.split(":")
    if len(parts) not in (1, 3) or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--dim {text!r}: sizes must be SIZE or min:opt:max (whole numbers)")
    low, opt, high = (int(parts[0]),) * 3 if len(parts) == 1 else tuple(int(p) for p in parts)
    if not 1 <= low <= opt <= high:
        raise ValueError(f"--dim {text!r}: needs 1 <= min <= opt <= max")
    return name.strip(), (low, opt, high)


def plan_points(
    config: ModelConfig,
    model_io: ModelIO | None,
    dims: Mapping[str, Range],
    *,
    wiring: Mapping[str, tuple[int, ...]] | None = None,
    step: str | None = None,
    ensemble_batches: Mapping[int, tuple[str, ...]] | None = None,
    coverage: BatchCoverage = ALL,
) -> tuple[list[TestPoint], list[Variable], list[str]]:
    """The test points of a config (with notes on what was assumed). For an ensemble's step:
    `wiring` gives the fixed dims (batch excluded) the ensemble passes to its inputs, which win
    over the step's own -1s, and `ensemble_batches` the batch sizes the ensemble sends. Shape
    points (min/opt/max) are crossed with the sizes the config names; a swept size runs at opt."""
    notes: list[str] = []
    batches = batch_sizes(config, notes, coverage)
    if ensemble_batches is not None and batches:
        mbs = config.max_batch_size
        batches = {b: why for b, why in ensemble_batches.items() if b <= mbs}
    # one unbatched point for a model that does not batch; none for a batching model whose
    # --batch-sizes are all above max_batch_size (Triton never sends it a request without one)
    sizes: dict[int | None, tuple[str, ...]] = {None: ()} if config.max_batch_size <= 0 else {}
    sizes.update(batches.items())
    variables: dict[str, Variable] = {}
    axes: dict[str, list[tuple[int, str]]] = {}  # input -> (axis, variable key)
    profile = selected_profile(config, model_io)
    for tensor in config.input:
        axes[tensor.name] = _input_axes(config, tensor, model_io, dims, wiring, variables, profile)
    for variable in variables.values():
        if variable.source == "default":
            notes.append(
                f"variable dim {variable.key} has no size from --dim, the model or a profile: "
                f"tested at {':'.join(map(str, variable.range))} (give --dim {variable.key}=...)"
            )
    levels = LEVELS if any(len(set(v.range)) > 1 for v in variables.values()) else ("opt",)
    found: dict[tuple[object, ...], tuple[TestPoint, list[str]]] = {}
    for batch, why in sizes.items():
        for level in levels if why != (SWEEP,) else ("opt",):
            index = LEVELS.index(level)
            values = {key: v.range[index] for key, v in variables.items()}
            point = _point(config, batch, values, axes, profile, step, index)
            _add(found, point, [*why, *((level,) if len(levels) > 1 else ())])
    if variables and ensemble_batches is None:
        for batch, exact, reason in _exact_shapes(config):
            values = {key: v.range[1] for key, v in variables.items()}
            offset = 1 if config.max_batch_size > 0 else 0
            for name, given in exact.items():
                for axis, key in axes.get(name, ()):
                    if axis - offset < len(given) and given[axis - offset] > 0:
                        values[key] = given[axis - offset]
            _add(found, _point(config, batch, values, axes, profile, step, 1), [reason])
    points = [_with_reasons(point, tuple(reasons)) for point, reasons in found.values()]
    return points, list(variables.values()), notes


def _add(
    found: dict[tuple[object, ...], tuple[TestPoint, list[str]]],
    point: TestPoint,
    reasons: list[str],
) -> None:
    """Keep one point per (batch, shapes), with every reason it is there."""
    key = (point.batch_size, tuple(sorted((n, tuple(s)) for n, s in point.shapes.items())))
    if key not in found:
        found[key] = (point, [])
    kept = found[key][1]
    kept.extend(r for r in reasons if r not in kept)


def _exact_shapes(
    config: ModelConfig,
) -> list[tuple[int | None, dict[str, tuple[int, ...]], str]]:
    """Shapes the config writes out in full, tested as written: each warmup sample's input dims
    (Triton sends them at its batch size) and each CUDA graph spec's input shapes."""
    batching = config.max_batch_size > 0
    found: list[tuple[int | None, dict[str, tuple[int, ...]], str]] = []
    for warmup in config.model_warmup:
        if warmup.batch_size > 0 and (not batching or warmup.batch_size <= config.max_batch_size):
            dims = {n: tuple(i.dims) for n, i in warmup.inputs.items()}
            found.append((warmup.batch_size if batching else None, dims, f"warmup:{warmup.name}"))
    for spec in config.optimization.cuda.graph_spec:
        if spec.input and (not batching or 0 < spec.batch_size <= config.max_batch_size):
            dims = {n: tuple(shape.dim) for n, shape in spec.input.items()}
            found.append((spec.batch_size if batching else None, dims, "cuda_graph"))
    return found


def _input_axes(
    config: ModelConfig,
    tensor: ModelInput,
    model_io: ModelIO | None,
    dims: Mapping[str, Range],
    wiring: Mapping[str, tuple[int, ...]] | None,
    variables: dict[str, Variable],
    profile: Profile | None,
) -> list[tuple[int, str]]:
    """The variable axes of one input (model axes, batch included), registering their ranges."""
    batching = config.max_batch_size > 0
    info = _tensor(model_io, tensor.name)
    wired = (wiring or {}).get(tensor.name)
    found = []
    for index, dim in enumerate(tensor.dims):
        if dim != -1:
            continue
        axis = index + (1 if batching else 0)
        model_dim = _model_dim(info, tensor, axis)
        key = model_dim if isinstance(model_dim, str) else f"{tensor.name}.{axis}"
        if key not in variables:
            variables[key] = _resolve(
                key, tensor.name, axis, model_dim, dims, profile, wired, index
            )
        found.append((axis, key))
    return found


def _resolve(
    key: str,
    name: str,
    axis: int,
    model_dim: int | str | None,
    dims: Mapping[str, Range],
    profile: Profile | None,
    wired: tuple[int, ...] | None,
    index: int,
) -> Variable:
    asked = asked_dim(dims, name, axis, key)
    if asked is not None:
        return Variable(key, asked, "--dim")
    if wired is not None and index < len(wired) and wired[index] > 0:
        return Variable(key, (wired[index],) * 3, "wiring")
    if isinstance(model_dim, int) and model_dim > 0:
        return Variable(key, (model_dim,) * 3, "model")
    if profile is not None:
        low, opt, high = profile.shapes.get(name, ((), (), ()))
        if axis < len(low) and low[axis] > 0:
            return Variable(key, (low[axis], opt[axis], high[axis]), "profile")
    return Variable(key, DEFAULT_RANGE, "default")


def asked_dim(dims: Mapping[str, Range], name: str, axis: int, symbol: str | None) -> Range | None:
    """The `--dim` range of axis `axis` (the batch dim counted) of input `name`, whose symbolic
    name in the model is `symbol`: `INPUT.AXIS`, then the symbol, then `INPUT`. The TensorRT
    profile (`tensorrt/profiles.py`) reads `--dim` through this too."""
    for key in (f"{name}.{axis}", symbol, name):
        if key is not None and key in dims:
            return dims[key]
    return None


def selected_profile(config: ModelConfig, model_io: ModelIO | None) -> Profile | None:
    """The TensorRT profile that sizes variable dims: the first that an instance group lists
    (`instance_group.profile`), else profile 0, which Triton uses when none is listed."""
    if model_io is None or not model_io.profiles:
        return None
    by_index = {p.index: p for p in model_io.profiles}
    for group in config.instance_group:
        for listed in group.profile:
            if listed.isdigit() and int(listed) in by_index:
                return by_index[int(listed)]
    return by_index.get(0, model_io.profiles[0])


def _model_dim(info: TensorInfo | None, tensor: ModelInput, axis: int) -> int | str | None:
    """The model file's dim at `axis`, when its shape lines up with the config's (no reshape)."""
    if info is None or info.shape is None or tensor.HasField("reshape"):
        return None
    return info.shape[axis] if axis < len(info.shape) else None


def _tensor(model_io: ModelIO | None, name: str) -> TensorInfo | None:
    if model_io is None:
        return None
    return next((t for t in model_io.inputs if t.name == name), None)


def _point(
    config: ModelConfig,
    batch: int | None,
    values: Mapping[str, int],
    axes: Mapping[str, list[tuple[int, str]]],
    profile: Profile | None,
    step: str | None,
    level: int,
) -> TestPoint:
    lead = () if batch is None else (batch,)
    offset = len(lead)
    shapes: dict[str, tuple[int, ...]] = {}
    model_shapes: dict[str, tuple[int, ...]] = {}
    shape_values: dict[str, tuple[int, ...]] = {}
    for tensor in config.input:
        sized = {axis - offset: values[key] for axis, key in axes[tensor.name]}
        request = tuple(sized.get(i, d) for i, d in enumerate(tensor.dims))
        shapes[tensor.name] = lead + request
        if tensor.HasField("reshape"):
            model_shapes[tensor.name] = lead + _reshaped(request, tuple(tensor.reshape.shape))
        if tensor.is_shape_tensor:
            shape_values[tensor.name] = _shape_values(tensor.name, profile, values, shapes, level)
    for name, _, dims in implicit_inputs(config):
        shapes.setdefault(name, lead + dims)
    return TestPoint(batch, shapes, shape_values, (), model_shapes, step)


def _reshaped(request: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """Triton's reshape of a request shape: the target's -1s take the request's variable sizes in
    order, or the one -1 takes what the element count leaves."""
    free = [i for i, d in enumerate(target) if d == -1]
    if not free:
        return target
    count = 1
    for d in request:
        count *= d
    known = 1
    for d in target:
        if d != -1:
            known *= d
    if len(free) == 1:
        return tuple(count // max(known, 1) if d == -1 else d for d in target)
    sizes = iter(request[-len(free) :])
    return tuple(next(sizes) if d == -1 else d for d in target)


def _shape_values(
    name: str,
    profile: Profile | None,
    values: Mapping[str, int],
    shapes: Mapping[str, tuple[int, ...]],
    level: int,
) -> tuple[int, ...]:
    """A shape tensor's contents: the profile's min, opt or max values (TensorRT) for this
    level, else the input's own variable sizes, else 1s (one value per element)."""
    if profile is not None and name in profile.values:
        return tuple(profile.values[name][level])
    count = 1
    for d in shapes[name]:
        count *= d
    own = [size for key, size in values.items() if key.startswith(f"{name}.")]
    return tuple(own[:count]) + (1,) * max(0, count - len(own))


def _with_reasons(point: TestPoint, reasons: tuple[str, ...]) -> TestPoint:
    return TestPoint(
        point.batch_size, point.shapes, point.values, reasons, point.model_shapes, point.step
    )


__all__ = [
    "ALL",
    "DEFAULT_RANGE",
    "LEVELS",
    "SWEEP",
    "ModelPlan",
    "Range",
    "Variable",
    "asked_dim",
    "batch_sizes",
    "parse_dim",
    "plan_points",
]
