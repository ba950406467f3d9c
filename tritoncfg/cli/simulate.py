"""`tritoncfg simulate MODEL`: what the config's dynamic batcher and instances do at a load.

The model's config as written (or with the overrides given), a service-time curve (measured:
`--from-perf`, or `--service-ms`), and the arrivals (`--rate`, or a `--trace` file) go through
the simulator (tritoncfg/tune, docs/tune.md). `tune` shares the inputs read here.
Exit status: 0 done, 2 usage error or unreadable input.
"""

from __future__ import annotations

import json
import random
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from tritoncfg.cli.common import fail
from tritoncfg.options.choices import TextOrJson

if TYPE_CHECKING:
    from tritoncfg.gen.target import Target
    from tritoncfg.tune.arrivals import Arrivals
    from tritoncfg.tune.batcher import BatcherConfig
    from tritoncfg.tune.service import ServiceCurve

MOST_REQUESTS = 10_000_000


class ArrivalKind(StrEnum):
    poisson = "poisson"
    constant = "constant"


Model = Annotated[Path, typer.Argument(help="The model directory (or its config file).")]
Rate = Annotated[float | None, typer.Option(min=0.0, help="Requests per second (or give --trace).")]
Arrival = Annotated[
    ArrivalKind, typer.Option("--arrivals", help="poisson (random gaps) or constant gaps.")
]
Trace = Annotated[
    Path | None,
    typer.Option(
        help="A trace file: one request per line, TIME_MS [BATCH [PRIORITY [TIMEOUT_US]]]."
    ),
]
Requests = Annotated[
    int, typer.Option(min=1, max=MOST_REQUESTS, help="How many requests --rate sends.")
]
ServiceMs = Annotated[
    str | None,
    typer.Option(
        "--service-ms", help="Service time per batch size, BATCH:MS pairs: '1:2.0,8:3.1,32:7.9'."
    ),
]
FromPerf = Annotated[
    list[str] | None,
    typer.Option(
        help="The service curve from a `tritoncfg probe --format json` report or perf_analyzer "
        "-f CSVs (with a 'Batch' column, or B=FILE per -b; repeatable)."
    ),
]
Overhead = Annotated[
    float,
    typer.Option(
        "--overhead-ms", min=0.0, help="Added to every latency: network, (de)serialization."
    ),
]


def _gpu_count(value: str | int) -> int:
    from tritoncfg.options.values import OptionError, parse_gpu_count

    try:
        return parse_gpu_count(value)
    except OptionError as exc:
        raise typer.BadParameter(str(exc).removeprefix("--gpus ")) from None  # Click names it


Gpus = Annotated[
    int,
    typer.Option(
        parser=_gpu_count,
        metavar="N|IDS",
        help="GPUs a KIND_GPU group without `gpus` runs its count on: a number, or GPU ids "
        "as lint takes them (`0,1`: two).",
    ),
]


Seed = Annotated[int, typer.Option(help="Seed of the arrivals and service-time draws.")]
Format = Annotated[TextOrJson, typer.Option("--format", "-f", help="text or json.")]


