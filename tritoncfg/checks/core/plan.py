"""The per-rule loop: which model rules to call for a config, and calling them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from tritoncfg.checks.core.context import CheckContext, Finding, checkable
from tritoncfg.checks.core.index import load_rules
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import ModelRule, Rule, When
from tritoncfg.workspace import LoadedModel

if TYPE_CHECKING:
    from tritoncfg.schema import ModelConfig


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
        opened = tuple([gate(config) for gate in self._gates])  # a list: no generator frame
        plan = self._plans.get(opened)
        if plan is None:
            enabled = {gate for gate, is_open in zip(self._gates, opened, strict=True) if is_open}
            plan = self._plans[opened] = [
                rule for rule in self.rules if rule.gate is None or rule.gate in enabled
            ]
        return plan

    def _applicable(
        self, model: LoadedModel, ctx: CheckContext, skipped: list[ModelRule] | None
    ) -> list[ModelRule]:
        """The rules of the plan that apply to `model`. A rule that needs a config that parses
        is left out for a config that does not, and added to `skipped` when the model has a
        config file."""
        if checkable(model, ctx.options):
            return self.for_config(ctx.config(model))
        applicable = []
        for rule in self.rules:
            if not rule.needs_valid_config:
                applicable.append(rule)
            elif skipped is not None and model.config is not None:
                skipped.append(rule)
        return applicable

    def run(
        self, model: LoadedModel, ctx: CheckContext, skipped: list[ModelRule] | None = None
    ) -> list[tuple[ModelRule, list[Finding]]]:
        """(rule, its findings) for each rule of the plan that finds something in `model`, in
        rule order (rules that are not called, see `_applicable`, go to `skipped`). The findings
        are computed once per model and shared through the context. A rule whose `when` is
        False for the model is not called: it finds nothing. A plain loop, not a generator: it
        runs some 60 rules per model, most of which find nothing."""
        computed = ctx.findings_of(model)  # what the ensemble checks already asked for
        if computed:
            ctx.workspace.asked |= ctx.asked_for(model)
        found = []
        opened: dict[When, bool] = {}  # each `when` asked once for the model
        for rule in self._applicable(model, ctx, skipped):
            findings = computed.get(rule.code)
            if findings is None:
                when = rule.when
                if when is not None:
                    is_open = opened.get(when)
                    if is_open is None:
                        is_open = opened[when] = when(model, ctx)
                    if not is_open:
                        computed[rule.code] = []
                        continue
                findings = computed[rule.code] = list(rule.check(model, ctx))
            if findings:
                found.append((rule, findings))
        return found

    def findings(
        self, model: LoadedModel, ctx: CheckContext
    ) -> Iterator[tuple[ModelRule, Finding]]:
        """(rule, finding) for each finding of `run`, lazily: a caller that wants the first
        finding (a step model's first error) calls no rule after the one that has it."""
        computed = ctx.findings_of(model)
        for rule in self._applicable(model, ctx, None):
            findings = computed.get(rule.code)
            if findings is None:
                found, asked = ctx.recorded(partial(_check, rule, model, ctx))
                findings = computed[rule.code] = found
                ctx.asked_for(model).update(asked)
            for finding in findings:
                yield rule, finding


def _check(rule: ModelRule, model: LoadedModel, ctx: CheckContext) -> list[Finding]:
    when = rule.when
    if when is not None and not when(model, ctx):
        return []
    return list(rule.check(model, ctx))


def plan_without(ctx: CheckContext, phases: frozenset[Phase]) -> RulePlan:
    """A plan of every model rule outside `phases` (whatever the run selected), built once per
    lint run."""
    return ctx.memo(
        ("plan-without", phases),
        lambda: RulePlan(rule for rule in load_rules().values() if rule.phase not in phases),
    )
