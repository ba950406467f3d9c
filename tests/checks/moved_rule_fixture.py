"""A rule declared in a module of its own (test_rule_registry): TC601's check, moved here."""

from __future__ import annotations

from tritoncfg.checks import RULES
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import ModelRule, model_rule
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
