"""The config tritoncfg expects Triton to end with (`GET /v2/models/<m>/config`), for `diff` and
the differential tests to compare with a real server: `tritoncfg complete`'s full completion
(tritoncfg.complete.full.complete_model), with the fields an unknown host decides marked unknown.
"""

from __future__ import annotations

from tritoncfg.complete import complete_core
from tritoncfg.complete.instance_groups import normalize_instance_groups
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel


@record
class ExpectedConfig:
    config: ModelConfig
    unknown: set[str] = field(default_factory=set)  # field paths the unknown host decides


def expected_config(model: LoadedModel, gpus: tuple[int, ...] | None) -> ExpectedConfig:
    """`model`'s config as Triton would serve it on a host with `gpus` (None: unknown)."""
    from tritoncfg.complete.full import complete_model
    from tritoncfg.models.locate import read_model_io

    core = complete_core(model.config.message if model.config is not None else None, model.dir)
    described = read_model_io(model.dir, core.config)
    full = complete_model(model, model_io=described, gpus=gpus if gpus is not None else ())
    expected = ExpectedConfig(full.config)
    if gpus is None:  # the kind, count and GPU list of each group depend on the host
        for position, group in enumerate(
            normalize_instance_groups(core.config, core.config.backend, None)
        ):
            path = f"instance_group[{position}]"
            if group.kind is None:
                expected.unknown.add(f"{path}.kind")
            if group.count is None:
                expected.unknown.add(f"{path}.count")
            if group.gpus is None:
                expected.unknown.add(f"{path}.gpus")
    return expected
