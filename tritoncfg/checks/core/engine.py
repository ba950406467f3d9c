"""Running the rules: every rule over every selected model, findings turned into diagnostics."""

from __future__ import annotations

from collections.abc import Iterable

from tritoncfg.checks.core.context import CheckContext, Finding, LintOptions
from tritoncfg.checks.core.index import load_rules
from tritoncfg.checks.core.plan import RulePlan
from tritoncfg.checks.core.registry import ModelRule, RepositoryRule, Rule
from tritoncfg.checks.parse.codes import CHECKS_SKIPPED_CODE
from tritoncfg.diagnostics import Diagnostic, TritonVerdict
from tritoncfg.text.span import FILE_START
from tritoncfg.workspace import LoadedModel, Workspace


def _diagnostic(rule: Rule, finding: Finding, path: str, model: str | None) -> Diagnostic:
    triton = (
        None
        if finding.triton_message is None
        else TritonVerdict(finding.phase or rule.phase, finding.triton_message)
    )
    return Diagnostic(
        code=rule.code,
        rule=rule.name,
        severity=finding.severity or rule.severity,
        message=finding.message,
        path=finding.path or path,
        span=finding.span,
        model=model,
        triton=triton,
        fix=finding.fix,
    )


def _skipped_note(model: LoadedModel, skipped: list[ModelRule]) -> Diagnostic:
    from tritoncfg.checks.parse.text_format import CHECKS_SKIPPED  # the text layer, lazily

    note = CHECKS_SKIPPED
    return Diagnostic(
        code=note.code,
        rule=note.name,
        severity=note.severity,
        message=f"{len(skipped)} configuration check{'s were' if len(skipped) != 1 else ' was'} skipped "
        f"for model '{model.name}' because "
        "its config does not parse (Triton stops there too); fix the errors above and lint again",
        path=model.config_path,
        span=FILE_START,
        model=model.name,
    )


def check_repositories(
    workspace: Workspace, ctx: CheckContext, active: list[Rule]
) -> list[Diagnostic]:
    """The findings of the repository-scope rules, for every repository of the workspace."""
    found: list[Diagnostic] = []
    for repository in workspace.repositories:
        for rule in active:
            if isinstance(rule, RepositoryRule):
                for finding in rule.check(repository, ctx):
                    found.append(_diagnostic(rule, finding, str(repository.root), None))
    return found


def check_model(model: LoadedModel, ctx: CheckContext, plan: RulePlan) -> list[Diagnostic]:
    """The findings of the model-scope rules for one model, in rule order."""
    found: list[Diagnostic] = []
    skipped: list[ModelRule] = []
    # rules whose gate is shut for the config have nothing to find: not called
    path, name = model.config_path, model.name  # once per model, not per finding
    for rule, findings in plan.run(model, ctx, skipped):
        for finding in findings:
            found.append(_diagnostic(rule, finding, path, name))
    if skipped:
        found.append(_skipped_note(model, skipped))
    return found


def report_order(d: Diagnostic) -> tuple[object, ...]:
    """The sort key of a report: by file and position; the skipped-checks note closes its
    file's list."""
    span = d.span  # `sort_key` spread out: one tuple per finding, not two
    return (d.path, d.code == CHECKS_SKIPPED_CODE, span.line, span.column, d.code)


def sort_diagnostics(found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Deduplicated, in report order."""
    unique = {(d.code, d.path, d.span, d.message): d for d in found}
    return sorted(unique.values(), key=report_order)


def run_checks(
    workspace: Workspace, options: LintOptions, rules: Iterable[Rule] | None = None
) -> list[Diagnostic]:
    """All diagnostics for the workspace, sorted by file and position."""
    active = list(load_rules().values()) if rules is None else list(rules)
    ctx = CheckContext(workspace, options)
    found = check_repositories(workspace, ctx, active)
    plan = RulePlan(active)
    for model in workspace.models:
        found.extend(check_model(model, ctx, plan))
    return sort_diagnostics(found)
