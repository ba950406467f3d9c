"""`tritoncfg tune MODEL --slo-p99-ms X (--rate R | --max-throughput)`: the dynamic batching and
instance settings that meet a p99 latency objective, found by simulation (docs/tune.md).

Prints the ranked table and why the first beats the second, then the winner's change to the
config as a diff, or writes it with `--write` (as `gen` does: lint first, comments kept, atomic).
Exit status: 0 done, 1 no configuration meets the objective (or lint refuses the result),
2 usage error or unreadable input.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from tritoncfg.cli.common import EXIT_FINDINGS, fail
from tritoncfg.cli.simulate import (
    Format,
    FromPerf,
    Gpus,
    Model,
    Overhead,
    Seed,
    ServiceMs,
    model_config,
    service_curve,
)
from tritoncfg.options.choices import TextOrJson

if TYPE_CHECKING:
    from tritoncfg.gen.change import Change
    from tritoncfg.gen.target import Target
    from tritoncfg.lintoptions import LintSetup
    from tritoncfg.tune.batcher import BatcherConfig
    from tritoncfg.tune.search import Objective, Space, Trial


def tune_command(
    model: Model,
    slo_p99_ms: Annotated[
        float, typer.Option("--slo-p99-ms", min=0.0, help="The p99 latency objective, in ms.")
    ],
    rate: Annotated[
        float | None,
        typer.Option(min=0.0, help="Requests per second to serve within the objective."),
    ] = None,
    max_throughput: Annotated[
        bool,
        typer.Option("--max-throughput", help="Find the most requests/s within the objective."),
    ] = False,
    service_ms: ServiceMs = None,
    from_perf: FromPerf = None,
    overhead_ms: Overhead = 0.0,
    largest_batch: Annotated[
        int | None,
        typer.Option(min=1, help="Largest max_batch_size to try (default: the config's)."),
    ] = None,
    max_instances: Annotated[
        int | None,
        typer.Option(
            min=1, help="Most instances to try (default: 4 with --rate, else the config's)."
        ),
    ] = None,
    keep_max_batch_size: Annotated[
        bool,
        typer.Option(
            "--keep-max-batch-size",
            help="Keep max_batch_size as written (what probe --suggest and gen search).",
        ),
    ] = False,
    gpus: Gpus = 1,
    gpu_memory: Annotated[
        str | None,
        typer.Option(
            help="Memory of one GPU, e.g. '80GiB': try only instance counts whose weights fit."
        ),
    ] = None,
    requests: Annotated[
        int, typer.Option(min=100, max=1_000_000, help="Requests per simulation.")
    ] = 10_000,
    seed: Seed = 0,
    top: Annotated[int, typer.Option(min=1, help="Rows of the ranked table.")] = 10,
    output_format: Format = TextOrJson.text,
    write: Annotated[
        bool,
        typer.Option("--write", help="Write the winner into the config (atomic; comments kept)."),
    ] = False,
) -> None:
    """Search batching and instance settings by simulation for a p99 latency objective."""
    from tritoncfg.tune.batcher import instance_unit
    from tritoncfg.tune.search import (
        MOST_INSTANCE_COUNTS,
        Objective,
        instance_counts,
        search,
        space_for,
        why_first,
    )

    if (rate is None) == (not max_throughput):
        fail("give the objective's load: --rate or --max-throughput (one of them)")
    if rate is not None and rate <= 0:
        fail("--rate must be above 0")
    if slo_p99_ms <= 0:
        fail("--slo-p99-ms must be above 0")
    target, base = model_config(model, gpus)
    curve = service_curve(service_ms, from_perf, target.name)
    setup = _setup(target, gpu_memory)
    unit = instance_unit(target.parsed.message, gpus)
    space = space_for(base, unit, rate, largest_batch, max_instances, keep_max_batch_size)
    counts = instance_counts(space)
    if len(counts) > MOST_INSTANCE_COUNTS:  # each a round of simulations: it would not end
        most = counts[MOST_INSTANCE_COUNTS - 1]
        fail(
            f"tune would try {len(counts):,} instance counts ({counts.start} to {counts[-1]:,}"
            f" in steps of {counts.step}), more than {MOST_INSTANCE_COUNTS}: give"
            f" --max-instances {most} or fewer"
        )
    if unit is not None and setup.options.gpu_memory is not None:  # or the project's setting
        space = _fitting(target, base, gpus, space, setup)
    goal = Objective(slo_p99_ms, rate, requests, overhead_ms, seed)
    trials = search(base, curve, space, goal)
    why = why_first(trials, goal)
    if output_format is TextOrJson.json:
        shown = {
            "model": target.name,
            "objective": {"slo_p99_ms": slo_p99_ms, "rate": rate},
            "why": why,
            "trials": [_trial_dict(t) for t in trials[:top]],
        }
        sys.stdout.write(json.dumps(shown, indent=2) + "\n")
    else:
        sys.stdout.write("\n".join([*_table(trials[:top], goal), f"winner: {why}"]) + "\n")
    if not trials[0].meets:
        fail_status(f"{why}; nothing written" if write else why)
    if write or output_format is TextOrJson.text:
        _apply(target, trials[0], gpus, write, setup)


def _setup(target: Target, gpu_memory: str | None) -> LintSetup:
    """What `tritoncfg lint` applies to the model, `--gpu-memory` winning (a bad value: exit 2)."""
    from tritoncfg.gen.change import GenError, project_setup
    from tritoncfg.lintoptions import LintOverrides

    try:
        return project_setup(target.config_path, LintOverrides(gpu_memory=gpu_memory))
    except GenError as exc:
        fail(str(exc))


def _fitting(
    target: Target, base: BatcherConfig, gpus: int, space: Space, setup: LintSetup
) -> Space:
    """`space` with only the instance counts whose weights fit in the GPU's memory."""
    from tritoncfg.gen.tuned import most_that_fit
    from tritoncfg.record import replace
    from tritoncfg.tune.search import instance_counts

    most = most_that_fit(target, base, gpus, instance_counts(space), setup)
    if most is None:
        fail_status(
            f"the weights of {space.instance_step} instance(s) do not fit in the GPU's memory"
            " (TC914)"
        )
    return replace(space, most_instances=most)


