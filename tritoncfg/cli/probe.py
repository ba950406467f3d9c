"""`tritoncfg probe PATH...`: run each model at every batch size and shape Triton can send it.

Everything heavy (numpy, onnxruntime, Rich, the runners) is imported inside the command, so
importing the CLI for `lint` stays light.
"""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tritoncfg.cli.common import Color, fail, repository_paths, use_color
from tritoncfg.runtimes import RUNTIMES

if TYPE_CHECKING:
    from tritoncfg.checks.core.selection import PathFilters
    from tritoncfg.probe.coverage import BatchCoverage
    from tritoncfg.probe.plan import ModelPlan, Range
    from tritoncfg.probe.results import ModelResult


class ProbeFormat(StrEnum):
    table = "table"
    json = "json"


# `--runtime`: auto, or a runtime of the one table (tritoncfg/runtimes.py)
Runtime = StrEnum(  # type: ignore[misc]
    "Runtime", [("auto", "auto"), *((r.name, r.name) for r in RUNTIMES)]
)
_RUNTIME_HELP = (
    "auto ("
    + ", ".join(f"{' '.join(r.suffixes)} on {r.title}" for r in RUNTIMES)
    + ") or one runtime: "
    + ", ".join(r.name for r in RUNTIMES)
    + "."
)


