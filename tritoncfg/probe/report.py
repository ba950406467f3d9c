"""The probe report: a Rich table per model, or one JSON document (`report.schema.json`).

The JSON shape is a contract (docs/probe.md): `gen dynamic-batching --from-perf` reads
`models[].points[]` batch sizes, throughputs and latencies from it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any, TextIO

from tritoncfg import __version__
from tritoncfg.probe.contract import (
    EXIT_CANNOT_RUN,
    EXIT_FAIL,
    EXIT_OK,
    PointResult,
    TestPoint,
)
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.results import ModelResult, reach

KIND = "tritoncfg-probe-report"
SCHEMA_VERSION = 2  # 2: a tail latency may be null (too few samples to call it p99), "stability"
_STYLE = {"OK": "green", "FAIL": "bold red", "SKIP": "yellow"}


def exit_status(results: Sequence[ModelResult]) -> int:
    """1 when any point FAILed; else 3 when a runner could not run here; else 0."""
    if any(r.status == "FAIL" for r in results):
        return EXIT_FAIL
    if any(r.unavailable for r in results):
        return EXIT_CANNOT_RUN
    return EXIT_OK


def schema() -> dict[str, Any]:
    text = resources.files("tritoncfg.probe").joinpath("report.schema.json").read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def to_json(results: Sequence[ModelResult]) -> dict[str, Any]:
    return {
        "tool": {"name": "tritoncfg", "version": __version__},
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "models": [_model_json(r) for r in results],
        "summary": _summary(results),
    }


def _model_json(result: ModelResult) -> dict[str, Any]:
    found = reach(result)
    return {
        "model": result.model,
        "path": result.path,
        "runner": result.runner,
        "status": result.status,
        "reason": result.reason,
        "max_batch_size": result.max_batch_size,
        "runtime": result.runtime,
        "notes": result.notes,
        "runs_up_to": None if found is None else found.runs_up_to,
        "first_failure": (
            None
            if found is None or found.first_failure is None
            else {"batch_size": found.first_failure, "reason": found.failure}
        ),
        "batch_sizes_left_out": [list(gap) for gap in result.left_out],
        "points": [_point_json(p) for p in result.points],
    }


def _point_json(result: PointResult) -> dict[str, Any]:
    point = result.point
    return {
        "label": point.label,
        "step": point.step,
        "batch_size": point.batch_size,
        "shapes": {n: list(s) for n, s in point.shapes.items()},
        "values": {n: list(v) for n, v in point.values.items()},
        "reasons": list(point.reasons),
        "status": result.status,
        "reason": result.reason,
        "inputs": result.inputs,
        "output_shapes": {n: list(s) for n, s in result.output_shapes.items()},
        "output_dtypes": dict(result.output_dtypes),
        "first_run_ms": result.first_run_ms,
        "latency_ms": result.latency_ms,
        "samples": result.samples,
        "stability": _stability_json(result),
        "throughput": result.throughput,
        "max_abs_error": result.max_abs_error,
        "max_rel_error": result.max_rel_error,
    }


def _stability_json(result: PointResult) -> dict[str, Any] | None:
    if result.spread_ms is None:
        return None
    low, high = result.spread_ms
    return {
        "stable": result.stable,
        "windows": result.windows,
        "window_p50_ms": {"min": low, "max": high},
        "cv": result.cv,
    }


def _summary(results: Sequence[ModelResult]) -> dict[str, int]:
    """Points by status, and the models skipped or failed whole (before any point: a python
    model, no model file, no runner), whose shapes no point counts."""
    counts = {"models": len(results), "OK": 0, "FAIL": 0, "SKIP": 0}
    whole = {"SKIP": 0, "FAIL": 0}
    for result in results:
        for point in result.points:
            counts[point.status] += 1
        if result.model_status in whole and not result.points:
            whole[result.model_status] += 1
    counts["models_skipped"], counts["models_failed"] = whole["SKIP"], whole["FAIL"]
    counts["exit_status"] = exit_status(results)
    return counts


def summary_line(summary: dict[str, int]) -> str:
    """`3 models (1 skipped whole): 4 OK, 0 FAIL, 1 SKIP points`."""
    models = summary["models"]
    whole = [
        f"{summary[key]} {what} whole"
        for key, what in (("models_skipped", "skipped"), ("models_failed", "failed"))
        if summary[key]
    ]
    shown = f" ({', '.join(whole)})" if whole else ""
    return (
        f"{models} model{'s' if models != 1 else ''}{shown}: {summary['OK']} OK, "
        f"{summary['FAIL']} FAIL, {summary['SKIP']} SKIP point{'s' if summary['SKIP'] != 1 else ''}"
    )


def render_tables(results: Sequence[ModelResult], stream: TextIO, color: bool) -> None:
    """One Rich table per model: a row per point (status, reason, latency, throughput, error)."""
    from rich.markup import escape
    from rich.table import Table

    from tritoncfg.report.console import rich_console

    width = None if stream.isatty() else 160  # a pipe or file: do not fold at 80 columns
    console = rich_console(stream, color=color, highlight=False, width=width)
    for result in results:
        title = escape(f"{result.model} [{result.runner or '-'}] {result.status}")
        console.print(f"[bold]{title}[/bold]  {escape(result.path)}", markup=True)
        if result.reason:
            console.print(f"  {result.status}: {result.reason}", markup=False)
        found = reach(result)
        if found is not None:
            console.print(f"  batch sizes: {found.text}", markup=False)
        if result.points:
            table = Table(show_edge=False, pad_edge=False)
            table.add_column("point", overflow="fold")
            table.add_column("status")
            for column in COLUMNS:
                table.add_column(column, justify="right")
            table.add_column("reason", overflow="fold")
            for point in result.points:
                table.add_row(*_row(point))
            console.print(table)
        for note in result.notes:
            console.print(f"  note: {note}", markup=False, style="dim")
        console.print()
    console.print(summary_line(_summary(results)), markup=False)


# the latency columns say what they are: p50 and the tail statistic the samples support ("p99",
# or "max of 8"), with the sample count, and the spread of the windows' medians
COLUMNS = ("p50 ms", "tail ms", "samples", "window p50s ms", "cv", "inf/s", "max err")


def _row(result: PointResult) -> list[Any]:
    from rich.text import Text

    from tritoncfg.probe.measure import tail

    latency = result.latency_ms or {}
    error = "" if result.max_abs_error is None else f"{result.max_abs_error:.3g}"
    name, value = tail(latency, result.samples)
    spread = ""
    if result.spread_ms is not None:
        spread = f"{result.spread_ms[0]:.3f}-{result.spread_ms[1]:.3f}"
        spread += "" if result.stable else " unstable"
    return [
        result.point.label or "-",
        Text(result.status, style=_STYLE[result.status]),
        _ms(latency.get("p50")),
        "" if value is None else f"{name} {value:.3f}",
        f"{result.samples:,}" if result.samples else "",
        spread,
        "" if result.cv is None else f"{result.cv:.1%}",
        "" if result.throughput is None else f"{result.throughput:,.0f}",
        error,
        result.reason or "",
    ]


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def render_plan(plans: Sequence[ModelPlan], stream: TextIO) -> None:
    """`--plan-only`: each model's runner and points, with why each point is there."""
    for plan in plans:
        _plan_lines(plan, stream, "")


