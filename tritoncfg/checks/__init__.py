"""The rules, one subpackage per family, named for what Triton checks; `core/` runs them and
`common/` holds the analyses several families share.

TC0xx parse · TC1xx repository (layout, platform, versions) and backends · TC2xx batching ·
TC3xx io · TC4xx instance_groups · TC5xx ensembles · TC6xx sequence_batching ·
TC7xx warmup_and_runtime (warmup, response cache, metrics, rate limiter, parameters) ·
TC8xx model_formats · TC9xx practice · TC000 verify.

Importing this package imports no family: `RULES` (every rule) and `run_checks` are loaded when
first used, and a lint run loads only the families of the rules it selected
(`core.index.load_rules`). Which rules exist, their names, order and lifecycle: the rule table,
`rules.tsv` (`core/table.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritoncfg.checks.core.context import Finding, LintOptions
from tritoncfg.checks.core.index import load_rules
from tritoncfg.checks.core.registry import Rule

if TYPE_CHECKING:
    from tritoncfg.checks.core.engine import run_checks
    from tritoncfg.checks.core.registry import RULES


def __getattr__(name: str) -> object:
    if name == "RULES":
        return load_rules()
    if name == "run_checks":
        from tritoncfg.checks.core.engine import run_checks

        return run_checks
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RULES", "Finding", "LintOptions", "Rule", "load_rules", "run_checks"]
