"""`tritoncfg gen ...`: write `dynamic_batching`, `instance_group`, ensembles and warmup samples.

Each generator prints its change as a unified diff (stdout) and how it chose the values (stderr);
`--write` applies it atomically after `lint` has found no error in the result.
Exit status: 0 done (or nothing to change), 1 refused (Triton would refuse it, or lint finds an
error in the result), 2 usage error or unreadable input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from tritoncfg.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from tritoncfg.cli.help import PlainHelpCommand

if TYPE_CHECKING:
    from tritoncfg.diagnostics import Diagnostic
    from tritoncfg.gen.change import Change
    from tritoncfg.gen.target import Target
    from tritoncfg.lintoptions import LintOverrides, LintSetup


app = typer.Typer(
    name="gen",
    help="Generate dynamic_batching, instance_group, ensemble and warmup config (diff; --write).",
    no_args_is_help=True,
)

Model = Annotated[Path, typer.Argument(help="The model directory (or its config file).")]
Write = Annotated[
    bool,
    typer.Option("--write", help="Apply the change (atomic; comments kept) instead of showing it."),
]


def _ints(text: str | None, option: str) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        _refuse(f"{option} expects comma-separated integers, got {text!r}", EXIT_USAGE)


def _refuse(message: str, status: int = EXIT_FINDINGS) -> NoReturn:
    sys.stderr.write(f"tritoncfg: error: {message}\n")
    raise typer.Exit(status)


def _refuse_error(exc: Exception) -> NoReturn:
    """A generator's refusal: exit 2 for a usage error (GenUsageError), else 1."""
    from tritoncfg.gen.change import GenUsageError

    _refuse(str(exc), EXIT_USAGE if isinstance(exc, GenUsageError) else EXIT_FINDINGS)


def _finish(
    make: Callable[[list[str]], Change],
    write: bool,
    setup: LintSetup,
    *,
    refuse: frozenset[str] = frozenset(),
    check: Callable[[Change, str], list[Diagnostic]] | None = None,
) -> None:
    """Run a generator, lint its result as `tritoncfg lint` would (the project's settings in
    `setup`), then print the diff or write it."""
    from tritoncfg.gen.change import (
        GenError,
        blocking_findings,
        describe,
        shown_path,
        write_change,
    )

    def lint_text(change: Change, text: str) -> list[Diagnostic]:
        if check is not None:
            return check(change, text)
        return blocking_findings(change.path.parent, change.path, text, setup, refuse=refuse)

    notes: list[str] = []
    try:
        change = make(notes)
    except GenError as exc:
        _refuse_error(exc)
    for note in notes:
        sys.stderr.write(f"note: {note}\n")
    found = lint_text(change, change.after)
    from tritoncfg.checks.warmup_and_runtime.warmup import warmup_data_file_missing

    # the files a generator writes with the config are not there yet
    missing_file = warmup_data_file_missing.code
    findings = [
        f
        for f in found
        if not (f.code == missing_file and any(str(p) in f.message for p in change.extra_files))
    ]
    if findings:
        sys.stderr.write(describe(findings) + "\n")
        already = change.before and lint_text(change, change.before)
        why = (
            "the model has errors already (see `tritoncfg lint`); fix them first"
            if already
            else "the generated config would not load"
        )
        _refuse(f"{shown_path(change.path)}: {why}; nothing written")
    if not change.changed:
        sys.stderr.write(f"{shown_path(change.path)}: already as generated; nothing to change\n")
        raise typer.Exit(EXIT_OK)
    if not write:
        sys.stdout.write(change.diff())
        for path, data in change.extra_files.items():
            sys.stdout.write(f"# with --write: {shown_path(path)} ({len(data)} bytes)\n")
        holding = {path.parent for path in change.extra_files}
        for directory in change.make_dirs:
            if not directory.is_dir() and directory not in holding:
                sys.stdout.write(
                    f"# with --write: {shown_path(directory)}/ (empty version directory)\n"
                )
        raise typer.Exit(EXIT_OK)
    try:
        write_change(change)
    except OSError as exc:
        _refuse(f"{shown_path(change.path)}: cannot write: {exc.strerror or exc}", EXIT_USAGE)
    sys.stderr.write(f"wrote {shown_path(change.path)}\n")
    raise typer.Exit(EXIT_OK)


def _target(model: Path, overrides: LintOverrides | None = None) -> tuple[Target, LintSetup]:
    """The model, and what `tritoncfg lint MODEL` would apply to it (the project's settings)."""
    from tritoncfg.gen.change import GenError, project_setup
    from tritoncfg.gen.target import load_target

    try:
        setup = project_setup(model, overrides)
        return load_target(model, setup.options.config_name), setup
    except GenError as exc:
        _refuse_error(exc)


