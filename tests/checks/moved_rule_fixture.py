"""A rule declared in a module of its own (test_rule_registry): TC601's check, moved here."""

from __future__ import annotations

from tritoncfg.checks import RULES, gates
from tritoncfg.checks.registry import ModelRule, Phase, model_rule
from tritoncfg.diagnostics import Severity

_original = RULES["TC601"]
assert isinstance(_original, ModelRule)

moved = model_rule(
    "TC998",
    "moved-rule-fixture",
    severity=Severity.ERROR,
    summary="TC601, declared in another module.",
    phase=Phase.VALIDATE,
    gate=gates.sequence_batching,
)(_original.check)
