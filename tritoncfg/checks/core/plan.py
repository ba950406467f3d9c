"""The per-rule loop: which model rules to call for a config, and calling them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tritoncfg.checks.core.context import CheckContext, Finding, checkable
from tritoncfg.checks.core.index import load_rules
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import ModelRule, Rule
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel


class RulePlan:
    """The model rules to call for a config: those whose gate opens, in their order.

    Each gate is evaluated once per config, and the rule list is built once per combination of
    open gates (a repository has few), so the engine does no per-rule work for skipped rules."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = [rule for rule in rules if isinstance(rule, ModelRule)]
        self._gates = tuple(dict.fromkeys(r.gate for r in self.rules if r.gate is not None))
        self._plans: dict[tuple[bool, ...], list[ModelRule]] = {}

    def for_config(self, config: ModelConfig | None) -> list[ModelRule]:
        """The rules that can find something in `config`; every rule when it is None (a
        config that does not parse: `run` then decides per rule)."""
        if config is None:
            return self.rules
        opened = tuple(gate(config) for gate in self._gates)
        plan = self._plans.get(opened)
        if plan is None:
            enabled = {gate for gate, is_open in zip(self._gates, opened, strict=True) if is_open}
            plan = self._plans[opened] = [
                rule for rule in self.rules if rule.gate is None or rule.gate in enabled
            ]
        return plan

    def run(
        self, model: LoadedModel, ctx: CheckContext, skipped: list[ModelRule] | None = None
    ) -> Iterator[tuple[ModelRule, list[Finding]]]:
        """(rule, its findings) for each rule of the plan that applies to `model`, in rule order;
        the findings are computed once per model and shared through the context. A rule that
        needs a config that parses is left out for a config that does not, and added to
        `skipped` when the model has a config file."""
        meaningful = checkable(model, ctx.options)
        computed = ctx.findings_of(model)  # what the ensemble checks already asked for
        for rule in self.for_config(ctx.config(model) if meaningful else None):
            if rule.needs_valid_config and not meaningful:
                if skipped is not None and model.config is not None:
                    skipped.append(rule)
                continue
            findings = computed.get(rule.code)
            if findings is None:
                findings = computed[rule.code] = list(rule.check(model, ctx))
            yield rule, findings

    def findings(
        self, model: LoadedModel, ctx: CheckContext
    ) -> Iterator[tuple[ModelRule, Finding]]:
        """(rule, finding) for each finding of `run`."""
        for rule, findings in self.run(model, ctx):
            for finding in findings:
                yield rule, finding


def plan_without(ctx: CheckContext, phases: frozenset[Phase]) -> RulePlan:
    """A plan of every model rule outside `phases` (whatever the run selected), built once per
    lint run."""
    return ctx.memo(
        ("plan-without", phases),
        lambda: RulePlan(rule for rule in load_rules().values() if rule.phase not in phases),
    )
