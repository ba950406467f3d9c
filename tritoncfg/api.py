"""The small public API: what the CLI uses, and what scripts can use the same way.

`lint(paths, options, selection, filters)` lints with exactly what it is given;
`lint_project(paths, overrides)` first reads the project's settings (`[tool.tritoncfg]`,
tritoncfg.toml) as `tritoncfg lint` does, and merges the overrides over them (lintoptions.py).
docs/api.md shows both."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import field
from functools import partial
from pathlib import Path
from typing import Any

from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.context import CheckContext
from tritoncfg.checks.core.engine import check_repositories, sort_diagnostics
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.cloud.url import is_cloud
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.gcpause import collector_paused
from tritoncfg.lintcache import LintCache
from tritoncfg.lintoptions import LintOverrides, LintSetup, OptionError, lint_setup
from tritoncfg.lintrun import (
    Linter,
    LintJob,
    ModelOutcome,
    Selected,
    SourceTexts,
    Unscanned,
    lint_selected,
    lint_unscanned,
    processes,
    with_routed,
)
from tritoncfg.record import record
from tritoncfg.repository import ModelDir, Repository
from tritoncfg.repository.discover import RootPlan, plan_many
from tritoncfg.repository.scan import scan_model
from tritoncfg.settings import SettingsError, load_settings, project_repository
from tritoncfg.text import ParsedConfig, parse
from tritoncfg.workspace import LoadedModel, Workspace, add_dependents, load_model
from tritoncfg.workspace import load as load_workspace


@record
class LintResult:
    diagnostics: list[Diagnostic]
    files: int
    models: int
    sources: Mapping[str, str] = field(default_factory=dict)  # config path -> text, for snippets
    file_paths: list[str] = field(default_factory=list)  # the config files that were linted
    relinted: list[str] = field(default_factory=list)  # the models linted, not taken from the cache
    warnings_as_errors: bool = False  # the run's setting: warnings fail it too
    replayed: bool = False  # the whole result came from the cache: nothing was listed or read
    notes: list[str] = field(default_factory=list)  # what the run could not do, a line each
    lost: list[str] = field(default_factory=list)  # the models not linted (a killed worker), why

    def count(self, severity: Severity) -> int:
        return sum(d.severity is severity for d in self.diagnostics)

    @property
    def has_errors(self) -> bool:
        return self.count(Severity.ERROR) > 0

    @property
    def failed(self) -> bool:
        """Whether `tritoncfg lint` exits 1: an error, or a warning with warnings-as-errors."""
        return self.has_errors or (self.warnings_as_errors and self.count(Severity.WARNING) > 0)


@record(frozen=True)
class Project:
    """What `lint_project` lints: the paths as lint reads them (a project folder whose settings
    name its model repository stands for that repository) and the setup that applies to them."""

    paths: tuple[Path | str, ...]
    setup: LintSetup


def project(
    paths: Path | str | Iterable[Path | str],
    overrides: LintOverrides | None = None,
    *,
    config: Path | None = None,
    isolated: bool = False,
    settings_overrides: Mapping[str, Any] | None = None,
) -> Project:
    """The settings found from the first local path (walking up to the nearest tritoncfg.toml or
    pyproject.toml with `[tool.tritoncfg]`), or `config`'s, or none with `isolated` (a project's
    `repository` included); `settings_overrides` (settings keys, as `--config "KEY = VALUE"`)
    win over the file, the overrides over both. Raises SettingsError, or OptionError (a bad
    value, a path that does not exist)."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    for item in items:
        if not is_cloud(item):
            _check_local(Path(item))
    chosen = [
        item if is_cloud(item) or isolated else project_repository(Path(item)) for item in items
    ]
    local = [Path(item) for item in chosen if not is_cloud(item)]
    for path in local:
        _check_local(path)
    settings = load_settings(
        local[0] if local else Path.cwd(),
        config=config,
        isolated=isolated,
        overrides=settings_overrides,
    )
    setup = lint_setup(settings, overrides)
    if len(local) < len(chosen):  # the cache keys local files only
        setup = dataclasses.replace(setup, cache_dir=None)
    return Project(tuple(chosen), setup)


