"""Probing many models: each in its own worker process, `--jobs` at a time for CPU runtimes
(GPU runtimes one at a time, so their timings do not share the device), with a Rich progress bar
on stderr when it is a terminal. Results come back in the plans' order.

A SIGTERM, SIGHUP or SIGINT stops probe: it is forwarded to every running worker's process group,
no worker starts after it, every worker is reaped, and probe exits 128 + the signal's number
(143 for SIGTERM) with one line on stderr, no traceback.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from tritoncfg.probe.contract import ProbeSettings
from tritoncfg.probe.isolate import probe_model
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.results import ModelResult
from tritoncfg.probe.runners import runs_on_gpu
from tritoncfg.processes.supervise import Terminated, stop_on_signals


def uses_gpu(plan: ModelPlan) -> bool:
    plans = plan.steps or [plan]
    return any(runs_on_gpu(p.runtime, p.config) for p in plans)


def probe_all(
    plans: Sequence[ModelPlan],
    settings: ProbeSettings,
    *,
    jobs: int = 1,
    timeout: float | None = None,
    progress: bool | None = None,
) -> list[ModelResult]:
    """Every plan's result; stopped by a signal, SystemExit (128 + the signal's number) once the
    workers are reaped."""
    try:
        with stop_on_signals():
            return _probe_all(plans, settings, jobs, timeout, progress)
    except KeyboardInterrupt as stop:  # Terminated too
        signum = stop.signum if isinstance(stop, Terminated) else signal.SIGINT
        name = signal.Signals(signum).name
        sys.stderr.write(f"tritoncfg: probe stopped by {name}; its workers were stopped\n")
        raise SystemExit(128 + signum) from None


def _probe_all(
    plans: Sequence[ModelPlan],
    settings: ProbeSettings,
    jobs: int,
    timeout: float | None,
    progress: bool | None,
) -> list[ModelResult]:
    show = sys.stderr.isatty() if progress is None else progress
    gpu_lock = threading.Lock()

    def one(plan: ModelPlan) -> ModelResult:
        if uses_gpu(plan):
            with gpu_lock:
                return probe_model(plan, settings, timeout)
        return probe_model(plan, settings, timeout)

    if not show:
        return _run(plans, one, jobs, lambda _: None)
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("probing", total=len(plans))
        return _run(plans, one, jobs, lambda name: bar.update(task, advance=1, description=name))


def _run(
    plans: Sequence[ModelPlan],
    one: Callable[[ModelPlan], ModelResult],
    jobs: int,
    done: Callable[[str], None],
) -> list[ModelResult]:
    def tracked(plan: ModelPlan) -> ModelResult:
        result = one(plan)
        done(plan.model)
        return result

    if jobs <= 1:
        return [tracked(plan) for plan in plans]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(tracked, plans))


__all__ = ["probe_all", "uses_gpu"]