def _plan_lines(plan: ModelPlan, stream: TextIO, indent: str) -> None:
    if plan.steps:
        stream.write(f"{indent}{plan.model}: ensemble, probed through its steps\n")
        for step in plan.steps:
            _plan_lines(step, stream, indent + "  ")
        return
    what = plan.fail or plan.skip
    if what:
        stream.write(f"{indent}{plan.model}: {'FAIL' if plan.fail else 'SKIP'}: {what}\n")
        return
    where = plan.model_file.name if plan.model_file else "-"
    count = len(plan.points)
    stream.write(
        f"{indent}{plan.model}: {plan.runtime} ({where}), {count} point{'s' if count != 1 else ''}\n"
    )
    for variable in plan.variables:
        low, opt, high = variable.range
        stream.write(f"{indent}  dim {variable.key} = {low}:{opt}:{high} ({variable.source})\n")
    for point in plan.points:
        stream.write(f"{indent}  {_plan_point(point)}\n")
    for note in plan.notes:
        stream.write(f"{indent}  note: {note}\n")


def _plan_point(point: TestPoint) -> str:
    text = point.label.split(": ", 1)[-1] if point.step else point.label
    if point.values:
        text += " values " + " ".join(f"{n}={list(v)}" for n, v in sorted(point.values.items()))
    return f"{text}  [{', '.join(point.reasons)}]" if point.reasons else text


def plan_json(plans: Sequence[ModelPlan]) -> list[dict[str, Any]]:
    return [_plan_json(plan) for plan in plans]


def _plan_json(plan: ModelPlan) -> dict[str, Any]:
    return {
        "model": plan.model,
        "path": plan.path,
        "runner": plan.runtime,
        "skip": plan.skip,
        "fail": plan.fail,
        "max_batch_size": plan.max_batch_size,
        "dims": {v.key: {"range": list(v.range), "source": v.source} for v in plan.variables},
        "points": [
            {
                "label": p.label,
                "batch_size": p.batch_size,
                "shapes": {n: list(s) for n, s in p.shapes.items()},
                "reasons": list(p.reasons),
            }
            for p in plan.points
        ],
        "notes": plan.notes,
        "batch_sizes_left_out": [list(gap) for gap in plan.left_out],
        "steps": [_plan_json(step) for step in plan.steps],
    }


__all__ = [
    "KIND",
    "SCHEMA_VERSION",
    "exit_status",
    "plan_json",
    "render_plan",
    "render_tables",
    "schema",
    "to_json",
]