def _check_local(path: Path) -> None:
    """A path to lint: present, and a directory or a regular file (not a loop, a device...)."""
    from tritoncfg.confined import PathRefused, check_input

    try:
        check_input(path)
    except PathRefused as error:
        raise OptionError(str(error)) from None
    if not os.path.lexists(path):
        raise OptionError(f"{path}: no such file or directory")


def lint_project(
    paths: Path | str | Iterable[Path | str],
    overrides: LintOverrides | None = None,
    *,
    config: Path | None = None,
    isolated: bool = False,
    jobs: int | None = None,
    settings_overrides: Mapping[str, Any] | None = None,
) -> LintResult:
    """What `tritoncfg lint PATHS` finds: the project's settings (see `project`) with the
    overrides over them, the cache included (`.tritoncfg_cache/` beside the settings file, unless
    the settings or `LintOverrides(cache=False)` turn it off). `result.failed` is the exit status.
    Raises SettingsError, OptionError, and for a cloud URL CloudUrlError or CloudError."""
    chosen = project(
        paths, overrides, config=config, isolated=isolated, settings_overrides=settings_overrides
    )
    setup = chosen.setup
    result = lint(
        chosen.paths,
        setup.options,
        setup.selection,
        setup.filters,
        jobs=jobs,
        cache_dir=setup.cache_dir,
    )
    result.warnings_as_errors = setup.warnings_as_errors
    return result


