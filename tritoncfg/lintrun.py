"""Linting model by model: the unit that the process pool and the cache share.

Each selected model is linted on its own (its model rules, then its own config's suppression
comments, selection and severity overrides), so the result of a model does not depend on which
process linted it or on whether it came from the cache: a pool run and a cached run give the
diagnostics of a serial run, in its order. Cross-model checks (ensemble steps) load the peers
they need in whichever process they run. Above `POOL_MIN_MODELS` models, and where `fork` is
available, models are linted by a pool of processes, one per core; a repository given whole is
scanned by the pool too (`lint_unscanned`). A linted model is forgotten once its outcome is out:
a lint holds one model at a time, and the step models ensembles asked for. A model whose worker
is killed (an OOM kill) is linted once more in a new worker; killed again, its outcome says so
(`ModelOutcome.lost`) and the lint goes on (processes/pool.py).
"""

from __future__ import annotations

import operator
import os
import signal
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from tritoncfg.checks.core.context import CheckContext
from tritoncfg.checks.core.engine import check_model
from tritoncfg.checks.core.job import LintJob as LintJob
from tritoncfg.checks.core.plan import RulePlan
from tritoncfg.checks.core.suppress import (
    UNUSED,
    Suppression,
    gather_suppressions,
    suppress,
    suppression_problems,
)
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.processes.pool import run_chunks, working_on
from tritoncfg.record import fields, record, replace
from tritoncfg.repository import LayoutIssue, ModelDir, Repository
from tritoncfg.repository.discover import Pick, RootPlan
from tritoncfg.sourcetexts import SourceTexts as SourceTexts
from tritoncfg.workspace import LoadedModel, Workspace

POOL_MIN_MODELS = 300  # below this, starting processes costs more than it saves
# every suppression comment holds it (`# tritoncfg: noqa ...`; suppress.py's `_NOQA`)
SUPPRESSION_MARKER = "tritoncfg:"
T = TypeVar("T")
CHUNKS_PER_PROCESS = 8  # small chunks even out models of uneven cost (and the parent's reading)
LAST_CHUNK = 8  # the fewest models a chunk holds (the last ones of a run): see `chunk_bounds`
# Test-only hook: a pool worker stops itself (SIGSTOP) before linting the model of this name, so
# that a test can kill it there, as an OOM kill would. Unset in normal use.
STOP_HOOK = "TRITONCFG_LINT_TEST_STOP_AT"


def holds_suppressions(texts: Iterable[str]) -> bool:
    """Whether any of the config texts may hold a suppression comment: one without the marker
    has none, and nothing to apply."""
    return any(SUPPRESSION_MARKER in text for text in texts)


@record
class ModelOutcome:
    """One model's share of a lint."""

    diagnostics: list[Diagnostic]
    sources: Mapping[str, str]  # config path (its own, and alternatives TC915 points into) -> text
    linted: bool  # its config was read and parsed (it counts as a linted file)
    deps: tuple[str, ...]  # the peers its checks asked for, by name
    lost: str | None = None  # not linted: why, naming the model (its worker was killed twice)
    # its configs' suppression comments, until `settle` applies them to the repository findings
    # routed to it and reports those unused; () once settled
    suppressions: tuple[Suppression, ...] = ()


@record(frozen=True)
class Selected:
    """A model to lint, and the repository-level findings inside its directory (its config's
    file-level suppression comments apply to them)."""

    dir: ModelDir
    repository: Repository
    routed: tuple[Diagnostic, ...] = ()


class Linter:
    """Lints models of one workspace; the models of `loaded` are each other's peers."""

    def __init__(
        self, repositories: tuple[Repository, ...], job: LintJob, loaded: list[LoadedModel]
    ):
        self.workspace = Workspace(repositories, loaded, dict(job.overrides))
        self.ctx = CheckContext(self.workspace, job.options)
        self.plan = RulePlan(list(job.rules))
        self.job = job

    def outcome(self, model: LoadedModel) -> ModelOutcome:
        """The model's findings, its own suppression comments applied; unsettled (`settle`)."""
        workspace = self.workspace
        workspace.asked = set()
        found = check_model(model, self.ctx, self.plan)
        configs = [
            (m.config_path, m.config.source)
            for m in (model, *workspace.alternatives_of(model))
            if m.config is not None
        ]
        suppressions: tuple[Suppression, ...] = ()
        if holds_suppressions(source for _, source in configs):
            suppressions = gather_suppressions(workspace.only(model))
            found = suppress(found, suppressions)
        deps = tuple(sorted(workspace.asked - {model.name}))
        for released in workspace.forget(model):
            self.ctx.forget(released)
        linted = model.config is not None
        return ModelOutcome(self.job.finish(found), dict(configs), linted, deps, None, suppressions)


