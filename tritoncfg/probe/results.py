"""A model's probe result, assembled from its plan and what the worker reported point by point.

Pure data (no runtime import), so the report, the suggestions and the parent process use it.
"""

from __future__ import annotations

from typing import Any

from tritoncfg.probe.contract import PointResult, Status, TestPoint
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.record import field, record

NOT_RUN = "not run"
UNTIMED = "outputs checked; not timed yet"  # sent before the point's windows (execute.py)
_WORST: dict[Status, int] = {"OK": 0, "SKIP": 1, "FAIL": 2}


@record
class ModelResult:
    model: str
    path: str
    runner: str | None  # a runtime's name (tritoncfg/runtimes.py), "ensemble"; None: not run
    max_batch_size: int
    points: list[PointResult] = field(default_factory=list)
    reason: str | None = None  # why the whole model was skipped or failed
    model_status: Status | None = None  # the model-level status when it has no points
    unavailable: bool = False  # a runner could not run here (no runtime, no GPU): exit 3
    runtime: dict[str, Any] = field(default_factory=dict)  # the runner's describe()
    notes: list[str] = field(default_factory=list)
    # where the points of `work(plan)` sit in `points`, in that order (filled as they run)
    pending: list[int] = field(default_factory=list)
    left_out: list[tuple[int, int]] = field(default_factory=list)  # batch sizes not probed

    @property
    def status(self) -> Status:
        statuses = [p.status for p in self.points]
        if self.model_status is not None:
            statuses.append(self.model_status)
        return max(statuses, key=_WORST.__getitem__, default="OK")


@record(frozen=True)
class Reach:
    """How far up the batch sizes a model runs: every probed size up to `runs_up_to` ran OK (None:
    batch 1 did not), and the smallest size with a FAIL point, with its reason."""

    runs_up_to: int | None
    first_failure: int | None
    failure: str | None

    @property
    def text(self) -> str:
        """`runs at 1-4; fails from 5: <runtime's message>`."""
        runs = (
            "runs at no batch size" if self.runs_up_to is None else f"runs at 1-{self.runs_up_to}"
        )
        if self.runs_up_to == 1:
            runs = "runs at 1"
        if self.first_failure is None:
            return runs
        return f"{runs}; fails from {self.first_failure}: {self.failure}"


def reach(result: ModelResult) -> Reach | None:
    """The model's batch reach over its points (an ensemble's: every step's at each size); None
    for a model without batch points."""
    by_size: dict[int, list[PointResult]] = {}
    for point in result.points:
        if point.point.batch_size is not None:
            by_size.setdefault(point.point.batch_size, []).append(point)
    if not by_size:
        return None
    runs_up_to = None
    for size in sorted(by_size):
        if any(p.status != "OK" for p in by_size[size]):
            break
        runs_up_to = size
    failing = [s for s in sorted(by_size) if any(p.status == "FAIL" for p in by_size[s])]
    if not failing:
        return Reach(runs_up_to, None, None)
    first = next(p for p in by_size[failing[0]] if p.status == "FAIL")
    return Reach(runs_up_to, failing[0], first.reason)


def work(plan: ModelPlan) -> list[tuple[ModelPlan, TestPoint]]:
    """The points a worker runs, in order: the model's own, or each runnable step's."""
    plans = plan.steps if plan.config.HasField("ensemble_scheduling") else [plan]
    return [
        (p, point) for p in plans if p.runtime and not p.skip and not p.fail for point in p.points
    ]


def new_result(plan: ModelPlan) -> ModelResult:
    """The result before anything runs: skipped steps, and a model skipped or failed whole."""
    ensemble = plan.config.HasField("ensemble_scheduling")
    result = ModelResult(
        plan.model,
        plan.path,
        "ensemble" if ensemble else plan.runtime,
        plan.max_batch_size,
        notes=list(plan.notes),
        left_out=list(plan.left_out),
    )
    if plan.fail or (plan.skip and not ensemble):
        result.reason = plan.fail or plan.skip
        result.model_status = "FAIL" if plan.fail else "SKIP"
        result.runner = None
        return result
    if not ensemble and not plan.points:  # e.g. --batch-sizes above max_batch_size
        result.reason = "nothing to probe: no test point (see the notes)"
        result.model_status = "SKIP"
        return result
    plans = plan.steps if ensemble else [plan]
    for step in plans:
        if step.fail or step.skip or not step.runtime:
            point = TestPoint(None, {}, step=step.model)
            reason = step.fail or step.skip or "nothing to run"
            result.points.append(PointResult(point, "FAIL" if step.fail else "SKIP", reason))
        else:
            for point in step.points:
                result.pending.append(len(result.points))
                result.points.append(PointResult(point, "SKIP", NOT_RUN))
        if ensemble:
            result.notes.extend(f"{step.model}: {note}" for note in step.notes)
    return result


__all__ = ["NOT_RUN", "UNTIMED", "ModelResult", "Reach", "new_result", "reach", "work"]
