"""The data every part of probe shares, and the small interface each runner implements.

A runner (ONNX Runtime, TensorRT) loads one model, runs one test point at a time with inputs that
probe generates, and describes itself for the report. Everything above the runners (the shape
plan, comparison, the report, suggestions) works on these types only, so it is tested on CPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tritoncfg.record import field, record

if TYPE_CHECKING:
    import numpy as np

Status = Literal["OK", "FAIL", "SKIP"]

# Exit statuses of `tritoncfg probe`: every point OK, some point FAILed, probe could not run.
EXIT_OK = 0
EXIT_FAIL = 1
EXIT_CANNOT_RUN = 3


@record(frozen=True)
class TestPoint:
    """One shape the config promises: a batch size crossed with a value for each variable dim.

    `shapes` are the full request shapes per input, batch dimension included when the model
    batches (`max_batch_size > 0`); `values` are the contents of shape-tensor inputs."""

    __test__ = False  # not a pytest test class

    batch_size: int | None  # None: the model does not batch (max_batch_size 0)
    shapes: Mapping[str, tuple[int, ...]]
    values: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # why this point is in the plan: "1", "preferred", "max_batch_size", "warmup", "cuda_graph",
    # "min:SEQ", "opt:SEQ", "max:SEQ", ...
    reasons: tuple[str, ...] = ()
    # the shapes the model file sees when the config `reshape`s an input (Triton reshapes the
    # request before the backend gets it); an input not listed here is fed at `shapes`
    model_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    step: str | None = None  # an ensemble's step model this point runs, None for a plain model

    @property
    def label(self) -> str:
        """A short, stable name for tables and JSON: `b=8 input_ids=8x512` (an ensemble step's
        point: `classifier: b=8 features=8x16`)."""
        head = "b=-" if self.batch_size is None else f"b={self.batch_size}"
        dims = " ".join(f"{n}={'x'.join(map(str, s))}" for n, s in sorted(self.shapes.items()))
        text = f"{head} {dims}".strip() if self.shapes or self.step is None else ""
        return text if self.step is None else f"{self.step}: {text}".rstrip(": ")

    def model_shape(self, name: str) -> tuple[int, ...]:
        """The shape the model file gets for input `name`."""
        return tuple(self.model_shapes.get(name, self.shapes[name]))


@record
class RunOutput:
    """What one execution of a point gave: the outputs, and their timings in milliseconds."""

    outputs: dict[str, np.ndarray]
    latencies_ms: list[float] = field(default_factory=list)
    # a runner that compares with a reference itself fills these (probe's loop compares TensorRT
    # on an `.onnx` with ONNX Runtime, `reference.py`); `mismatch` FAILs the point
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    mismatch: str | None = None


@record
class PointResult:
    point: TestPoint
    status: Status
    reason: str | None = None  # the runtime's own message for FAIL, why for SKIP
    output_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    output_dtypes: dict[str, str] = field(default_factory=dict)  # Triton TYPE_* names
    # {"p50", "p90", "p95", "p99", "max", "mean"}: a percentile is None with too few samples to
    # be one (measure.py)
    latency_ms: dict[str, float | None] | None = None
    # inferences per second: batch size / the fastest window's median latency (measure.py)
    throughput: float | None = None
    samples: int = 0  # the timed runs' latencies the statistics come from
    windows: int = 0  # measurement windows run
    stable: bool | None = None  # the last 3 windows agreed within --stability-percentage
    spread_ms: tuple[float, float] | None = None  # min, max of the window medians (measure.py)
    cv: float | None = None  # coefficient of variation of the window medians
    max_abs_error: float | None = None  # against the reference runner, when compared
    max_rel_error: float | None = None
    # "generated", "data-dir" (real inputs from --data-dir) or "wiring" (an ensemble step fed with
    # what an earlier step returned)
    inputs: str = "generated"
    # the first run after loading (or after a shape change), timed apart: lazy engine builds and
    # allocations land there, not in the percentiles
    first_run_ms: float | None = None


@record(frozen=True)
class ProbeSettings:
    """What the user asked for, shared by the plan and every runner."""

    # --dim NAME=min:opt:max (or NAME=SIZE, min = opt = max): sizes for variable (-1) dims, keyed
    # by input and axis, batch dim counted ("INPUT.1"), symbolic dim ("seq") or input ("INPUT");
    # the plan and the TensorRT profile both read them through `plan.asked_dim`
    dims: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)
    data_dir: Path | None = None  # real inputs: <data_dir>/<INPUT>.npy, else generated
    warmup_runs: int = 2
    timed_runs: int = 3  # at least this many timed runs in each measurement window
    window_ms: float = 50.0  # a measurement window lasts at least this long
    stability_percentage: float = 10.0  # the last 3 windows' median latencies: max / min within
    max_windows: int = 10  # then the point is "unstable"
    atol: float = 1e-5  # Polygraphy's defaults
    rtol: float = 1e-5
    precision: tuple[str, ...] = ()  # TensorRT builder precisions asked for: "fp16", "bf16", ...
    save_plan: bool = False  # TensorRT: write the built plan into the version folder
    device: int = 0  # GPU index
    seed: int = 0  # generated inputs are reproducible
    threads: int = 0  # CPU threads per runtime session (0: the runtime's default)


class RunnerUnavailable(Exception):
    """The runner cannot run on this machine (no runtime installed, no GPU): probe exits 3."""


class RunnerError(Exception):
    """A point failed inside the runtime; the message is the runtime's own."""


class Runner(Protocol):
    """One runtime. `load` raises RunnerUnavailable or RunnerError; `run` raises RunnerError."""

    name: str  # its runtime's name (tritoncfg/runtimes.py); made as Runner(settings)

    def load(self, model_file: Path, config: Any) -> None:
        """Prepare the model file for the (completed) `inference.ModelConfig` `config`."""

    def run(self, point: TestPoint, inputs: Mapping[str, np.ndarray]) -> RunOutput:
        """Execute one point with the given inputs; timings are filled by the caller's loop or
        by the runner itself when it times with device events (TensorRT: CUDA events)."""
        ...

    def describe(self) -> dict[str, Any]:
        """Facts for the report: runtime version, providers, GPU name, engine size, ..."""
        ...

    def close(self) -> None:
        """Free sessions, engines and device memory."""
