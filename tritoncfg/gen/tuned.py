"""`tune --write`: the settings `tritoncfg tune` chose (tritoncfg/tune/search.py), written into the
config through the generators' edit path: max_batch_size, the `dynamic_batching` block (its other
fields kept) and the instance count of the one instance group; and, with a GPU's memory given,
the most instances whose weights fit in it (lint's TC914).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritoncfg.gen.change import Change, GenError, lint_findings
from tritoncfg.gen.dynamic_batching import BatchingRequest, build
from tritoncfg.gen.field_update import set_fields
from tritoncfg.gen.target import Target
from tritoncfg.record import replace
from tritoncfg.schema import ModelConfig
from tritoncfg.tune.batcher import BatcherConfig, from_model_config, instance_unit

if TYPE_CHECKING:
    from tritoncfg.lintoptions import LintSetup


def tuned_change(target: Target, chosen: BatcherConfig, gpus: int, notes: list[str]) -> Change:
    """The config with `chosen`'s settings; GenError when they cannot be written."""
    message = target.parsed.message
    wanted = ModelConfig()
    wanted.CopyFrom(message)
    names = []
    if chosen.max_batch_size != message.max_batch_size:
        wanted.max_batch_size = chosen.max_batch_size
        names.append("max_batch_size")
    if chosen.dynamic:
        if message.WhichOneof("scheduling_choice") not in (None, "dynamic_batching"):
            raise GenError(f"{target.config_path}: the model uses another scheduler")
        base = message.dynamic_batching if message.HasField("dynamic_batching") else None
        request = BatchingRequest(chosen.preferred, chosen.delay_us)
        block = build(request, chosen.max_batch_size, target.name, base)
        wanted.dynamic_batching.CopyFrom(block)
        names.append("dynamic_batching")
    if chosen.instances != from_model_config(message, gpus).instances:
        unit = instance_unit(message, gpus)
        if unit is None or chosen.instances % unit:
            raise GenError(f"{chosen.instances} instances cannot be written as one group's count")
        if not wanted.instance_group:
            wanted.instance_group.add()
        wanted.instance_group[0].count = chosen.instances // unit
        names.append("instance_group")
    text = set_fields(target.parsed, wanted, names)
    return Change(target.config_path, target.parsed.source, text, notes)


def most_that_fit(
    target: Target, base: BatcherConfig, gpus: int, counts: range, setup: LintSetup
) -> int | None:
    """The largest of `counts` (ascending) whose instances' weights fit in the GPU memory the
    project's settings (or `--gpu-memory`) give, as lint's TC914 counts them; None when not even
    the first fits. Counts past the first that does not fit are not tried: more instances never
    need less memory."""
    from tritoncfg.checks.practice.gpu_memory import gpu_weights_exceed_memory

    code = gpu_weights_exceed_memory.code
    fitting = None
    for count in counts:
        change = tuned_change(target, replace(base, instances=count), gpus, [])
        found = lint_findings(target.dir, target.config_path, change.after, setup)
        if any(f.code == code for f in found):
            break
        fitting = count
    return fitting
