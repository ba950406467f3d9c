"""The lint driver: what `tritoncfg.api.lint` runs. Discovery (repository/), the repository
rules' findings, the models to lint (named, chosen by the path filters, and the ensembles that
depend on them), the cache (lintcache/), the models linted by lintrun.py (serially or by a
pool), and the one `LintResult`, built here and never changed after.

Serial and pooled runs take one path: the repository findings are routed once to the model whose
directory holds them (`routing.route_paths`), and `lintrun.settle` applies that model's suppression
comments to them without linting it again."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.job import LintJob
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.cloud.url import is_cloud
from tritoncfg.gcpause import collector_paused
from tritoncfg.lintcache import LintCache
from tritoncfg.lintdriver.result import LintResult
from tritoncfg.record import replace

if TYPE_CHECKING:
    from tritoncfg.diagnostics import Diagnostic
    from tritoncfg.lintrun import ModelOutcome, Selected, Unscanned
    from tritoncfg.repository import Repository
    from tritoncfg.repository.discover import RootPlan

# The rules, the routing and the lint run (lintrun.py, the check context, the schema) are
# imported by the functions that lint: a run the cache replays whole needs none of them.


def lint_paths(
    items: list[Path | str],
    options: LintOptions | None = None,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
    jobs: int | None = None,
    cache_dir: Path | None = None,
    warnings_as_errors: bool = False,
) -> LintResult:
    """`tritoncfg.api.lint`, and `warnings_as_errors` recorded in the result. A cloud URL's
    repository is staged locally and linted, its findings named by object URL."""
    if any(is_cloud(item) for item in items):
        from tritoncfg.cloud.lint import lint_staged

        def lint_local(local: list[Path | str], to_url: Callable[[str], str]) -> LintResult:
            found = lint_paths(
                local,
                options,
                selection,
                filters,
                overrides=overrides,
                jobs=jobs,
                warnings_as_errors=warnings_as_errors,
            )
            # the texts read now: the staged copies are gone once this returns
            return replace(found, sources=dict(found.sources)).renamed(to_url)

        return lint_staged(items, lint_local)
    with collector_paused():  # trees, messages, findings: no cycles, all kept to the end
        result = _lint(
            items,
            options or LintOptions(),
            selection or RuleSelection(),
            (filters or PathFilters()).fresh(),  # the ignore files read anew for each run
            overrides,
            jobs,
            cache_dir,
        )
    if warnings_as_errors:
        result = replace(result, warnings_as_errors=True)
    return result


def _lint(
    items: list[Path | str],
    options: LintOptions,
    selection: RuleSelection,
    filters: PathFilters,
    overrides: Mapping[str, str] | None,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> LintResult:
    job = LintJob(
        options, tuple(selection.active_codes()), selection, filters, dict(overrides or {})
    )
    inputs = [Path(os.path.abspath(item)) for item in items]
    cache = LintCache(cache_dir, job, inputs) if cache_dir is not None and not overrides else None
    replayed = cache.replay() if cache is not None else None
    if replayed is not None:
        return LintResult(**replayed, replayed=True)
    result = _lint_afresh(items, job, jobs, cache)
    if cache is not None and cache.folder.refused is not None:
        result = replace(result, notes=[*result.notes, cache.folder.refused])
    return result


def _lint_afresh(
    items: list[Path | str], job: LintJob, jobs: int | None, cache: LintCache | None
) -> LintResult:
    from tritoncfg.lintdriver.routing import (
        chosen_models,
        dependents,
        repository_findings,
        route,
    )
    from tritoncfg.lintrun import Unscanned, lint_selected, processes
    from tritoncfg.repository.discover import plan_many
    from tritoncfg.repository.scan import scan_model

    options, filters = job.options, job.filters
    plans = plan_many(items, config_name=options.config_name)
    if cache is None and _pools_scans(plans, job):
        models = [
            Unscanned(i, pick, not filters.excluded(plan.path_text(pick)))
            for i, plan in enumerate(plans)
            for pick in plan.picks
        ]
        count = processes(jobs, sum(m.lint for m in models))
        if count > 1:
            return _lint_scanning(plans, models, job, count)
    scan_one = cache.scans if cache is not None else scan_model
    repositories = tuple(plan.scanned(scan_one) for plan in plans)
    if cache is not None and any(_holds(r.root, cache.directory) for r in repositories):
        cache = None  # in a repository, Triton would poll the cache directory as a model
    chosen = chosen_models(repositories, filters)
    chosen += dependents(repositories, chosen, job, cache)
    unrouted, selected = route(repository_findings(repositories, job, chosen), chosen)
    # a cached outcome is settled already (its routed findings are part of its key)
    outcomes: list[ModelOutcome | None] = (
        [cache.lookup(s) for s in selected] if cache is not None else [None] * len(selected)
    )
    todo = [s for s, outcome in zip(selected, outcomes, strict=True) if outcome is None]
    fresh = iter(_settled(job, todo, lint_selected(repositories, todo, job, jobs)))
    done = [outcome if outcome is not None else next(fresh) for outcome in outcomes]
    file_paths = [str(s.dir.config_path) for s, o in zip(selected, done, strict=True) if o.linted]
    result = _result(job, unrouted, done, file_paths, [s.dir.name for s in todo])
    if cache is not None and not result.lost:
        fields = ("diagnostics", "files", "models", "sources", "file_paths", "relinted", "notes")
        recorded = {name: getattr(result, name) for name in fields}
        cache.store(repositories, zip(selected, done, strict=True), {**recorded, "relinted": []})
    return result


def lint_discovered(
    repositories: tuple[Repository, ...],
    options: LintOptions,
    selection: RuleSelection,
    filters: PathFilters,
    *,
    overrides: Mapping[str, str],
) -> LintResult:
    """`lint` of repositories discovered already, their selected models linted in one process,
    with no cache: what `tritoncfg gen ensemble` runs on the repository with the model directory
    it would write (`tritoncfg.gen.planned`), before writing anything."""
    from tritoncfg.lintdriver.routing import chosen_models, repository_findings, route
    from tritoncfg.lintrun import lint_selected

    job = LintJob(options, tuple(selection.active_codes()), selection, filters, dict(overrides))
    chosen = chosen_models(repositories, filters)
    unrouted, selected = route(repository_findings(repositories, job, chosen), chosen)
    done = _settled(job, selected, lint_selected(repositories, selected, job, 1))
    file_paths = [str(s.dir.config_path) for s, o in zip(selected, done, strict=True) if o.linted]
    return _result(job, unrouted, done, file_paths, [s.dir.name for s in selected])


def _pools_scans(plans: list[RootPlan], job: LintJob) -> bool:
    """Whether the pool may scan the models too: repositories given whole (their models all
    linted in name order), no config text given for a file, no GPU memory total (it reads every
    config in one place)."""
    whole = all(plan.whole for plan in plans)
    return whole and not job.overrides and job.options.gpu_memory is None


def _lint_scanning(
    plans: list[RootPlan], models: list[Unscanned], job: LintJob, count: int
) -> LintResult:
    """`_lint` of whole repositories by a pool that scans as it lints (`lint_unscanned`): the
    same findings, in the same order."""
    from tritoncfg.lintdriver.routing import repository_findings, route_paths
    from tritoncfg.lintrun import lint_unscanned, settle

    repositories, scanned = lint_unscanned(plans, models, job, count)
    linted = [
        (m, s.outcome, s.config_path)
        for m, s in zip(models, scanned, strict=True)
        if s.outcome is not None
    ]
    found = repository_findings(repositories, job, [])
    unrouted: list[Diagnostic] = []
    routed: list[tuple[Diagnostic, ...]] = [()] * len(linted)
    if found:  # most repositories have none: no Path per model then
        paths = [plans[m.plan].path(m.pick) for m, _, _ in linted]
        unrouted, routed = route_paths(found, paths)
    done = [
        settle(outcome, inside, job) for (_, outcome, _), inside in zip(linted, routed, strict=True)
    ]
    return _result(
        job,
        unrouted,
        done,
        [path for (_, _, path), o in zip(linted, done, strict=True) if o.linted],
        [m.pick.name for m, _, _ in linted],
    )


def _settled(
    job: LintJob, selected: list[Selected], outcomes: list[ModelOutcome]
) -> list[ModelOutcome]:
    from tritoncfg.lintrun import settle

    return [settle(o, s.routed, job) for s, o in zip(selected, outcomes, strict=True)]


def _result(
    job: LintJob,
    unrouted: list[Diagnostic],
    done: list[ModelOutcome],
    file_paths: list[str],
    relinted: list[str],
) -> LintResult:
    """The result of a lint, from the repository findings of no model and each model's
    outcome (`file_paths`: the configs read and parsed)."""
    from tritoncfg.checks.core.engine import sort_diagnostics
    from tritoncfg.checks.core.selection import selection_notes
    from tritoncfg.sourcetexts import SourceTexts

    found = [*job.finish(unrouted), *(d for o in done for d in o.diagnostics)]
    sources = SourceTexts()
    for outcome in done:
        sources.update(outcome.sources)
    result = LintResult(
        sort_diagnostics(found),
        files=len(file_paths),
        models=len(done),
        sources=sources,
        file_paths=file_paths,
        relinted=relinted,
        lost=[o.lost for o in done if o.lost is not None],
    )
    if result.has_errors:  # it fails anyway, and need not import the families left out to know
        return result
    # a run that passes says what its rule selection left out of Triton's load; recorded with
    # the result for a replay
    return replace(result, notes=selection_notes(job.selection, job.filters.per_path_ignores))


def _holds(root: Path, directory: Path) -> bool:
    """Whether `directory` is inside `root` (where writing it would change what is linted)."""
    try:
        return directory.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return True