def load(
    paths: Path | str | Iterable[Path | str],
    *,
    config_name: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> Workspace:
    """Discover and parse a repository, a model directory, a config file, or several of them.

    `overrides` maps config paths to text that stands in for the file (used by --fix)."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    return load_workspace(items, config_name=config_name, overrides=overrides)


def lint(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions | None = None,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> LintResult:
    """Every finding for the given paths, sorted by file and position.

    `jobs`: processes to lint with (None: one per core above a few hundred models; the output is
    the same). `cache_dir`: reuse the outcome of unchanged models from there (`.tritoncfg_cache`).

    A cloud URL (`s3://`, `gs://`, `as://`) is read through fsspec (the `tritoncfg[cloud]` extra);
    its findings are named by object URL. Raises CloudUrlError or CloudError when it cannot be."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    if any(is_cloud(item) for item in items):
        from tritoncfg.cloud.lint import lint_staged

        return lint_staged(
            items,
            lambda local: lint(local, options, selection, filters, overrides=overrides, jobs=jobs),
        )
    with collector_paused():  # trees, messages, findings: no cycles, all kept to the end
        return _lint(
            items,
            options or LintOptions(),
            selection or RuleSelection(),
            (filters or PathFilters()).fresh(),  # the ignore files read anew for each run
            overrides,
            jobs,
            cache_dir,
        )


def _lint(
    paths: Path | str | Iterable[Path | str],
    options: LintOptions,
    selection: RuleSelection,
    filters: PathFilters,
    overrides: Mapping[str, str] | None,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> LintResult:
    items = [paths] if isinstance(paths, str | Path) else list(paths)
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
        result.notes.append(cache.folder.refused)
    return result


def _lint_afresh(
    items: list[Path | str], job: LintJob, jobs: int | None, cache: LintCache | None
) -> LintResult:
    options, filters = job.options, job.filters
    plans = plan_many(items, config_name=options.config_name)
    if cache is None and _pools_scans(plans, job):
        models = [
            Unscanned(i, pick, not filters.excluded(plan.path(pick)))
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
    chosen = _chosen(repositories, filters)
    chosen += _dependents(repositories, chosen, job, cache)
    unrouted, selected = _route(_repository_findings(repositories, job, chosen), chosen)
    if cache is None:
        todo = selected
        done = lint_selected(repositories, todo, job, jobs)
    else:
        outcomes = [cache.lookup(s) for s in selected]
        todo = [s for s, outcome in zip(selected, outcomes, strict=True) if outcome is None]
        fresh = iter(lint_selected(repositories, todo, job, jobs))
        done = [outcome if outcome is not None else next(fresh) for outcome in outcomes]
    file_paths = [str(s.dir.config_path) for s, o in zip(selected, done, strict=True) if o.linted]
    result = _result(job, unrouted, done, file_paths, [s.dir.name for s in todo])
    if cache is not None and not result.lost:
        fields = ("diagnostics", "files", "models", "sources", "file_paths", "relinted")
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
    job = LintJob(options, tuple(selection.active_codes()), selection, filters, dict(overrides))
    chosen = _chosen(repositories, filters)
    unrouted, selected = _route(_repository_findings(repositories, job, chosen), chosen)
    done = lint_selected(repositories, selected, job, 1)
    file_paths = [str(s.dir.config_path) for s, o in zip(selected, done, strict=True) if o.linted]
    return _result(job, unrouted, done, file_paths, [s.dir.name for s in selected])


def _chosen(
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
    repositories, scanned = lint_unscanned(plans, models, job, count)
    linted = [
        (m, s.outcome, s.config_path)
        for m, s in zip(models, scanned, strict=True)
        if s.outcome is not None
    ]
    paths = [plans[m.plan].path(m.pick) for m, _, _ in linted]
    unrouted, routed = _route_paths(_repository_findings(repositories, job, []), paths)
    relinter: list[Linter] = []

    def relint(model: Unscanned, found: tuple[Diagnostic, ...]) -> ModelOutcome:
        if not relinter:
            relinter.append(Linter(repositories, job, []))
        directory = plans[model.plan].scan(model.pick)[0]
        workspace = relinter[0].workspace
        loaded = workspace.adopt(directory, repositories[model.plan])
        return relinter[0].outcome(loaded, found)

    done = [
        with_routed(outcome, found, partial(relint, m, found), job)
        for (m, outcome, _), found in zip(linted, routed, strict=True)
    ]
    return _result(
        job,
        unrouted,
        done,
        [path for (_, _, path), o in zip(linted, done, strict=True) if o.linted],
        [m.pick.name for m, _, _ in linted],
    )


def _result(
    job: LintJob,
    unrouted: list[Diagnostic],
    done: list[ModelOutcome],
    file_paths: list[str],
    relinted: list[str],
) -> LintResult:
    """The result of a lint, from the repository findings of no model and each model's
    outcome (`file_paths`: the configs read and parsed)."""
    found = [*job.finish(unrouted), *(d for o in done for d in o.diagnostics)]
    sources = SourceTexts()
    for outcome in done:
        sources.update(outcome.sources)
    return LintResult(
        sort_diagnostics(found),
        files=len(file_paths),
        models=len(done),
        sources=sources,
        file_paths=file_paths,
        relinted=relinted,
        lost=[o.lost for o in done if o.lost is not None],
    )


def _holds(root: Path, directory: Path) -> bool:
    """Whether `directory` is inside `root` (where writing it would change what is linted)."""
    try:
        return directory.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return True


def _dependents(
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


def _repository_findings(
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


def _route(
    found: list[Diagnostic], chosen: list[tuple[Repository, ModelDir]]
) -> tuple[list[Diagnostic], list[Selected]]:
    """Repository findings inside a selected model's directory go with that model (its
    config's file-level suppression comments apply to them); the others stay apart."""
    unrouted, routed = _route_paths(found, [model.path for _, model in chosen])
    selected = [
        Selected(model, repository, routed[i]) for i, (repository, model) in enumerate(chosen)
    ]
    return unrouted, selected


def _route_paths(
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


def format_text(text: str) -> str:
    """Canonical formatting of config text (comments kept), as `tritoncfg fmt` writes it. Raises
    SyntaxProblem. (Not `format`: that would shadow the builtin.)"""
    from tritoncfg.text.printer import format_source

    return format_source(text)


__all__ = [
    "LintOptions",
    "LintOverrides",
    "LintResult",
    "LintSetup",
    "OptionError",
    "ParsedConfig",
    "Project",
    "SettingsError",
    "format_text",
    "lint",
    "lint_discovered",
    "lint_project",
    "lint_setup",
    "load",
    "parse",
    "project",
]
