"""Which rule families can find anything in a config. The engine skips a family whose feature the
completed config does not use: on a 2,000-model repository most rules have nothing to look at."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from tritoncfg.checks.registry import RULES, CheckContext, Finding, Rule, checkable
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel

Gate = Callable[[ModelConfig], bool]


def _sequence(config: ModelConfig) -> bool:
    return config.HasField("sequence_batching")


def _ensemble(config: ModelConfig) -> bool:
    return config.platform == "ensemble" or config.HasField("ensemble_scheduling")


def _warmup(config: ModelConfig) -> bool:
    return bool(config.model_warmup)


def _onnx(config: ModelConfig) -> bool:
    return config.backend == "onnxruntime"


def _tensorrt(config: ModelConfig) -> bool:
    return config.backend == "tensorrt" or config.platform == "tensorrt_plan"


def _openvino(config: ModelConfig) -> bool:
    return config.backend == "openvino"


def _batch_io(config: ModelConfig) -> bool:
    return bool(config.batch_input) or bool(config.batch_output)


def _labels(config: ModelConfig) -> bool:
    return any(output.label_filename for output in config.output)


def _parameters(config: ModelConfig) -> bool:
    return bool(config.parameters)


def _backend_owned(config: ModelConfig) -> bool:
    return config.backend in ("pytorch", "dali")


def _misc(config: ModelConfig) -> bool:
    return (
        config.response_cache.enable
        or config.HasField("model_metrics")
        or any(group.rate_limiter.resources for group in config.instance_group)
    )


_FAMILIES: dict[Gate, tuple[str, ...]] = {
    _batch_io: ("io_batch",),
    _labels: ("io_labels",),
    _parameters: ("parameters", "parameters_tensorrt"),
    _backend_owned: ("backend_owned",),
    _misc: ("misc", "rate_limit_resources"),
    _sequence: (
        "sequence",
        "sequence_values",
        "sequence_state",
        "sequence_state_data",
        "sequence_state_files",
    ),
    _ensemble: ("ensemble", "ensemble_flow", "ensemble_deps", "ensemble_xmodel"),
    _warmup: ("warmup", "warmup_data", "warmup_request"),
    _onnx: ("model_onnx", "model_onnx_inputs", "model_onnx_shapes"),
    _openvino: ("model_openvino",),
    _tensorrt: (
        "model_tensorrt",
        "model_tensorrt_autofill",
        "model_tensorrt_bindings",
        "model_tensorrt_profiles",
    ),
}
GATES: dict[str, Gate] = {
    f"tritoncfg.checks.{module}": gate for gate, modules in _FAMILIES.items() for module in modules
}


def gate_of(check: object) -> Gate | None:
    """The gate of the family module a rule's check function lives in, if any."""
    return GATES.get(getattr(check, "__module__", ""))


class RulePlan:
    """The model rules to call for a config: those whose family's gate opens, in their order.

    Each gate is evaluated once per config, and the rule list is built once per combination of
    open gates (a repository has few), so the engine does no per-rule work for skipped rules."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = [rule for rule in rules if rule.scope == "model"]
        self._gated = [(rule, gate_of(rule.check)) for rule in self.rules]
        self._gates = tuple(dict.fromkeys(g for _, g in self._gated if g is not None))
        self._plans: dict[tuple[bool, ...], list[Rule]] = {}

    def for_config(self, config: ModelConfig | None) -> list[Rule]:
        """The rules that can find something in `config`; every rule when it is None (a
        config that does not parse: the engine then decides per rule)."""
        if config is None:
            return self.rules
        opened = tuple(gate(config) for gate in self._gates)
        plan = self._plans.get(opened)
        if plan is None:
            enabled = {gate for gate, is_open in zip(self._gates, opened, strict=True) if is_open}
            plan = self._plans[opened] = [
                rule for rule, gate in self._gated if gate is None or gate in enabled
            ]
        return plan


def plan_without(ctx: CheckContext, phases: frozenset[str]) -> RulePlan:
    """A plan of the model rules outside `phases`, built once per lint run."""
    return ctx.memo(
        ("plan-without", phases),
        lambda: RulePlan(rule for rule in RULES.values() if rule.phase not in phases),
    )


def plan_findings(
    plan: RulePlan, model: LoadedModel, ctx: CheckContext
) -> Iterator[tuple[Rule, Finding]]:
    """(rule, finding) for each finding the plan's rules give `model`, run as the engine runs
    them (and shared with it through the context's cache)."""
    meaningful = checkable(model, ctx.options)
    for rule in plan.for_config(ctx.config(model) if meaningful else None):
        if rule.needs_valid_config and not meaningful:
            continue
        for finding in ctx.findings(rule, model):
            yield rule, finding