def settle(outcome: ModelOutcome, routed: Sequence[Diagnostic], job: LintJob) -> ModelOutcome:
    """A model's outcome with the repository findings inside its directory (`routed`) added as
    if they had been found with it: its suppression comments apply to them too, and only then
    is a comment that suppressed nothing reported. The model is not linted again."""
    suppressions = outcome.suppressions
    if not suppressions:
        if not routed:
            return outcome
        return replace(outcome, diagnostics=[*job.finish(routed), *outcome.diagnostics])
    kept = suppress(routed, suppressions)
    problems = suppression_problems(suppressions, UNUSED.code in job.chosen)
    found = [*job.finish(kept), *outcome.diagnostics, *job.finish(problems)]
    return replace(outcome, diagnostics=found, suppressions=())


def _lint_serial(
    repositories: tuple[Repository, ...], selected: Sequence[Selected], job: LintJob
) -> list[ModelOutcome]:
    linter = Linter(repositories, job, [])
    adopt = linter.workspace.adopt
    return [linter.outcome(adopt(s.dir, s.repository)) for s in selected]


# what the forked workers inherit: (repositories, selected, job)
_SHARED: tuple[tuple[Repository, ...], Sequence[Selected], LintJob] | None = None


# a worker's Linter, which all its chunks share: the peers a chunk's checks read (ensemble steps,
# the models TC731's resource index reads) and the facts built from them serve the later chunks
_WORKER: Linter | None = None


def _lint_chunk(bounds: tuple[int, int]) -> list[ModelOutcome]:
    global _WORKER
    assert _SHARED is not None
    repositories, selected, job = _SHARED
    if _WORKER is None:
        _WORKER = Linter(repositories, job, [])
    linter, chunk = _WORKER, selected[bounds[0] : bounds[1]]
    loaded = [linter.workspace.adopt(s.dir, s.repository) for s in chunk]
    found = []
    for index, model in enumerate(loaded, bounds[0]):
        _starting(index, model.name)
        found.append(linter.outcome(model))
    return found


def _starting(index: int, name: str) -> None:
    """In a worker: the model about to be linted (the one lost if this worker dies)."""
    working_on(index)
    if _STOP_AT is not None and name == _STOP_AT:
        os.kill(os.getpid(), signal.SIGSTOP)


_STOP_AT = os.environ.get(STOP_HOOK)


def _by_init(cls: type[Any]) -> Callable[[Any], tuple[type[Any], tuple[Any, ...]]]:
    """A pickle reducer calling the record's `__init__` with its fields (they must all be
    init fields, in order): much cheaper to load than a record's generic state."""
    names = [f.name for f in fields(cls)]
    assert all(f.init for f in fields(cls)) and len(names) > 1
    get = operator.attrgetter(*names)
    return lambda obj: (cls, get(obj))


def _start_worker() -> None:
    """In each worker: outcomes go back to the parent with the cheaper reducers."""
    from multiprocessing.reduction import ForkingPickler

    from tritoncfg.diagnostics import Fix, TritonVerdict
    from tritoncfg.text.edits import Edit

    for cls in (ModelOutcome, ScannedOutcome, Diagnostic, TritonVerdict, Fix, Edit):
        ForkingPickler.register(cls, _by_init(cls))


def processes(jobs: int | None, models: int) -> int:
    """How many processes lint `models` models: `jobs`, or one per usable core above the
    threshold; 1 where `fork` is not available (the workers inherit the discovered repository)."""
    if jobs is None:
        if models < POOL_MIN_MODELS:
            return 1
        jobs = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
    if jobs <= 1 or models < 2:
        return 1
    import multiprocessing

    return min(jobs, models) if "fork" in multiprocessing.get_all_start_methods() else 1


def _in_pool(
    count: int,
    work: Callable[[tuple[int, int]], list[T]],
    size: int,
    lost: Callable[[int, str], T],
) -> list[T]:
    """`work` over `size` items, in chunks, by `count` forked processes; the results in order,
    `lost(index, how)` for an item whose worker was killed twice."""
    results, gone = run_chunks(count, work, chunk_bounds(size, count), _start_worker)
    for item in gone:
        results[item.index] = lost(item.index, item.how)
    return cast(list[T], results)  # every None was an item lost, now replaced


