"""The config tritoncfg expects Triton to end with (`GET /v2/models/<m>/config`), for `diff` and
the differential tests to compare with a real server.

Interim: core auto-complete (`complete_core`: AUTOFILL + NORMALIZE) plus instance-group
normalization (`normalize_instance_groups`, TN11-TN16). No backend auto-complete from model
files. When `tritoncfg.complete` exposes the full completion (what `tritoncfg complete` prints),
`expected_config` is the one function to rewrite on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tritoncfg.complete import complete_core
from tritoncfg.complete.instance_groups import NormalizedGroup, normalize_instance_groups
from tritoncfg.schema import ModelConfig, ModelInstanceGroup
from tritoncfg.workspace import LoadedModel


@dataclass(slots=True)
class ExpectedConfig:
    config: ModelConfig
    unknown: set[str] = field(default_factory=set)  # field paths the unknown host decides


def expected_config(model: LoadedModel, gpus: tuple[int, ...] | None) -> ExpectedConfig:
    """`model`'s config as Triton would serve it on a host with `gpus` (None: unknown)."""
    message = model.config.message if model.config is not None else None
    config = complete_core(message, model.dir).config
    expected = ExpectedConfig(config)
    groups = normalize_instance_groups(config, config.backend, gpus)
    if not groups:
        return expected  # ensembles: Triton does not normalize their groups
    written = list(config.instance_group)
    del config.instance_group[:]
    for position, group in enumerate(groups):
        out = config.instance_group.add()
        if group.index is not None:
            out.CopyFrom(written[group.index])  # rate_limiter, secondary_devices, ... as written
        _fill(out, group, expected.unknown, f"instance_group[{position}]")
    return expected


def _fill(out: ModelInstanceGroup, group: NormalizedGroup, unknown: set[str], path: str) -> None:
    out.name = group.name
    if group.kind is None:
        unknown.add(f"{path}.kind")
    else:
        out.kind = group.kind  # type: ignore[assignment]
    if group.count is None:
        unknown.add(f"{path}.count")
    else:
        out.count = group.count
    if group.gpus is None:
        unknown.add(f"{path}.gpus")
    else:
        del out.gpus[:]
        out.gpus.extend(group.gpus)