@app.command("dynamic-batching", cls=PlainHelpCommand)
def dynamic_batching_command(
    model: Model,
    preferred: Annotated[
        str | None,
        typer.Option(
            help="Preferred batch sizes, e.g. '4,8' (each <= max_batch_size; '' removes them)."
        ),
    ] = None,
    max_queue_delay_us: Annotated[
        int | None,
        typer.Option(
            "--max-queue-delay-us",
            min=0,
            help="max_queue_delay_microseconds (default 0: never wait).",
        ),
    ] = None,
    priority_levels: Annotated[
        int | None, typer.Option(min=0, help="Number of priority levels (1 is the highest).")
    ] = None,
    default_priority_level: Annotated[
        int | None,
        typer.Option(min=1, help="Level of requests without a priority (default: the lowest)."),
    ] = None,
    preserve_ordering: Annotated[
        bool | None,
        typer.Option(
            "--preserve-ordering/--no-preserve-ordering",
            help="Return responses in request order.",
        ),
    ] = None,
    timeout_action: Annotated[
        str | None,
        typer.Option(help="default_queue_policy.timeout_action: REJECT or DELAY."),
    ] = None,
    default_timeout_us: Annotated[
        int | None,
        typer.Option(
            "--default-timeout-us", min=0, help="default_queue_policy.default_timeout_microseconds."
        ),
    ] = None,
    allow_timeout_override: Annotated[
        bool | None,
        typer.Option(
            "--allow-timeout-override/--no-allow-timeout-override",
            help="default_queue_policy.allow_timeout_override (a request may ask for a shorter timeout).",
        ),
    ] = None,
    max_queue_size: Annotated[
        int | None, typer.Option(min=0, help="default_queue_policy.max_queue_size (0: unbounded).")
    ] = None,
    from_perf: Annotated[
        list[str] | None,
        typer.Option(
            help="A perf_analyzer -f CSV (with a 'Batch' column, or B=FILE per -b; repeatable) "
            "or a `tritoncfg probe --format json` report: choose the preferred size from it."
        ),
    ] = None,
    latency_budget_ms: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            help="With --from-perf: the p99 budget; the sizes and delay are tune's pick for it.",
        ),
    ] = None,
    rate: Annotated[
        float | None,
        typer.Option(
            min=0.0, help="With --latency-budget-ms: requests/s to serve (default: the most)."
        ),
    ] = None,
    write: Write = False,
) -> None:
    """Write the model's dynamic_batching block: the options given, on top of the block there."""
    from tritoncfg.gen import dynamic_batching as gen

    if timeout_action is not None and timeout_action.upper() not in ("REJECT", "DELAY"):
        _refuse(f"--timeout-action expects REJECT or DELAY, got {timeout_action!r}", EXIT_USAGE)
    if from_perf and (preferred or max_queue_delay_us is not None):
        _refuse(
            "--from-perf chooses --preferred and --max-queue-delay-us; give one or the other",
            EXIT_USAGE,
        )
    if latency_budget_ms is not None and not from_perf:
        _refuse("--latency-budget-ms needs --from-perf", EXIT_USAGE)
    if rate is not None and (latency_budget_ms is None or rate <= 0):
        _refuse("--rate needs --latency-budget-ms, and must be above 0", EXIT_USAGE)
    target, setup = _target(model)
    policy = gen.QueuePolicy(
        timeout_action.upper() if timeout_action else None,
        default_timeout_us,
        allow_timeout_override,
        max_queue_size,
    )

    def make(notes: list[str]) -> Change:
        sizes = None if preferred is None else _ints(preferred, "--preferred")
        delay = max_queue_delay_us
        if from_perf:
            from tritoncfg.gen.perf import from_measurements

            sizes, delay = from_measurements(from_perf, target, latency_budget_ms, notes, rate)
        request = gen.BatchingRequest(
            sizes, delay, priority_levels, default_priority_level, preserve_ordering, policy
        )
        return gen.generate(target, request, notes)

    _finish(make, write, setup)