def chunk_bounds(size: int, count: int) -> list[tuple[int, int]]:
    """`[first, end)` of each chunk of `size` items for `count` processes, in order: chunks of
    at most size / (count * CHUNKS_PER_PROCESS) items, shrinking towards the end (each at most
    half of what is left per process, at least LAST_CHUNK), so that the processes finish close
    together: with equal chunks, the last one could leave the other processes idle for the
    time of a whole chunk (a second of 20,000 models on two cores)."""
    most = max(1, -(-size // (count * CHUNKS_PER_PROCESS)))
    bounds = []
    first = 0
    while first < size:
        left = size - first
        step = min(most, max(LAST_CHUNK, left // (2 * count)), left)
        bounds.append((first, first + step))
        first += step
    return bounds


def _lost(model: ModelDir, how: str) -> ModelOutcome:
    why = f"model {model.name} ({model.path}) was not linted: its lint process was {how}, twice"
    return ModelOutcome([], {}, False, (), lost=why)


def lint_selected(
    repositories: tuple[Repository, ...],
    selected: Sequence[Selected],
    job: LintJob,
    jobs: int | None = None,
) -> list[ModelOutcome]:
    """Each selected model's outcome, in the order given, serially or by a process pool;
    unsettled: `settle` adds the repository findings routed to it."""
    if not selected:
        return []  # every model from the cache: no rule family is imported
    count = processes(jobs, len(selected))
    if count == 1:
        return _lint_serial(repositories, selected, job)
    global _SHARED
    _SHARED = (repositories, selected, job)
    try:
        return _in_pool(
            count, _lint_chunk, len(selected), lambda i, how: _lost(selected[i].dir, how)
        )
    finally:
        _SHARED = None


@record(frozen=True)
class Unscanned:
    """A model of a repository given whole, not scanned yet: its root's plan and its pick.
    `lint`: False for one that path filters exclude (scanned for its layout issues only)."""

    plan: int  # index in the plans
    pick: Pick
    lint: bool


@record
class ScannedOutcome:
    """What a pool worker found of one `Unscanned` model."""

    issues: tuple[LayoutIssue, ...]  # its directory's layout issues
    outcome: ModelOutcome | None  # None: not linted
    config_path: str


# what the forked workers of `lint_unscanned` inherit: (plans, models, job)
_PLANNED: tuple[Sequence[RootPlan], Sequence[Unscanned], LintJob] | None = None


def _scan_and_lint_chunk(bounds: tuple[int, int]) -> list[ScannedOutcome]:
    global _WORKER
    assert _PLANNED is not None
    plans, models, job = _PLANNED
    if _WORKER is None:
        _WORKER = Linter(tuple(plan.unscanned() for plan in plans), job, [])
    linter = _WORKER
    found = []
    for index, model in enumerate(models[bounds[0] : bounds[1]], bounds[0]):
        working_on(index)
        directory, issues = plans[model.plan].scan(model.pick)
        outcome = None
        if model.lint:
            _starting(index, directory.name)
            repository = linter.workspace.repositories[model.plan]
            outcome = linter.outcome(linter.workspace.adopt(directory, repository))
            # the texts are those on disk (no overrides here): the parent reads the few whose
            # findings it shows, instead of receiving them all
            outcome.sources = SourceTexts(on_disk=outcome.sources)
        found.append(ScannedOutcome(issues, outcome, str(directory.config_path)))
    return found


def lint_unscanned(
    plans: Sequence[RootPlan], models: Sequence[Unscanned], job: LintJob, count: int
) -> tuple[tuple[Repository, ...], list[ScannedOutcome]]:
    """Scan and lint repositories given whole by `count` processes, each model scanned by the
    process that lints it (discovery, a fifth of a lint, is shared too). The repositories come
    back with every layout issue and their models unscanned (repository rules read the issues
    only). The outcomes have no repository findings: the caller routes them (`settle`)."""
    global _PLANNED
    _PLANNED = (plans, models, job)

    def lost(index: int, how: str) -> ScannedOutcome:
        model = models[index]
        directory = plans[model.plan].scan(model.pick)[0]
        return ScannedOutcome((), _lost(directory, how) if model.lint else None, "")

    try:
        scanned = _in_pool(count, _scan_and_lint_chunk, len(models), lost)
    finally:
        _PLANNED = None
    issues: list[list[LayoutIssue]] = [[] for _ in plans]
    for model, found in zip(models, scanned, strict=True):
        issues[model.plan].extend(found.issues)
    repositories = tuple(plan.unscanned(found) for plan, found in zip(plans, issues, strict=True))
    return repositories, scanned
