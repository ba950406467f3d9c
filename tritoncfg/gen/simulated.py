"""`gen dynamic-batching --from-perf`: the sizes and queue delay it sets (`from_measurements`), and
with `--latency-budget-ms` the preferred sizes and queue delay
`tritoncfg tune`'s search picks on the measured curve (tritoncfg/tune/advice.py, the pick `probe
--suggest` makes too), at `--rate` or at the highest load within the budget.

This command writes only `dynamic_batching`: when the pick needs another instance count, the
notes say so and how to write it.
"""

from __future__ import annotations

from tritoncfg.gen.change import GenError
from tritoncfg.gen.perf import Choice, Point, choose, measured_notes, read_perf, usable_points
from tritoncfg.gen.target import Target


def simulated_choice(
    points: list[Point], target: Target, budget_ms: float, rate: float | None
) -> Choice:
    """The pick of the simulation for the model as written; GenError when no configuration tried
    meets the budget (or the model's scheduler is one the simulator does not model)."""
    from tritoncfg.tune.advice import advise
    from tritoncfg.tune.batcher import SimulationInputError, from_model_config, instance_unit

    message = target.parsed.message
    usable_points(points, message.max_batch_size)
    try:
        base = from_model_config(message)
        unit = instance_unit(message, 1)
        advice = advise(points, base, budget_ms, rate, unit)
    except SimulationInputError as exc:
        raise GenError(f"{target.config_path}: {exc}") from None
    if not advice.meets:
        raise GenError(
            f"{advice.why[0]}; nothing written (a larger --latency-budget-ms"
            + (", a lower --rate" if rate is not None else "")
            + ", or `tritoncfg tune` with more instances)"
        )
    notes = [*measured_notes(points), *advice.why]
    if advice.config.instances != base.instances:
        count = advice.config.instances // (unit or 1)
        notes.append(
            f"it needs {advice.config.instances} instances where the config has "
            f"{base.instances}: set the count with `tritoncfg gen instance-group --count "
            f"{count}` (or write it all with `tritoncfg tune --keep-max-batch-size --write`)"
        )
    return Choice(advice.preferred, advice.config.delay_us, tuple(notes))


__all__ = ["simulated_choice"]


def from_measurements(
    specs: list[str],
    target: Target,
    budget_ms: float | None,
    notes: list[str],
    rate: float | None = None,
) -> tuple[tuple[int, ...], int | None]:
    """The preferred sizes (`()`: none, Triton's `[max_batch_size]`) and queue delay (None:
    leave it) that `--from-perf` sets, with the notes that explain them: with a latency budget,
    the pick of `tune`'s search (`simulated_choice`), else the rule of batch_rule.py."""
    read: list[str] = []
    points = [p for spec in specs for p in read_perf(spec, target.name, read)]
    max_batch_size = target.parsed.message.max_batch_size
    if budget_ms is None:
        choice = choose(points, max_batch_size)
    else:
        choice = simulated_choice(points, target, budget_ms, rate)
    notes.extend(read)
    notes.extend(choice.notes)
    if choice.preferred == (max_batch_size,):
        notes.append(
            "that is max_batch_size, which Triton already prefers: no preferred_batch_size written"
        )
        return (), choice.delay_us
    return choice.preferred, choice.delay_us
