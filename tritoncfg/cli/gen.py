"""`tritoncfg gen ...`: write `dynamic_batching`, `instance_group`, ensembles and warmup samples.

Each generator prints its change as a unified diff (stdout) and how it chose the values (stderr);
`--write` applies it atomically after `lint` has found no error in the result.
Exit status: 0 done (or nothing to change), 1 refused (Triton would refuse it, or lint finds an
error in the result), 2 usage error or unreadable input.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from tritoncfg.cli.common import EXIT_USAGE
from tritoncfg.cli.gen_result import (
    ConfigFile,
    Isolated,
    ModelFilesOption,
    finish_change,
    refuse,
    refuse_error,
    settings_setup,
)
from tritoncfg.cli.help import PlainHelpCommand

if TYPE_CHECKING:
    from tritoncfg.gen.change import Change
    from tritoncfg.gen.target import Target
    from tritoncfg.lintoptions import LintOverrides, LintSetup


_T = TypeVar("_T")

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
        refuse(f"{option} expects comma-separated integers, got {text!r}", EXIT_USAGE)


def _target(
    model: Path, overrides: LintOverrides, config: list[str] | None, isolated: bool
) -> tuple[Target, LintSetup]:
    """The model, and what `tritoncfg lint MODEL` would apply to it (the project's settings, or
    `--config`'s, or none with `--isolated`; the options given over them)."""
    from tritoncfg.gen.change import GenError
    from tritoncfg.gen.target import load_target

    setup = settings_setup(model, overrides, config, isolated)
    try:
        return load_target(model, setup.options.config_name), setup
    except GenError as exc:
        refuse_error(exc)


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
    config: ConfigFile = None,
    isolated: Isolated = False,
    model_files: ModelFilesOption = None,
) -> None:
    """Write the model's dynamic_batching block: the options given, on top of the block there."""
    from tritoncfg.gen import dynamic_batching as gen
    from tritoncfg.lintoptions import LintOverrides

    if timeout_action is not None and timeout_action.upper() not in ("REJECT", "DELAY"):
        refuse(f"--timeout-action expects REJECT or DELAY, got {timeout_action!r}", EXIT_USAGE)
    if from_perf and (preferred or max_queue_delay_us is not None):
        refuse(
            "--from-perf chooses --preferred and --max-queue-delay-us; give one or the other",
            EXIT_USAGE,
        )
    if latency_budget_ms is not None and not from_perf:
        refuse("--latency-budget-ms needs --from-perf", EXIT_USAGE)
    if rate is not None and (latency_budget_ms is None or rate <= 0):
        refuse("--rate needs --latency-budget-ms, and must be above 0", EXIT_USAGE)
    target, setup = _target(model, LintOverrides(model_files=model_files), config, isolated)
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
            from tritoncfg.gen.simulated import from_measurements

            sizes, delay = from_measurements(from_perf, target, latency_budget_ms, notes, rate)
        request = gen.BatchingRequest(
            sizes, delay, priority_levels, default_priority_level, preserve_ordering, policy
        )
        return gen.generate(target, request, notes)

    finish_change(make, write, setup)


@app.command("instance-group", cls=PlainHelpCommand)
def instance_group_command(
    model: Model,
    kind: Annotated[
        str | None, typer.Option(help="gpu, cpu, model or auto (a new group: gpu).")
    ] = None,
    count: Annotated[
        int | None,
        typer.Option(help="Instances per GPU (gpu), or in all (cpu, model) (a new group: 1)."),
    ] = None,
    gpus: Annotated[
        str | None,
        typer.Option(help="GPU ids, e.g. '0,1' ('': none listed, every GPU of the host)."),
    ] = None,
    per_gpu: Annotated[
        bool,
        typer.Option("--per-gpu", help="One group per listed GPU instead of one spanning them."),
    ] = False,
    profile: Annotated[
        list[str] | None,
        typer.Option(help="TensorRT optimization profile index (repeatable; '' removes them)."),
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
    config: ConfigFile = None,
    isolated: Isolated = False,
    model_files: ModelFilesOption = None,
) -> None:
    """Write the model's instance_group list: the options given, on top of the groups there."""
    from tritoncfg.gen import instance_group as gen
    from tritoncfg.gen.change import GenError
    from tritoncfg.lintoptions import LintOverrides

    if kind is not None and kind not in gen.KINDS:
        refuse(f"--kind expects gpu, cpu, model or auto, got {kind!r}", EXIT_USAGE)
    try:
        resources = _given(resource, gen.parse_resource)
    except GenError as exc:
        refuse_error(exc)
    request = gen.GroupRequest(
        kind,
        count,
        None if gpus is None else _ints(gpus, "--gpus"),
        per_gpu,
        _given(profile, str),
        None if secondary_devices is None else _ints(secondary_devices, "--secondary-devices"),
        resources,
        priority,
    )
    # --gpu-memory wins over the settings' gpu-memory, as for lint (a bad value: exit 2)
    overrides = LintOverrides(gpu_memory=gpu_memory, model_files=model_files)
    target, setup = _target(model, overrides, config, isolated)
    finish_change(
        lambda notes: gen.generate(target, request, notes),
        write,
        setup,
        refuse_codes=gen.refused_findings(),
    )


def _given(values: list[str] | None, parse: Callable[[str], _T]) -> tuple[_T, ...] | None:
    """A repeatable option's values parsed; None when not given; `''` alone clears the field."""
    if values is None:
        return None
    return tuple(parse(value) for value in values if value)


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
    config: ConfigFile = None,
    isolated: Isolated = False,
    model_files: ModelFilesOption = None,
) -> None:
    """Write the model's model_warmup samples: batch 1, each preferred size, max_batch_size."""
    from tritoncfg.gen import warmup as gen
    from tritoncfg.lintoptions import LintOverrides

    if data not in ("zero", "random"):
        refuse(f"--data expects zero or random, got {data!r}", EXIT_USAGE)
    dims: dict[str, int] = {}
    for item in dim or ():
        name, _, size = item.rpartition("=")
        if not name or not size.isdigit() or int(size) < 1:
            refuse(f"--dim expects NAME=SIZE with SIZE >= 1, got {item!r}", EXIT_USAGE)
        dims[name] = int(size)
    request = gen.WarmupRequest(data, data_dir, dims, count)
    target, setup = _target(model, LintOverrides(model_files=model_files), config, isolated)
    finish_change(lambda notes: gen.generate(target, request, notes), write, setup)


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
    config: ConfigFile = None,
    isolated: Isolated = False,
    model_files: ModelFilesOption = None,
) -> None:
    """Write an ensemble model directory (config.pbtxt and a version directory 1/ holding a
    .gitkeep, so that git keeps it)."""
    from tritoncfg.gen import ensemble as gen
    from tritoncfg.lintoptions import LintOverrides
    from tritoncfg.settings import project_repository

    if not repository.is_dir():
        refuse(f"{repository}: not a directory", EXIT_USAGE)
    models = project_repository(repository)
    setup = settings_setup(models, LintOverrides(model_files=model_files), config, isolated)
    config_name = setup.options.config_name
    finish_change(
        lambda notes: gen.generate(models, name, step, map_ or [], notes, config_name),
        write,
        setup,
        check=lambda change, text: gen.planned_findings(change, text, setup),
    )
