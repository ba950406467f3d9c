"""The reference comparison: when TensorRT runs a model from its `.onnx` file, every point's
first outputs are compared with ONNX Runtime's on the same inputs (`compare.py`: Polygraphy's
`|actual - expected| <= atol + rtol * |expected|`, `--atol` / `--rtol`).

The reference runner is loaded in the model's worker process after the TensorRT engine is up,
and runs each point once. The comparison itself (`against`) is a pure function of two output
mappings, so it is tested on CPU with two ONNX Runtime sessions standing in.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.probe.contract import (
    ProbeSettings,
    Runner,
    RunnerError,
    RunnerUnavailable,
    TestPoint,
)
from tritoncfg.record import record
from tritoncfg.runtimes import BY_NAME

if TYPE_CHECKING:
    import numpy as np


@record(frozen=True)
class Verdict:
    """The largest errors over every output, and why the outputs are beyond tolerance (None:
    within it)."""

    max_abs_error: float | None
    max_rel_error: float | None
    mismatch: str | None = None


def reference_runtime(runtime: str | None, model_file: Path | None) -> str | None:
    """The runtime whose outputs a model's are compared with: ONNX Runtime when TensorRT builds
    the engine from an `.onnx` file (`tritoncfg/runtimes.py`: `builds_from`, `reference`); None
    otherwise (a `.plan` has no reference model)."""
    found = BY_NAME.get(runtime or "")
    if found is None or model_file is None or model_file.suffix not in found.builds_from:
        return None
    return found.reference


def against(
    actual: Mapping[str, np.ndarray],
    expected: Mapping[str, np.ndarray],
    atol: float,
    rtol: float,
) -> Verdict:
    """Compare `actual` with the reference's `expected` outputs (every reference output must be
    there, with its shape, within tolerance)."""
    from tritoncfg.probe.compare import compare_outputs, worst

    results = compare_outputs(actual, expected, atol, rtol)
    max_abs, max_rel = worst(results)
    reasons = [r.reason or f"output '{r.name}' differs" for r in results if not r.ok]
    mismatch = f"against ONNX Runtime: {'; '.join(reasons)}" if reasons else None
    return Verdict(max_abs, max_rel, mismatch)


def open_reference(
    runtime: str, model_file: Path, config: object, settings: ProbeSettings
) -> tuple[Runner | None, str | None]:
    """The loaded reference runner, or None and why the outputs are not compared."""
    from tritoncfg.probe.runners import load_runner

    try:
        runner = load_runner(runtime, settings)
        runner.load(model_file, plain(config))
    except (RunnerUnavailable, RunnerError) as error:
        return None, f"not compared: {error}"
    return runner, None


def plain(config: object) -> object:
    """The config without its execution accelerators: the reference runs on ONNX Runtime's own
    providers (CPU, or CUDA), never on its TensorRT provider, which would compare TensorRT with
    TensorRT."""
    from tritoncfg.schema import ModelConfig

    if not isinstance(config, ModelConfig):
        return config
    copy = ModelConfig()
    copy.CopyFrom(config)
    copy.optimization.ClearField("execution_accelerators")
    return copy


def check_point(
    reference: Runner,
    point: TestPoint,
    inputs: Mapping[str, np.ndarray],
    actual: Mapping[str, np.ndarray],
    settings: ProbeSettings,
) -> Verdict:
    """Run the reference on the point's inputs and compare; a reference that fails there is a
    mismatch with its own message."""
    try:
        expected = reference.run(point, inputs).outputs
    except RunnerError as error:
        return Verdict(None, None, f"the reference ({reference.name}) failed: {error}")
    return against(actual, expected, settings.atol, settings.rtol)


__all__ = [
    "Verdict",
    "against",
    "check_point",
    "open_reference",
    "plain",
    "reference_runtime",
]
