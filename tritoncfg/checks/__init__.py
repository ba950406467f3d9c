"""The rules, one module per family, in Triton's pipeline order (parse → repository → ...)."""

from __future__ import annotations

from tritoncfg.checks import layout, parse  # noqa: F401  (importing a family registers its rules)
from tritoncfg.checks.engine import run_checks
from tritoncfg.checks.registry import RULES, Finding, LintOptions, Rule

__all__ = ["RULES", "Finding", "LintOptions", "Rule", "run_checks"]
