"""A rule declared in a module of its own (test_rule_registry): TC601's check, moved here. It is
registered as a rule outside the rule table (rules.tsv names where each of tritoncfg's rules is
declared, and refuses any other declaration), through the registry's own `_register`."""

from __future__ import annotations

from tritoncfg.checks import RULES
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import ModelRule, _register
from tritoncfg.diagnostics import Severity

_original = RULES["TC601"]
assert isinstance(_original, ModelRule)

moved = _register(
    ModelRule(
        code="TC998",
        name="moved-rule-fixture",
        severity=Severity.ERROR,
        summary="TC601, declared in another module.",
        phase=Phase.VALIDATE,
        docstring=_original.docstring,
        gate=gates.sequence_batching,
        needs_valid_config=True,
        fixable=False,
        step=0,
        module=__name__,
        check=_original.check,
    )
)
