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

from importlib import import_module
from typing import TYPE_CHECKING

from tritoncfg.checks.core.options import LintOptions

if TYPE_CHECKING:
    from tritoncfg.checks.core.context import Finding
    from tritoncfg.checks.core.engine import run_checks
    from tritoncfg.checks.core.index import load_rules
    from tritoncfg.checks.core.registry import RULES, Rule

# loaded on first use: the context, the registry and the engine import the schema (protobuf),
# which setting up a lint (the options) and replaying a cached one never need
_HOMES = {
    "Finding": "core.context",
    "Rule": "core.registry",
    "load_rules": "core.index",
    "run_checks": "core.engine",
}


def __getattr__(name: str) -> object:
    if name == "RULES":
        return import_module(f"{__name__}.core.index").load_rules()
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)


__all__ = ["RULES", "Finding", "LintOptions", "Rule", "load_rules", "run_checks"]
