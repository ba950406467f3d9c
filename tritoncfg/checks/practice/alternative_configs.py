"""TC915: an alternative config (`configs/<name>.pbtxt`) that Triton would refuse.

Triton reads `configs/<name>.pbtxt` instead of `config.pbtxt` when it is started with
`--model-config-name=<name>` (`model_config_utils.cc: GetModelConfigFullPath`), so a repository
often ships one model with several configs, one per deployment. Linting with the config in use says
nothing about the others: an error that only the `prod` alternative has stays hidden until the
server that uses it starts."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core.context import CheckContext, Finding
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.plan import plan_without
from tritoncfg.checks.core.registry import ModelRule, model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel

PHASE = Phase.BEST_PRACTICE
_NOT_A_LOAD_ERROR = frozenset({Phase.BEST_PRACTICE, Phase.RUNTIME})


def _errors(model: LoadedModel, ctx: CheckContext) -> Iterator[tuple[ModelRule, Finding]]:
    """(rule, finding) of every error Triton would report for `model`."""
    for rule, finding in plan_without(ctx, _NOT_A_LOAD_ERROR).findings(model, ctx):
        if (finding.severity or rule.severity) is Severity.ERROR:
            yield rule, finding


def _flag(alternative: LoadedModel) -> str:
    name = alternative.dir.config_name
    return "without --model-config-name" if name is None else f"with --model-config-name={name}"


@model_rule(
    "TC915",
    severity=Severity.WARNING,
    summary="A config Triton would use with another --model-config-name has an error.",
    phase=PHASE,
    needs_valid_config=False,
)
def alternative_config_error(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Lints each other config a model can be loaded with, as Triton would load it: every
    `configs/<name>.pbtxt` (with `--model-config-name=<name>`) other than the config in use,
    and `config.pbtxt` when `--model-config-name` selects an alternative. Each error that
    the config in use does not have is reported in the alternative's own file, at its
    line:column, with Triton's message. A config file named on the command line is checked
    alone, as pre-commit passes it.

    ## Why it matters
    Only the config in use is linted, and it may be fine while `configs/prod.pbtxt` has a
    preferred batch size above its `max_batch_size`: the error appears only on the server that
    starts with `--model-config-name=prod`, where Triton refuses the model.

    ## Example
    ```text
    # config.pbtxt
    backend: "python"
    max_batch_size: 8
    # configs/prod.pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { preferred_batch_size: [ 16 ] }
    ```

    ## Fix
    ```text
    # configs/prod.pbtxt
    backend: "python"
    max_batch_size: 16
    dynamic_batching { preferred_batch_size: [ 16 ] }
    ```
    """
    if not model.dir.alternative_configs and model.dir.config_name is None:
        return  # config.pbtxt in use and no configs/: nothing else to load
    if model.dir.config_path in model.repository.inputs:
        return  # a file named on the command line is linted alone
    alternatives = ctx.workspace.alternatives(model)
    if not alternatives:
        return
    # imported here: importing it first would register the parse rules ahead of the others
    from tritoncfg.checks.core.suppress import suppression_test

    in_use = {(r.code, f.triton_message or f.message) for r, f in _errors(model, ctx)}
    for alternative in alternatives:
        seen: set[tuple[str, str]] = set()
        suppressed = suppression_test(alternative)
        for rule, finding in _errors(alternative, ctx):
            key = (rule.code, finding.triton_message or finding.message)
            if key in in_use or key in seen or suppressed(rule.code, finding.span):
                continue
            seen.add(key)
            yield Finding(
                f"{_flag(alternative)} Triton would refuse this model ({rule.code}): "
                f"{finding.message} (lint {_flag(alternative)} to check and --fix that config)",
                finding.span,
                path=finding.path or alternative.config_path,
                triton_message=finding.triton_message,
                phase=finding.phase or rule.phase,
            )
