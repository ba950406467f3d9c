"""Parse an ONNX model, inspect the network, add profiles and build a serialized engine.

Every failure comes back as data, in the library's own words: the ONNX parser's errors
(`parser.get_error(i)`), and the builder's messages captured through a `trt.ILogger` subclass
(unknown op, no profile for a dynamic input, MIN>OPT>MAX, a profile naming a missing input, a
fixed-dim mismatch). Runs on CPU with TensorRT-RTX; plain TensorRT needs a GPU to build.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tritoncfg.models.dtypes import trt_type
from tritoncfg.probe.tensorrt.adapter import CapturedLog, TrtAdapter, UnsupportedPrecision
from tritoncfg.probe.tensorrt.profiles import NetInput, ProfileShapes
from tritoncfg.record import field, record

DEFAULT_WORKSPACE = 1 << 30


@record(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]  # -1 for a dynamic dim
    dtype: str  # trt.DataType member name ("FLOAT", "HALF", ...)
    is_shape_tensor: bool = False
    dim_names: tuple[str | None, ...] = ()  # the ONNX symbolic dim names the parser keeps

    @property
    def triton_type(self) -> str | None:
        return trt_type(self.dtype)


@record
class NetworkInfo:
    inputs: list[TensorInfo] = field(default_factory=list)
    outputs: list[TensorInfo] = field(default_factory=list)

    def net_inputs(self) -> list[NetInput]:
        return [
            NetInput(t.name, t.shape, t.dtype, t.is_shape_tensor, t.dim_names) for t in self.inputs
        ]


@record
class BuildResult:
    """The plan, or the stage that failed ("parse", "precision", "profile", "build") and the
    library's messages."""

    plan: bytes | None = None
    network: NetworkInfo | None = None
    stage: str | None = None
    errors: list[str] = field(default_factory=list)
    log: CapturedLog = field(default_factory=CapturedLog)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.plan is not None

    def message(self) -> str:
        head = f"{self.stage} failed" if self.stage else "build failed"
        return f"{head}: " + ("; ".join(self.errors) or "no message from the library")


@record
class ParsedNetwork:
    """What `parse_onnx` keeps alive: builder, network and parser must outlive the build."""

    adapter: TrtAdapter
    log: CapturedLog
    logger: Any
    builder: Any
    network: Any
    parser: Any
    info: NetworkInfo


def _dims(dims: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in dims)


def _dim_names(tensor: Any) -> tuple[str | None, ...]:
    """The symbolic name of each dim (`ITensor.get_dimension_name`: the ONNX parser copies the
    model's `dim_param`s), None where there is none."""
    named = getattr(tensor, "get_dimension_name", None)
    if named is None:
        return ()
    names = [named(i) for i in range(len(tensor.shape))]
    return tuple(str(n) if n else None for n in names)


def inspect_network(network: Any) -> NetworkInfo:
    """Names, dtypes and shapes of the network's inputs and outputs."""

    def info(tensor: Any) -> TensorInfo:
        return TensorInfo(
            name=str(tensor.name),
            shape=_dims(tensor.shape),
            dtype=str(getattr(tensor.dtype, "name", tensor.dtype)),
            is_shape_tensor=bool(getattr(tensor, "is_shape_tensor", False)),
            dim_names=_dim_names(tensor),
        )

    return NetworkInfo(
        inputs=[info(network.get_input(i)) for i in range(network.num_inputs)],
        outputs=[info(network.get_output(i)) for i in range(network.num_outputs)],
    )


def parse_onnx(adapter: TrtAdapter, onnx_path: Path) -> ParsedNetwork | BuildResult:
    """Parse the model (`parse_from_file`, so external data works); a failed BuildResult with
    the parser's own errors when it cannot."""
    trt = adapter.module
    log = CapturedLog()
    logger = adapter.make_logger(log)
    builder = trt.Builder(logger)
    network = builder.create_network(adapter.network_flags())
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(onnx_path)):
        errors = [str(parser.get_error(i)) for i in range(parser.num_errors)]
        return BuildResult(stage="parse", errors=errors or log.errors(), log=log)
    return ParsedNetwork(adapter, log, logger, builder, network, parser, inspect_network(network))


def builder_config(parsed: ParsedNetwork, precision: Iterable[str] = ()) -> Any:
    """A builder config with the requested precision flags (UnsupportedPrecision when one cannot
    be honoured). TF32 is cleared unless asked for: TensorRT enables it by default, and FP32
    outputs computed in TF32 would not match ONNX Runtime's at probe's default tolerance."""
    requested = [p.lower() for p in precision]
    flags = parsed.adapter.precision_flags(requested)
    config = parsed.builder.create_builder_config()
    tf32 = getattr(parsed.adapter.module.BuilderFlag, "TF32", None)
    if tf32 is not None and "tf32" not in requested:
        config.clear_flag(tf32)
    for flag in flags:
        config.set_flag(flag)
    return config


def build_engine(
    parsed: ParsedNetwork,
    profiles: Sequence[ProfileShapes],
    precision: Iterable[str] = (),
    workspace: int = DEFAULT_WORKSPACE,
) -> BuildResult:
    """Add the profiles and build; the captured builder errors on failure."""
    trt, log = parsed.adapter.module, parsed.log
    result = BuildResult(network=parsed.info, log=log)
    try:
        config = builder_config(parsed, precision)
    except UnsupportedPrecision as error:
        result.stage, result.errors = "precision", [str(error)]
        return result
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, workspace)
    for profile_shapes in profiles:
        profile = parsed.builder.create_optimization_profile()
        for name, (low, opt, high) in profile_shapes.items():
            profile.set_shape(name, low, opt, high)
        before = len(log.errors())
        if config.add_optimization_profile(profile) < 0:
            result.stage, result.errors = "profile", _meaningful(log.errors()[before:])
            return result
    start = time.perf_counter()
    plan = parsed.builder.build_serialized_network(parsed.network, config)
    result.seconds = time.perf_counter() - start
    if plan is None:
        result.stage, result.errors = "build", _meaningful(log.errors())
        return result
    result.plan = bytes(plan)
    return result


def _meaningful(errors: list[str]) -> list[str]:
    """The errors without the CUDA-init noise a GPU-less machine adds (`catchCudaError`), unless
    that noise is all there is."""
    kept = [e for e in errors if "catchCudaError" not in e]
    return kept or errors
