"""`gen dynamic-batching --from-perf --latency-budget-ms`: the preferred sizes and queue delay
`tritoncfg tune`'s search picks on the measured curve (tritoncfg/tune/advice.py, the pick `probe
--suggest` makes too), at `--rate` or at the highest load within the budget.

This command writes only `dynamic_batching`: when the pick needs another instance count, the
notes say so and how to write it.
"""

from __future__ import annotations

from tritoncfg.gen.change import GenError
from tritoncfg.gen.perf import Choice, Point, measured_notes, usable_points
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