def simulate_command(
    model: Model,
    rate: Rate = None,
    arrivals_kind: Arrival = ArrivalKind.poisson,
    trace: Trace = None,
    requests: Requests = 100_000,
    service_ms: ServiceMs = None,
    from_perf: FromPerf = None,
    overhead_ms: Overhead = 0.0,
    preferred: Annotated[
        str | None,
        typer.Option(help="Preferred batch sizes instead of the config's, e.g. '4,8' ('': none)."),
    ] = None,
    max_queue_delay_us: Annotated[
        int | None,
        typer.Option("--max-queue-delay-us", min=0, help="max_queue_delay_microseconds instead."),
    ] = None,
    instances: Annotated[
        int | None, typer.Option(min=1, help="Instance count instead of the config's groups'.")
    ] = None,
    max_batch_size: Annotated[
        int | None, typer.Option(min=0, help="max_batch_size instead of the config's.")
    ] = None,
    gpus: Gpus = 1,
    seed: Seed = 0,
    output_format: Format = TextOrJson.text,
) -> None:
    """Simulate the model's dynamic batcher and instances at a request rate or a trace."""
    from tritoncfg.tune.batcher import SimulationInputError, check_rows, with_overrides
    from tritoncfg.tune.engine import simulate
    from tritoncfg.tune.summary import summarize, text_lines

    target, base = model_config(model, gpus)
    curve = service_curve(service_ms, from_perf, target.name)
    load = arrivals(rate, arrivals_kind, trace, requests, seed)
    try:
        config = with_overrides(
            base,
            preferred=None if preferred is None else sizes(preferred, "--preferred"),
            delay_us=max_queue_delay_us,
            instances=instances,
            max_batch_size=max_batch_size,
        )
        check_rows(config, load.sizes, str(trace or "--rate"))
    except SimulationInputError as exc:
        fail(str(exc))
    summary = summarize(simulate(config, curve, load, seed), overhead_ms)
    if output_format is TextOrJson.json:
        shown = {"model": target.name, "config": config.describe(), **summary.as_dict()}
        sys.stdout.write(json.dumps(shown, indent=2) + "\n")
        return
    title = f"{target.name}: {config.describe()}; {load_text(rate, arrivals_kind, trace)}"
    sys.stdout.write("\n".join(text_lines(summary, title)) + "\n")


def model_config(model: Path, gpus: int) -> tuple[Target, BatcherConfig]:
    """The model and its scheduler as written (exit 2 when it cannot be read)."""
    from tritoncfg.gen.change import GenError, project_setup
    from tritoncfg.gen.target import load_target
    from tritoncfg.tune.batcher import SimulationInputError, check, from_model_config

    try:
        target = load_target(model, project_setup(model).options.config_name)
        config = from_model_config(target.parsed.message, gpus)
        check(config)
    except (GenError, SimulationInputError) as exc:
        _refuse(exc)
    return target, config


def service_curve(service_ms: str | None, from_perf: list[str] | None, model: str) -> ServiceCurve:
    from tritoncfg.gen.change import GenError
    from tritoncfg.tune.batcher import SimulationInputError
    from tritoncfg.tune.service import from_measured, parse_service_ms

    if (service_ms is None) == (not from_perf):
        fail("give the service times: --service-ms or --from-perf (one of them)")
    try:
        if service_ms is not None:
            return parse_service_ms(service_ms)
        from tritoncfg.gen.perf import read_perf

        points = [p for spec in from_perf or () for p in read_perf(spec, model)]
        return from_measured(points, ", ".join(from_perf or ()))
    except (GenError, SimulationInputError) as exc:
        _refuse(exc)


def arrivals(
    rate: float | None, kind: ArrivalKind, trace: Path | None, count: int, seed: int
) -> Arrivals:
    from tritoncfg.tune.arrivals import constant, poisson, read_trace
    from tritoncfg.tune.batcher import SimulationInputError

    if (rate is None) == (trace is None):
        fail("give the load: --rate or --trace (one of them)")
    if trace is not None:
        try:
            return read_trace(trace)
        except SimulationInputError as exc:
            _refuse(exc)
    assert rate is not None
    if rate <= 0:
        fail("--rate must be above 0")
    if kind is ArrivalKind.constant:
        return constant(rate, count)
    return poisson(rate, count, random.Random(seed))


def load_text(rate: float | None, kind: ArrivalKind, trace: Path | None) -> str:
    return f"trace {trace}" if trace is not None else f"{kind.value} {rate:,g} requests/s"


def sizes(text: str, option: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        fail(f"{option} expects comma-separated integers, got {text!r}")


def _refuse(exc: Exception) -> NoReturn:
    fail(str(exc))