@app.command("instance-group", cls=PlainHelpCommand)
def instance_group_command(
    model: Model,
    kind: Annotated[str, typer.Option(help="gpu, cpu, model or auto.")] = "gpu",
    count: Annotated[
        int, typer.Option(help="Instances per GPU (gpu), or in all (cpu, model).")
    ] = 1,
    gpus: Annotated[
        str | None, typer.Option(help="GPU ids, e.g. '0,1' (default: every GPU of the host).")
    ] = None,
    per_gpu: Annotated[
        bool,
        typer.Option("--per-gpu", help="One group per listed GPU instead of one spanning them."),
    ] = False,
    profile: Annotated[
        list[str] | None, typer.Option(help="TensorRT optimization profile index (repeatable).")
    ] = None,
    secondary_devices: Annotated[
        str | None, typer.Option(help="NVDLA core ids for each instance, e.g. '0' (TensorRT).")
    ] = None,
    resource: Annotated[
        list[str] | None,
        typer.Option(help="Rate-limiter resource NAME:COUNT or NAME:COUNT:global (repeatable)."),
    ] = None,
    priority: Annotated[
        int | None,
        typer.Option(min=1, help="Rate-limiter priority (2 gets half the chances of 1)."),
    ] = None,
    gpu_memory: Annotated[
        str | None,
        typer.Option(
            help="Memory of one GPU, e.g. '80GiB': refuse a count whose weights do not fit."
        ),
    ] = None,
    write: Write = False,
) -> None:
    """Write the model's instance_group list (replacing the one there)."""
    from tritoncfg.checks.practice.gpu_memory import gpu_weights_exceed_memory
    from tritoncfg.gen import instance_group as gen
    from tritoncfg.gen.change import GenError
    from tritoncfg.lintoptions import LintOverrides

    if kind not in gen.KINDS:
        _refuse(f"--kind expects gpu, cpu, model or auto, got {kind!r}", EXIT_USAGE)
    try:
        resources = tuple(gen.parse_resource(r) for r in resource or ())
    except GenError as exc:
        _refuse_error(exc)
    request = gen.GroupRequest(
        kind,
        count,
        _ints(gpus, "--gpus"),
        per_gpu,
        tuple(profile or ()),
        _ints(secondary_devices, "--secondary-devices"),
        resources,
        priority,
    )
    # --gpu-memory wins over the settings' gpu-memory, as for lint (a bad value: exit 2)
    target, setup = _target(model, LintOverrides(gpu_memory=gpu_memory))
    _finish(
        lambda notes: gen.generate(target, request, notes),
        write,
        setup,
        refuse=frozenset({gpu_weights_exceed_memory.code}),
    )


@app.command("warmup", cls=PlainHelpCommand)
def warmup_command(
    model: Model,
    data: Annotated[str, typer.Option(help="zero or random: the data of every sample.")] = "zero",
    data_dir: Annotated[
        bool,
        typer.Option(
            "--data-dir",
            help="Write the data as raw files into the model's warmup/ and use input_data_file.",
        ),
    ] = False,
    dim: Annotated[
        list[str] | None,
        typer.Option(help="NAME=SIZE: the size of an input's (or a state's) -1 dims (repeatable)."),
    ] = None,
    count: Annotated[int, typer.Option(min=1, help="Executions of each sample.")] = 1,
    write: Write = False,
) -> None:
    """Write the model's model_warmup samples: batch 1, each preferred size, max_batch_size."""
    from tritoncfg.gen import warmup as gen

    if data not in ("zero", "random"):
        _refuse(f"--data expects zero or random, got {data!r}", EXIT_USAGE)
    dims: dict[str, int] = {}
    for item in dim or ():
        name, _, size = item.rpartition("=")
        if not name or not size.isdigit() or int(size) < 1:
            _refuse(f"--dim expects NAME=SIZE with SIZE >= 1, got {item!r}", EXIT_USAGE)
        dims[name] = int(size)
    request = gen.WarmupRequest(data, data_dir, dims, count)
    target, setup = _target(model)
    _finish(lambda notes: gen.generate(target, request, notes), write, setup)


@app.command("ensemble", cls=PlainHelpCommand)
def ensemble_command(
    name: Annotated[str, typer.Argument(help="The ensemble's name (its directory).")],
    step: Annotated[
        list[str], typer.Option(help="A step model of the repository, in order (repeatable).")
    ],
    map_: Annotated[
        list[str] | None,
        typer.Option("--map", help="STEP.INPUT=TENSOR: wire a step input by hand (repeatable)."),
    ] = None,
    repository: Annotated[
        Path,
        typer.Option(
            help="The model repository holding the steps, or a project folder whose settings "
            "name it (`repository = ...`, as `tritoncfg new` writes)."
        ),
    ] = Path(),
    write: Write = False,
) -> None:
    """Write an ensemble model directory (config.pbtxt and a version directory 1/ holding a
    .gitkeep, so that git keeps it)."""
    from tritoncfg.gen import ensemble as gen
    from tritoncfg.gen.change import GenError, project_setup
    from tritoncfg.settings import project_repository

    if not repository.is_dir():
        _refuse(f"{repository}: not a directory", EXIT_USAGE)
    models = project_repository(repository)
    try:
        setup = project_setup(models)
    except GenError as exc:
        _refuse_error(exc)
    config_name = setup.options.config_name
    _finish(
        lambda notes: gen.generate(models, name, step, map_ or [], notes, config_name),
        write,
        setup,
        check=lambda change, text: gen.planned_findings(change, text, setup),
    )
