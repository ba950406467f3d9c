"""Running a model's points with a runner, in the worker process; each step is reported as it
happens (`emit`), so the parent knows which point was running if the runtime crashes.

Per point: inputs (generated or `--data-dir`), a first run whose outputs are checked against
the config's declared outputs (name, data type, shape with the batch), `warmup_runs - 1` more
warm-up runs. Then the points that passed are timed in turn, one measurement window each,
round after round, until each has had three in a row agree (`measure.py`): latency percentiles,
throughput and the spread of the windows.
A runner that times itself (CUDA events) reports its own latencies in `RunOutput.latencies_ms`;
otherwise the host clock around `run` is used.
When TensorRT runs an `.onnx` file, each point's first outputs are also compared with ONNX
Runtime's on the same inputs (`reference.py`); beyond `--atol`/`--rtol` the point FAILs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tritoncfg.probe.contract import (
    PointResult,
    ProbeSettings,
    Runner,
    RunnerError,
    RunnerUnavailable,
    RunOutput,
    TestPoint,
)
from tritoncfg.probe.flow import Flow
from tritoncfg.probe.measure import DIGITS, Windows, window
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.results import UNTIMED, work
from tritoncfg.record import record, replace
from tritoncfg.schema import DataType, ModelConfig

if TYPE_CHECKING:
    import numpy as np

# ("start", index) before a point runs; ("point", (index, PointResult)) after;
# ("unavailable", (model, reason)); ("runtime", (model, describe dict))
Emit = Callable[[str, Any], None]


def execute(plan: ModelPlan, settings: ProbeSettings, emit: Emit) -> None:
    """Run every point of `work(plan)`, step model by step model."""
    items = work(plan)
    flow = Flow()
    index = 0
    while index < len(items):
        step = items[index][0]
        count = sum(1 for p, _ in items if p is step)
        indices = range(index, index + count)
        index += count
        runner = _load(step, settings, emit, items, indices)
        if runner is None:
            continue
        reference = _reference(runner, step, settings)
        try:
            facts = runner.describe()
            if reference[1] is not None:
                facts["reference"] = reference[1]
            emit("runtime", (step.model, facts))
            _run_points(runner, step, items, indices, settings, emit, flow, reference[0])
        finally:
            runner.close()
            if reference[0] is not None:
                reference[0].close()


def _load(
    step: ModelPlan, settings: ProbeSettings, emit: Emit, items: list[Any], indices: range
) -> Runner | None:
    """The step's runner, loaded; None when it cannot run here (its points SKIP, exit 3) or
    cannot load the model (its points FAIL). What the runner learnt before it stopped (a
    TensorRT engine built on a machine without a GPU) still goes into the report."""
    from tritoncfg.probe.runners import load_runner

    runner: Runner | None = None
    try:
        runner = load_runner(step.runtime or "", settings)
        assert step.model_file is not None
        runner.load(step.model_file, step.config)
        return runner
    except RunnerUnavailable as exc:
        _facts(emit, step, runner)
        emit("unavailable", (step.model, str(exc)))
        _all(emit, items, indices, "SKIP", f"not run: the {step.runtime} runner cannot run here")
    except RunnerError as exc:
        _facts(emit, step, runner)
        _all(emit, items, indices, "FAIL", str(exc))
    return None


def _facts(emit: Emit, step: ModelPlan, runner: Runner | None) -> None:
    if runner is not None:
        emit("runtime", (step.model, runner.describe()))
        runner.close()


def _reference(
    runner: Runner, step: ModelPlan, settings: ProbeSettings
) -> tuple[Runner | None, dict[str, Any] | str | None]:
    """The reference runner the model's outputs are compared with (ONNX Runtime for TensorRT on
    an `.onnx` file, `reference.py`), and what the report says about it."""
    from tritoncfg.probe.reference import open_reference, reference_runtime

    runtime = reference_runtime(runner.name, step.model_file)
    if runtime is None or step.model_file is None:
        return None, None
    reference, why = open_reference(runtime, step.model_file, step.config, settings)
    return reference, (why if reference is None else reference.describe())


def _all(emit: Emit, items: list[Any], indices: range, status: str, reason: str) -> None:
    for i in indices:
        emit("point", (i, PointResult(items[i][1], status, reason)))  # type: ignore[arg-type]


# inputs held at once while points are timed in turn; past it, a point is timed on its own
TURN_BYTES = 256 * 1024 * 1024


@record
class Timing:
    """A point that ran and checked out, waiting for its measurement windows."""

    index: int
    point: TestPoint
    inputs: Mapping[str, np.ndarray]
    result: PointResult
    windows: Windows


def _run_points(
    runner: Runner,
    step: ModelPlan,
    items: list[tuple[ModelPlan, TestPoint]],
    indices: range,
    settings: ProbeSettings,
    emit: Emit,
    flow: Flow,
    reference: Runner | None = None,
) -> None:
    """Every point runs and is checked in order; the ones that pass are then timed in turn
    (`time_in_turn`), as many as `TURN_BYTES` of inputs allow, the rest on their own."""
    from tritoncfg.probe.inputs import InputError, load_data, point_inputs
    from tritoncfg.schema.implicit import input_types

    types = input_types(step.config)
    data = load_data(settings.data_dir, step.model)
    waiting: list[Timing] = []
    held = 0
    for i in indices:
        point = items[i][1]
        emit("start", i)
        try:
            inputs, source = point_inputs(types, point, settings.seed, data)
        except InputError as exc:
            emit("point", (i, PointResult(point, "SKIP", str(exc))))
            continue
        if flow.feed(step, point, inputs):
            source = "wiring"
        outputs: dict[str, np.ndarray] = {}
        result = checked(runner, step.config, point, inputs, settings, outputs, reference)
        flow.keep(step, point, outputs)
        result.inputs = source
        timing = Timing(i, point, inputs, result, Windows(settings, point.batch_size or 1))
        size = sum(int(array.nbytes) for array in inputs.values())
        if result.status != "OK" or held + size > TURN_BYTES:
            time_in_turn(runner, [timing], settings, emit)
            continue
        held += size
        waiting.append(timing)
        emit("point", (i, replace(result, reason=UNTIMED)))  # what stands if the run stops
    time_in_turn(runner, waiting, settings, emit)


def time_in_turn(
    runner: Runner, waiting: list[Timing], settings: ProbeSettings, emit: Emit
) -> None:
    """One measurement window of each point in turn, round after round, until every point has
    had three consecutive windows agree, or `max_windows` rounds have run (a point whose windows
    never agreed is then unstable: `measure.Windows`). A point that is not OK
    is sent as it is; one that fails a window is sent then, FAIL.

    Taking turns, and stopping together, gives every point windows over the same stretch of
    the machine's time: a change in its speed (other work, a frequency step) reaches every batch
    size alike and shows in each one's spread, instead of bending the curve between two of them
    or escaping the points that stopped before it."""
    pending = [t for t in waiting if t.result.status == "OK"]
    for timing in waiting:
        if timing.result.status != "OK":
            emit("point", (timing.index, timing.result))
    while pending:
        for timing in list(pending):
            emit("start", timing.index)
            try:
                timing.windows.add(window(_once(runner, timing), settings))
            except RunnerError as exc:
                result = timing.result
                result.status, result.reason = "FAIL", f"failed on a repeated run: {exc}"
                pending.remove(timing)
                emit("point", (timing.index, result))
        if all(t.windows.stable for t in pending) or any(t.windows.exhausted for t in pending):
            for timing in pending:
                _fill(timing.result, timing.windows)
                emit("point", (timing.index, timing.result))
            return


def _once(runner: Runner, timing: Timing) -> Callable[[], list[float]]:
    def once() -> list[float]:
        start = time.perf_counter()
        output: RunOutput = runner.run(timing.point, timing.inputs)
        return output.latencies_ms or [(time.perf_counter() - start) * 1000.0]

    return once


def run_point(
    runner: Runner,
    config: ModelConfig,
    point: TestPoint,
    inputs: Mapping[str, np.ndarray],
    settings: ProbeSettings,
    outputs: dict[str, np.ndarray] | None = None,
    reference: Runner | None = None,
) -> PointResult:
    """Run, check and time one point on its own (windows back to back)."""
    result = checked(runner, config, point, inputs, settings, outputs, reference)
    timing = Timing(0, point, inputs, result, Windows(settings, point.batch_size or 1))
    time_in_turn(runner, [timing], settings, lambda kind, payload: None)
    return result


def checked(
    runner: Runner,
    config: ModelConfig,
    point: TestPoint,
    inputs: Mapping[str, np.ndarray],
    settings: ProbeSettings,
    outputs: dict[str, np.ndarray] | None = None,
    reference: Runner | None = None,
) -> PointResult:
    """Run and check one point, then its warm-up runs: OK (not timed yet) or FAIL. The first
    run's outputs go into `outputs` when given, and are compared with the `reference` runner's
    on the same inputs when there is one."""
    start = time.perf_counter()
    try:
        first = runner.run(point, inputs)
    except RunnerError as exc:
        return PointResult(point, "FAIL", str(exc))
    if outputs is not None:
        outputs.update(first.outputs)
    result = PointResult(point, "OK")
    result.first_run_ms = round((time.perf_counter() - start) * 1000.0, 3)
    result.output_shapes = {n: tuple(a.shape) for n, a in first.outputs.items()}
    result.output_dtypes = {n: _type_name(a) for n, a in first.outputs.items()}
    result.max_abs_error, result.max_rel_error = first.max_abs_error, first.max_rel_error
    problem = check_outputs(config, point, first.outputs) or first.mismatch
    if problem is None and reference is not None:
        from tritoncfg.probe.reference import check_point

        verdict = check_point(reference, point, inputs, first.outputs, settings)
        result.max_abs_error, result.max_rel_error = verdict.max_abs_error, verdict.max_rel_error
        problem = verdict.mismatch
    if problem is not None:
        result.status, result.reason = "FAIL", problem
        return result
    try:
        for _ in range(max(settings.warmup_runs - 1, 0)):
            runner.run(point, inputs)
    except RunnerError as exc:
        result.status, result.reason = "FAIL", f"failed on a repeated run: {exc}"
    return result


def _fill(result: PointResult, windows: Windows) -> None:
    found = windows.measurement()
    result.latency_ms = found.latency_ms
    rate = found.throughput
    result.throughput = None if rate is None else round(rate, 3)
    result.samples, result.windows = len(found.samples), len(found.window_medians)
    result.stable = found.stable
    low, high = found.spread_ms
    result.spread_ms = (round(low, DIGITS), round(high, DIGITS))
    result.cv = round(found.cv, 4)


def check_outputs(
    config: ModelConfig, point: TestPoint, outputs: Mapping[str, np.ndarray]
) -> str | None:
    """Why the outputs break what the config declares (name, data type, shape), or None."""
    lead = () if point.batch_size is None else (point.batch_size,)
    for tensor in config.output:
        array = outputs.get(tensor.name)
        if array is None:
            returned = ", ".join(sorted(outputs)) or "nothing"
            return f"the model returns no output '{tensor.name}' (it returns: {returned})"
        declared = DataType.Name(tensor.data_type)
        got = _type_name(array)
        if got != declared:
            return f"output '{tensor.name}' is {got}, the config declares {declared}"
        dims = tuple(tensor.reshape.shape) if tensor.HasField("reshape") else tuple(tensor.dims)
        expected = lead + dims
        shape = tuple(array.shape)
        if len(shape) != len(expected) or any(
            e != -1 and e != s for e, s in zip(expected, shape, strict=True)
        ):
            want = "x".join("N" if e == -1 else str(e) for e in expected) or "scalar"
            return (
                f"output '{tensor.name}' has shape {list(shape)}, the config declares {want} "
                "at this point"
            )
    return None


def _type_name(array: np.ndarray) -> str:
    from tritoncfg.probe.inputs import triton_type

    return triton_type(array)


__all__ = ["Emit", "Timing", "check_outputs", "checked", "execute", "run_point", "time_in_turn"]