def fail_status(message: str) -> NoReturn:
    sys.stderr.write(f"tritoncfg: error: {message}\n")
    raise typer.Exit(EXIT_FINDINGS)


def _apply(target: Target, winner: Trial, gpus: int, write: bool, setup: LintSetup) -> None:
    """The winner's change: shown as a diff, or written, after the lint `gen` runs."""
    from tritoncfg.cli.gen_result import finish_change
    from tritoncfg.gen.instance_group import refused_findings
    from tritoncfg.gen.tuned import tuned_change

    def make(notes: list[str]) -> Change:
        return tuned_change(target, winner.config, gpus, notes)

    finish_change(make, write, setup, refuse_codes=refused_findings())


def _table(trials: list[Trial], goal: Objective) -> list[str]:
    load = f"{goal.rate:,g} requests/s" if goal.rate is not None else "the highest rate"
    lines = [
        f"objective: p99 <= {goal.slo_p99_ms:g} ms at {load} ({goal.requests:,} requests each)",
        f"{'#':>3} {'max_batch':>9} {'preferred':<12} {'delay_us':>8} {'inst':>4} "
        f"{'infer/s':>10} {'p99_ms':>8} {'mean_batch':>10}  meets",
    ]
    for index, trial in enumerate(trials, start=1):
        config, summary = trial.config, trial.summary
        preferred = ",".join(map(str, sorted(config.preferred_sizes))) if config.dynamic else "-"
        delay = str(config.delay_us) if config.dynamic else "-"
        meets = ("yes" if trial.meets else "no") + (" (as written)" if trial.written else "")
        lines.append(
            f"{index:>3} {config.max_batch_size:>9} {preferred:<12} {delay:>8} "
            f"{config.instances:>4} {summary.throughput:>10,.1f} "
            f"{summary.latency.p99_ms:>8.3f} {summary.mean_batch:>10.2f}  {meets}"
        )
    return lines


def _trial_dict(trial: Trial) -> dict[str, object]:
    config = trial.config
    return {
        "max_batch_size": config.max_batch_size,
        "dynamic_batching": config.dynamic,
        "preferred_batch_size": sorted(config.preferred_sizes) if config.dynamic else [],
        "max_queue_delay_microseconds": config.delay_us,
        "instances": config.instances,
        "rate": round(trial.rate, 3),
        "meets": trial.meets,
        "as_written": trial.written,
        **trial.summary.as_dict(),
    }
