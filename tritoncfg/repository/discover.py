"""Discovery entry points: a path (repository, model dir or config file) → `Repository`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from tritoncfg.record import field, record
from tritoncfg.repository.fs import Listing, list_dir
from tritoncfg.repository.model import (
    CONFIG_FILENAME,
    CONFIGS_DIRNAME,
    LayoutIssue,
    ModelDir,
    Repository,
    RepositoryKind,
    byte_key,
    is_json_path,
)
from tritoncfg.repository.scan import ConfigChoice, scan_model
from tritoncfg.repository.versions import NUMBER_START, scan_versions

_KIND_RANK: dict[RepositoryKind, int] = {"file": 0, "model": 1, "repository": 2}


@record(frozen=True)
class Pick:
    """A model directory to scan, by name, and which config it uses."""

    name: str
    choice: ConfigChoice


@record(frozen=True)
class _Target:
    """What one input path asks for: a root, and either every model (picks None) or some."""

    root: Path
    kind: RepositoryKind
    input: Path
    picks: tuple[Pick, ...] | None
    issues: tuple[LayoutIssue, ...] = ()
    listing: Listing | None = None  # the root's, when it was listed already (listed once)


def _looks_like_model_dir(listing: Listing) -> bool:
    """A dir with `config.pbtxt`, a `configs/` dir or a numeric version subdir is a model."""
    config = listing.entry(CONFIG_FILENAME)
    configs = listing.entry(CONFIGS_DIRNAME)
    if (config is not None and config.is_file) or (configs is not None and configs.is_dir):
        return True
    # a version number starts with a digit, after optional C whitespace and sign (`stoll`):
    # a directory of thousands of models, none of them numeric, is not scanned as versions
    dirs = tuple(e.name for e in listing.entries if e.is_dir and e.name[:1] in NUMBER_START)
    return bool(dirs) and bool(scan_versions(dirs).numbers)


def is_model_dir(path: Path) -> bool:
    """Whether discovery takes the folder `path` for a model, not for a repository."""
    return path.is_dir() and _looks_like_model_dir(list_dir(path, path.resolve()))


def _file_target(path: Path) -> _Target:
    if path.name == CONFIG_FILENAME:
        model_dir = path.parent
    elif path.parent.name == CONFIGS_DIRNAME and path.suffix == ".pbtxt":
        model_dir = path.parent.parent
    elif is_json_path(path):
        # a config as JSON (what Triton's load API takes as an override, and what
        # GET /v2/models/<m>/config returns): accepted as the config of its directory
        model_dir = path.parent
    else:
        model_dir = path.parent
        detail = (
            f"Triton reads only '<model>/{CONFIG_FILENAME}' or '<model>/{CONFIGS_DIRNAME}/"
            "<name>.pbtxt'; this file is checked as the config of its directory"
        )
        issue = LayoutIssue("unconventional_config_file", path, detail, model_dir.name)
        pick = Pick(model_dir.name, ConfigChoice(explicit=path))
        return _Target(model_dir.parent, "file", path, (pick,), (issue,))
    pick = Pick(model_dir.name, ConfigChoice(explicit=path))
    return _Target(model_dir.parent, "file", path, (pick,))


def _target(raw: Path | str, config_name: str | None) -> _Target:
    path = Path(os.path.abspath(raw))
    if path.is_file() or (path.name == CONFIG_FILENAME and path.is_dir()):
        return _file_target(path)  # a directory named config.pbtxt is still the model's config
    if path.is_dir():
        listing = list_dir(path, path.resolve())
        if path.parent != path and _looks_like_model_dir(listing):
            pick = Pick(path.name, ConfigChoice(config_name=config_name))
            return _Target(path.parent, "model", path, (pick,))
        return _Target(path, "repository", path, None, listing=listing)
    detail = "repository path is not a valid directory"
    return _Target(path, "repository", path, None, (LayoutIssue("not_a_directory", path, detail),))


def _root_issues(
    root: Path, root_real: Path, listing: Listing
) -> tuple[tuple[str, ...], list[LayoutIssue]]:
    """The model names of a root (`ModelRepositoryManager::Poll`: every immediate subdirectory)
    and its own issues."""
    issues = list(listing.issues)
    for entry in listing.entries:
        if entry.is_file:
            detail = "plain file at the repository root; Triton ignores it"
            issues.append(LayoutIssue("root_file", entry.path, detail))
        elif entry.is_dir and entry.name.startswith("."):
            detail = (
                f"hidden directory '{entry.name}' is polled as a model by Triton "
                "(immediate subdirectories are not filtered) and will fail to load"
            )
            issues.append(LayoutIssue("hidden_model_dir", entry.path, detail, entry.name))
    return tuple(e.name for e in listing.entries if e.is_dir), issues


def _issue_key(issue: LayoutIssue) -> tuple[bytes, str, str]:
    return (os.fsencode(str(issue.path)), issue.kind, issue.detail)


class ScanModel(Protocol):
    """`scan_model`, or what answers for it (the lint cache's `ScanReuse`)."""

    def __call__(
        self, path: Path, root: Path, root_real: Path, choice: ConfigChoice, *, link: bool | None
    ) -> tuple[ModelDir, tuple[LayoutIssue, ...]]: ...


@record
class RootPlan:
    """One root's discovery before its models are scanned: the models to scan (`picks`, in
    order), and the issues of the root and of the paths given. `discover` scans the picks in
    turn; a lint pool scans them in its workers, each its share (see `tritoncfg.lintrun`)."""

    root: Path
    kind: RepositoryKind
    root_real: Path
    names: tuple[str, ...]  # every model directory of the root, in byte order
    picks: list[Pick]
    issues: list[LayoutIssue]
    inputs: tuple[Path, ...]
    config_name: str | None
    links: dict[str, bool] = field(default_factory=dict)  # by name: whether it is a symlink
    failed: bool = False  # the root is not a directory: nothing to scan

    @property
    def whole(self) -> bool:
        """Every model of the root is picked, once each, in name order (a repository given
        whole; no model directory or file named on top of it)."""
        return not self.failed and [p.name for p in self.picks] == list(self.names)

    def path(self, pick: Pick) -> Path:
        return self.root / pick.name

    def path_text(self, pick: Pick) -> str:
        """`path(pick)` as text, without a Path per model (the parent of a pooled lint of
        20,000 models joins each once before it forks)."""
        return os.path.join(self.root, pick.name)

    def scan(
        self, pick: Pick, scan_one: ScanModel = scan_model
    ) -> tuple[ModelDir, tuple[LayoutIssue, ...]]:
        return scan_one(
            self.root / pick.name, self.root, self.root_real, pick.choice,
            link=self.links.get(pick.name),
        )  # fmt: skip

    def _scan_name(self, name: str) -> ModelDir:
        """A model of the root that no path picked (a context model), scanned by name."""
        return self.scan(Pick(name, ConfigChoice(config_name=self.config_name)))[0]

    def scanned(self, scan_one: ScanModel = scan_model) -> Repository:
        """The repository, its picks scanned in turn (`discover`)."""
        return self.repository(self.scan(pick, scan_one) for pick in self.picks)

    def repository(self, scans: Iterable[tuple[ModelDir, tuple[LayoutIssue, ...]]]) -> Repository:
        """The repository, given the scans of the picks (in their order)."""
        issues = list(self.issues)
        if self.failed:
            return Repository(self.root, self.kind, (), (), _sorted(issues), self.inputs)
        selected: dict[tuple[str, str], ModelDir] = {}  # by name and config (its path's text)
        for model, model_issues in scans:
            selected.setdefault((model.name, str(model.config_path)), model)
            issues.extend(model_issues)
        chosen = {name for name, _ in selected}
        context = tuple(name for name in self.names if name not in chosen)
        order = byte_key(name for name, _ in selected)
        models = tuple(selected[key] for key in sorted(selected, key=lambda k: (order(k[0]), k[1])))
        return Repository(
            self.root, self.kind, models, context, _sorted(issues), self.inputs, self._scan_name
        )

    def unscanned(self, issues: Iterable[LayoutIssue] = ()) -> Repository:
        """The repository with no model scanned yet: each is scanned when first asked for by
        name, as a context model is (a pool worker's view of a root it lints a share of).
        `issues`: those its models' scans found, where they are known."""
        every = (*self.issues, *issues)
        return Repository(
            self.root, self.kind, (), self.names, _sorted(every), self.inputs, self._scan_name
        )


def _sorted(issues: Iterable[LayoutIssue]) -> tuple[LayoutIssue, ...]:
    return tuple(sorted(set(issues), key=_issue_key))


def _plan(root: Path, targets: list[_Target], config_name: str | None) -> RootPlan:
    kind = max((t.kind for t in targets), key=_KIND_RANK.__getitem__)
    issues: list[LayoutIssue] = [i for t in targets for i in t.issues]
    inputs = tuple(sorted({t.input for t in targets}, key=lambda p: os.fsencode(str(p))))
    if any(i.kind == "not_a_directory" for i in issues):
        return RootPlan(root, kind, root, (), [], issues, inputs, config_name, failed=True)

    root_real = root.resolve()
    listed = next((t.listing for t in targets if t.listing is not None and t.root == root), None)
    listing = listed if listed is not None else list_dir(root, root_real)
    names, root_issues = _root_issues(root, root_real, listing)
    links = {e.name: e.is_symlink for e in listing.entries}  # an lstat less per model
    picks = [p for t in targets for p in (t.picks or ())]
    if any(t.picks is None for t in targets):
        issues.extend(root_issues)
        every = ConfigChoice(config_name=config_name)
        picks = [Pick(name, every) for name in names] + picks
    else:  # a model or file was named: only what concerns the picked models is reported
        picked = {p.name for p in picks}
        issues.extend(i for i in root_issues if i.model in picked or i.path.name in picked)
    return RootPlan(root, kind, root_real, names, picks, issues, inputs, config_name, links)


def plan_many(paths: Iterable[Path | str], *, config_name: str | None = None) -> list[RootPlan]:
    """The roots of several paths, merged per root and deduplicated, sorted by root; each
    root's models still to scan."""
    groups: dict[Path, list[_Target]] = {}
    for raw in paths:
        target = _target(raw, config_name)
        groups.setdefault(target.root.resolve(), []).append(target)
    ordered = sorted(groups.items(), key=lambda item: os.fsencode(str(item[0])))
    return [_plan(targets[0].root, targets, config_name) for _, targets in ordered]


def discover_many(
    paths: Iterable[Path | str],
    *,
    config_name: str | None = None,
    scan_one: ScanModel = scan_model,
) -> tuple[Repository, ...]:
    """Discover several paths at once, merged per repository root and deduplicated.

    Pre-commit passes file names (`a/config.pbtxt b/configs/x.pbtxt`); every file of one
    root ends up in one `Repository`, each root scanned once. Sorted by root. `scan_one` scans a
    selected model directory (the lint cache answers it from unchanged earlier scans)."""
    return tuple(plan.scanned(scan_one) for plan in plan_many(paths, config_name=config_name))


def root_of(path: Path | str) -> Path:
    """The repository root discovery takes `path` (a repository, a model directory or a config
    file) to be in: what a writer must not leave, so that it agrees with lint (TC102)."""
    return _target(path, None).root


def discover(path: Path | str, *, config_name: str | None = None) -> Repository:
    """Discover a model repository, a single model directory, or a single config file.

    `config_name` mirrors Triton's `--model-config-name`: `configs/<name>.pbtxt` is used
    where it exists, `config.pbtxt` elsewhere. Never raises for layout problems: they are
    `Repository.issues`."""
    (repository,) = discover_many([path], config_name=config_name)
    return repository
