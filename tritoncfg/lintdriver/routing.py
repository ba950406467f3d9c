"""Which models a lint takes, and where the repository rules' findings go: the models the path
filters choose, the ensembles that depend on them, and each finding inside a model's directory
routed to that model (its suppression comments apply to it: lintrun.settle)."""

from __future__ import annotations

from pathlib import Path

from tritoncfg.checks.core.context import CheckContext
from tritoncfg.checks.core.engine import check_repositories
from tritoncfg.checks.core.selection import PathFilters
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.lintcache import LintCache
from tritoncfg.lintrun import LintJob, Selected
from tritoncfg.repository import ModelDir, Repository
from tritoncfg.workspace import LoadedModel, Workspace, add_dependents, load_model


def chosen_models(
    repositories: tuple[Repository, ...], filters: PathFilters
) -> list[tuple[Repository, ModelDir]]:
    """The models of the repositories to lint: those the path filters do not leave out (a model
    named on the command line, itself or a config file in it, only with force-exclude)."""
    chosen = []
    for repository in repositories:
        named = _named(repository)
        chosen += [
            (repository, model)
            for model in repository.models
            if not filters.excluded(model.path, named=model.path in named)
        ]
    return chosen


def _named(repository: Repository) -> set[Path]:
    """The directories a path given for `repository` names: the path itself, and above a config
    file its model directory (`m/config.pbtxt`, `m/configs/x.pbtxt`)."""
    return {p for given in repository.inputs for p in (given, given.parent, given.parent.parent)}


def dependents(
    repositories: tuple[Repository, ...],
    chosen: list[tuple[Repository, ModelDir]],
    job: LintJob,
    cache: LintCache | None = None,
) -> list[tuple[Repository, ModelDir]]:
    """Given some files of a repository (pre-commit), the models that depend on them too:
    ensembles that run them as steps, transitively, so a step's change that breaks its ensemble
    is reported in the same run. The cache remembers what each config's bytes showed (repository/mentions.py)."""
    if not chosen or not any(r.context_names for r in repositories):
        return []  # whole repositories are checked already
    # the chosen models count by name only: their configs are not read here (lint reads them)
    loaded = [LoadedModel(m, r) for r, m in chosen]
    workspace = Workspace(repositories, [*loaded], dict(job.overrides), job.options.config_name)
    roots = {r.root for r in repositories if r.context_names} if cache is not None else set()
    mentions = {root: cache.mentions(root) for root in roots if cache is not None}
    add_dependents(workspace, lambda d: not job.filters.excluded(d.path), mentions)
    for root, found in mentions.items():
        if cache is not None:
            cache.store_mentions(root, found)
    return [(m.repository, m.dir) for m in workspace.models[len(loaded) :]]


def repository_findings(
    repositories: tuple[Repository, ...],
    job: LintJob,
    chosen: list[tuple[Repository, ModelDir]],
) -> list[Diagnostic]:
    """The repository rules' findings. The GPU memory total (--gpu-memory) needs every model's
    config, so only then are they read here."""
    models = (
        [load_model(m, r, job.overrides) for r, m in chosen]
        if job.options.gpu_memory is not None
        else []
    )
    workspace = Workspace(repositories, models, dict(job.overrides))
    ctx = CheckContext(workspace, job.options)
    return check_repositories(workspace, ctx, list(job.repository_rules))


def route(
    found: list[Diagnostic], chosen: list[tuple[Repository, ModelDir]]
) -> tuple[list[Diagnostic], list[Selected]]:
    """Repository findings inside a selected model's directory go with that model (its
    config's file-level suppression comments apply to them); the others stay apart."""
    unrouted, routed = route_paths(found, [model.path for _, model in chosen])
    selected = [
        Selected(model, repository, routed[i]) for i, (repository, model) in enumerate(chosen)
    ]
    return unrouted, selected


def route_paths(
    found: list[Diagnostic], paths: list[Path]
) -> tuple[list[Diagnostic], list[tuple[Diagnostic, ...]]]:
    """The findings of no model directory, and those inside each of `paths`."""
    if not found:
        return [], [()] * len(paths)
    index = {path: i for i, path in enumerate(paths)}
    routed: list[list[Diagnostic]] = [[] for _ in paths]
    unrouted = []
    for diagnostic in found:
        path = Path(diagnostic.path)
        owner = next((index[p] for p in (path, *path.parents) if p in index), None)
        if owner is None:
            unrouted.append(diagnostic)
        else:
            routed[owner].append(diagnostic)
    return unrouted, [tuple(r) for r in routed]