def probe_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help="A model repository, model directories or config files."),
    ],
    runtime: Annotated[
        Runtime,
        # the choices in the help: a long metavar breaks mid-word
        typer.Option(metavar="<runtime>", help=_RUNTIME_HELP),
    ] = Runtime.auto,  # type: ignore[attr-defined]
    dim: Annotated[
        list[str] | None,
        typer.Option(
            "--dim",
            help="Sizes for variable (-1) dims: NAME=min:opt:max or NAME=SIZE; NAME is an input "
            "(all its -1 dims), INPUT.AXIS (axis with the batch dim) or a symbolic dim of the "
            "model ('seq'). Repeatable.",
        ),
    ] = None,
    plan_only: Annotated[
        bool, typer.Option("--plan-only", help="Print the test points; run nothing.")
    ] = False,
    output_format: Annotated[
        ProbeFormat, typer.Option("--format", "-f", help="table (Rich) or json (the schema).")
    ] = ProbeFormat.table,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the JSON report to this file (atomically) as well."
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Real inputs: <dir>/<model>/<INPUT>.npy or <dir>/<INPUT>.npy."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generated inputs.")] = 0,
    batch_sizes: Annotated[
        str,
        typer.Option(
            help="all: every size the dynamic batcher can send (above max_batch_size 256: 1-64, "
            "powers of two with their neighbours, max_batch_size); declared: the sizes the "
            "config names; or sizes and ranges, e.g. 1-32,48,64.",
        ),
    ] = "all",
    warmup: Annotated[int, typer.Option(help="Warm-up runs per point.", min=1)] = 2,
    runs: Annotated[
        int, typer.Option(help="Timed runs in each measurement window, at least.", min=1)
    ] = 3,
    window_ms: Annotated[
        float, typer.Option(help="Length of a measurement window in ms, at least.", min=0)
    ] = 50.0,
    stability_percentage: Annotated[
        float,
        typer.Option(
            help="A point is stable when its last 3 windows' mean latencies agree within this "
            "percentage (max / min).",
            min=0,
        ),
    ] = 10.0,
    max_windows: Annotated[
        int, typer.Option(help="Windows per point at most; then the point is unstable.", min=3)
    ] = 10,
    atol: Annotated[
        float, typer.Option(help="Absolute tolerance of TensorRT against ONNX Runtime.", min=0)
    ] = 1e-5,
    rtol: Annotated[
        float, typer.Option(help="Relative tolerance of TensorRT against ONNX Runtime.", min=0)
    ] = 1e-5,
    precision: Annotated[
        list[str] | None,
        typer.Option(
            help="TensorRT builder precisions to ask for (fp32, tf32, fp16, bf16, int8, fp8). "
            "Repeatable."
        ),
    ] = None,
    save_plan: Annotated[
        bool,
        typer.Option(
            "--save-plan", help="TensorRT: write the engine built from model.onnx as model.plan."
        ),
    ] = False,
    gpu: Annotated[int, typer.Option(help="GPU index for GPU runtimes.", min=0)] = 0,
    jobs: Annotated[int, typer.Option(help="CPU models probed in parallel.", min=1)] = 1,
    timeout: Annotated[
        float | None, typer.Option(help="Seconds per model before its run is stopped.", min=0.1)
    ] = None,
    shard: Annotated[
        str | None,
        typer.Option(help="I/N: probe only the models whose index modulo N is I (0-based)."),
    ] = None,
    suggest: Annotated[
        bool, typer.Option("--suggest", help="Suggest dynamic batching from the measurements.")
    ] = False,
    latency_budget_ms: Annotated[
        float | None,
        typer.Option(help="--suggest: the p99 budget per request (simulated, as tune).", min=0),
    ] = None,
    target_rps: Annotated[
        float | None, typer.Option(help="--suggest: inferences/s the model must serve.", min=0)
    ] = None,
    color: Annotated[Color, typer.Option(help="Colour the table.")] = Color.auto,
) -> None:
    """Run each model at every batch size the dynamic batcher can send and every shape its
    config declares, in a child process per model, and report each point: OK, FAIL (with the
    runtime's message) or SKIP. A model lint finds errors in is a FAIL with lint's findings.

    Exit status: 0 every point OK or SKIP; 1 a point FAILed; 2 usage error;
    3 a runner cannot run here (no runtime installed, no GPU for TensorRT).
    """
    from tritoncfg.cli.file_selection import selected_models
    from tritoncfg.probe.contract import ProbeSettings
    from tritoncfg.probe.targets import plan_workspace
    from tritoncfg.workspace import load

    _check_outputs(output, suggest, latency_budget_ms, target_rps)
    given = repository_paths(paths)
    workspace = load(given)
    models = selected_models(workspace, _filters(given), given)  # exclude, .gitignore
    if shard is not None:
        index, count = _shard(shard)
        models = [m for i, m in enumerate(models) if i % count == index]
    workspace.models = models
    if not workspace.repositories or (not models and shard is None):
        fail(f"{paths[0]}: no model directory found")
    asked = _AskedDims(_dims(dim or []))
    plans = plan_workspace(workspace, asked, runtime.value, _coverage(batch_sizes))
    unused = [name for name in asked if name not in asked.read]
    if unused and not any(p.skip or p.fail for p in plans):  # (a skipped model reads none)
        fail(
            f"--dim {unused[0]}: no variable (-1) dim of the models probed goes by that name "
            "(an input, INPUT.AXIS with the batch dim counted, or a symbolic dim of the model)"
        )
    if plan_only:
        _print_plan(plans, output_format)
        raise typer.Exit(0)
    settings = ProbeSettings(
        dims=_dims(dim or []),
        data_dir=data_dir,
        warmup_runs=warmup,
        timed_runs=runs,
        window_ms=window_ms,
        stability_percentage=stability_percentage,
        max_windows=max_windows,
        atol=atol,
        rtol=rtol,
        precision=_precisions(precision or []),
        save_plan=save_plan,
        device=gpu,
        seed=seed,
        # --jobs sessions share the CPU cores instead of each taking all of them
        threads=max(1, (os.cpu_count() or 1) // jobs) if jobs > 1 else 0,
    )
    raise typer.Exit(
        _probe(
            plans,
            settings,
            jobs,
            timeout,
            output_format,
            output,
            color,
            (suggest, latency_budget_ms, target_rps),
        )
    )


def _check_outputs(
    output: Path | None, suggest: bool, budget: float | None, target: float | None
) -> None:
    """Usage errors found before anything runs: a probe can take minutes, and its report
    would be lost to an --output that names a folder, or a --suggest option without --suggest."""
    if output is not None and output.is_dir():
        fail(f"{output}: is a directory; --output names the JSON report's file")
    if not suggest and (budget is not None or target is not None):
        given = "--latency-budget-ms" if budget is not None else "--target-rps"
        fail(f"{given} is an option of --suggest: give --suggest too")


def _filters(given: list[Path]) -> PathFilters:
    """The project's path filters (its settings, as lint reads them)."""
    from tritoncfg.api import OptionError, SettingsError, project

    try:
        return project(given).setup.filters
    except (SettingsError, OptionError) as exc:
        fail(str(exc))


def _probe(
    plans: list[ModelPlan],
    settings: Any,
    jobs: int,
    timeout: float | None,
    output_format: ProbeFormat,
    output: Path | None,
    color: Color,
    suggesting: tuple[bool, float | None, float | None],
) -> int:
    from tritoncfg.probe.report import exit_status, render_tables, to_json
    from tritoncfg.probe.scheduler import probe_all

    results = probe_all(plans, settings, jobs=jobs, timeout=timeout)
    document = to_json(results)
    suggestions = _suggestions(plans, results, suggesting)
    if suggestions is not None:
        document["suggestions"] = suggestions[1]
    if output is not None:
        _write(output, document)
    if output_format is ProbeFormat.json:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        render_tables(results, sys.stdout, use_color(color, sys.stdout))
        if suggestions is not None:
            sys.stdout.write("\n" + suggestions[0])
    status = exit_status(results)
    for result in results:
        if result.unavailable:
            sys.stderr.write(f"tritoncfg: {result.model}: {result.reason}\n")
    return status


def _suggestions(
    plans: list[ModelPlan],
    results: list[ModelResult],
    suggesting: tuple[bool, float | None, float | None],
) -> tuple[str, list[dict[str, Any]]] | None:
    wanted, budget, target = suggesting
    if not wanted:
        return None
    from tritoncfg.probe.advise import advise

    found = [a for p, r in zip(plans, results, strict=True) if (a := advise(p, r, budget, target))]
    text = "".join(t for t, _ in found)
    return text or "# no model has batching points to suggest from\n", [e for _, e in found]


def _write(path: Path, document: dict[str, Any]) -> None:
    from tritoncfg.atomic import write_atomic

    try:
        write_atomic(path, json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        fail(f"{path}: cannot write: {exc.strerror or exc}")


def _print_plan(plans: list[ModelPlan], output_format: ProbeFormat) -> None:
    from tritoncfg.probe.report import plan_json, render_plan

    if output_format is ProbeFormat.json:
        sys.stdout.write(json.dumps(plan_json(plans), indent=2) + "\n")
    else:
        render_plan(plans, sys.stdout)


class _AskedDims(dict[str, "Range"]):
    """The `--dim` ranges, remembering which the plan read: a name no model has is a typo."""

    def __init__(self, ranges: dict[str, Range]) -> None:
        super().__init__(ranges)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Range:
        self.read.add(key)
        return super().__getitem__(key)


def _dims(texts: list[str]) -> dict[str, Range]:
    from tritoncfg.probe.plan import parse_dim

    found = {}
    for text in texts:
        try:
            name, sizes = parse_dim(text)
        except ValueError as exc:
            fail(str(exc))
        found[name] = sizes
    return found


def _coverage(text: str) -> BatchCoverage:
    from tritoncfg.probe.coverage import parse_batch_sizes

    try:
        return parse_batch_sizes(text)
    except ValueError as exc:
        fail(str(exc))


def _precisions(texts: list[str]) -> tuple[str, ...]:
    from tritoncfg.probe.tensorrt.adapter import PRECISION_FLAGS

    chosen = tuple(t.strip().lower() for t in texts)
    for name in chosen:
        if name not in PRECISION_FLAGS:
            fail(f"--precision {name!r}: expected one of {', '.join(PRECISION_FLAGS)}")
    return chosen


def _shard(text: str) -> tuple[int, int]:
    index, sep, count = text.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
        fail(f"--shard {text!r}: expected I/N with 0 <= I < N (e.g. 0/4)")
    return int(index), int(count)
