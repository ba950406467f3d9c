"""Loading: discovered model directories, each with its config read and parsed.

This is the repository model the checks run on: `Repository` (what is on disk) plus, per model,
the `ParsedConfig` (what its config says). Context models (siblings that ensembles may name) are
parsed only when a check asks for them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.confined import read_regular
from tritoncfg.record import field, record, replace
from tritoncfg.repository import ModelDir, Repository, RepositoryError, discover_many
from tritoncfg.repository.mentions import Known, Mentions, file_stamp, strings_written
from tritoncfg.repository.model import CONFIG_FILENAME, is_json_path

if TYPE_CHECKING:
    from tritoncfg.text import ParsedConfig


@record
class LoadedModel:
    dir: ModelDir
    repository: Repository
    config: ParsedConfig | None = None  # None when there is no config file or it is unreadable
    read_error: RepositoryError | None = None

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def config_path(self) -> str:
        return str(self.dir.config_path)


def load_model(
    model: ModelDir, repository: Repository, overrides: Mapping[str, str] | None = None
) -> LoadedModel:
    """Read and parse a model's config; `overrides` (path -> text) stand in for files on disk."""
    loaded = LoadedModel(model, repository)
    if not model.config_exists:
        return loaded
    override = overrides.get(str(model.config_path)) if overrides else None
    try:
        text = override if override is not None else model.read_config()
    except RepositoryError as error:
        loaded.read_error = error
        return loaded
    if is_json_path(model.config_path):
        from tritoncfg.text.json_config import parse_json

        loaded.config = parse_json(text, str(model.config_path))
    else:
        from tritoncfg.text.config import parse  # the schema: imported once a config is parsed

        loaded.config = parse(text, str(model.config_path))
    return loaded


@record
class Workspace:
    repositories: tuple[Repository, ...]
    models: list[LoadedModel]  # the selected models, in repository then name order
    overrides: Mapping[str, str] = field(default_factory=dict)
    config_name: str | None = None  # --model-config-name
    _peers: dict[tuple[Path, str], LoadedModel | None] = field(default_factory=dict)
    _alternatives: dict[int, tuple[LoadedModel, ...]] = field(default_factory=dict)
    # the names of the peers asked for since it was last set (the cache's dependencies)
    asked: set[str] = field(default_factory=set)
    _released: list[LoadedModel] = field(default_factory=list)  # peers `adopt` replaced

    def peer(self, model: LoadedModel, name: str) -> LoadedModel | None:
        """Another model of the same repository root (for ensemble steps), loaded on demand."""
        self.asked.add(name)
        if not self._peers:
            for loaded in self.models:  # the selected models are each other's peers
                self._peers.setdefault((loaded.repository.root, loaded.name), loaded)
        key = (model.repository.root, name)
        if key not in self._peers:
            target = model.repository.model(name)
            self._peers[key] = (
                None if target is None else load_model(target, model.repository, self.overrides)
            )
        return self._peers[key]

    def adopt(self, model: ModelDir, repository: Repository) -> LoadedModel:
        """`model` loaded as one more selected model: the peer loaded earlier when it was one.
        A process of a lint pool lints its chunks in one workspace, so that each config it needs
        is read and parsed once, not once per chunk."""
        key = (repository.root, model.name)
        found = self._peers.get(key)
        if found is None or (found.dir.path, found.dir.config_path) != (
            model.path,
            model.config_path,
        ):
            if found is not None:
                self._released.append(found)
            found = self._peers[key] = load_model(model, repository, self.overrides)
        self.models.append(found)
        return found

    def forget(self, model: LoadedModel) -> list[LoadedModel]:
        """Drop `model` once linted (`adopt` added it): a step model that a later ensemble
        names is loaded again then. A lint holds one model at a time, not the repository.

        Returns every model let go (it, its alternatives, peers `adopt` replaced): what was
        computed for them, by `id`, must go too (`CheckContext.forget`), or a model loaded
        later at the same address would find it."""
        key = (model.repository.root, model.name)
        if self._peers.get(key) is model:
            del self._peers[key]
        released = [model, *self._alternatives.pop(id(model), ()), *self._released]
        self._released = []
        self.models[:] = [m for m in self.models if m is not model]  # by identity
        return released

    def alternatives(self, model: LoadedModel) -> tuple[LoadedModel, ...]:
        """The model as Triton would load it with each other config it can select: every
        `configs/<name>.pbtxt` (`--model-config-name=<name>`) but the one in use, and
        `config.pbtxt` when an alternative is in use. Read and parsed when first asked for."""
        key = id(model)
        if key not in self._alternatives:
            dirs = (
                replace(model.dir, config_path=path, config_name=name, config_exists=True)
                for path, name in _other_configs(model.dir)
            )
            self._alternatives[key] = tuple(
                load_model(other, model.repository, self.overrides) for other in dirs
            )
        return self._alternatives[key]

    def only(self, model: LoadedModel) -> Workspace:
        """A view of the workspace with `model` as its one selected model (its suppressions and
        alternatives only); peers are shared."""
        alternatives = self._alternatives.get(id(model))
        return Workspace(
            self.repositories,
            [model],
            self.overrides,
            self.config_name,
            self._peers,
            {} if alternatives is None else {id(model): alternatives},
        )

    def alternatives_of(self, model: LoadedModel) -> tuple[LoadedModel, ...]:
        """The alternatives of `model` read so far (none unless a check asked for them)."""
        return self._alternatives.get(id(model), ())

    @property
    def loaded_alternatives(self) -> list[LoadedModel]:
        """The alternatives read so far (their suppression comments apply to their findings)."""
        return [alternative for found in self._alternatives.values() for alternative in found]


def _other_configs(model: ModelDir) -> list[tuple[Path, str | None]]:
    """(path, --model-config-name) of each config the model can be loaded with but is not."""
    found: list[tuple[Path, str | None]] = [
        (path, path.stem) for path in model.alternative_configs if path != model.config_path
    ]
    default = model.path / CONFIG_FILENAME
    entry = model.entry(CONFIG_FILENAME)
    if model.config_path != default and entry is not None and entry.is_file:
        found.insert(0, (default, None))
    return found


def load(
    paths: Iterable[Path | str],
    *,
    config_name: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> Workspace:
    repositories = discover_many(list(paths), config_name=config_name)
    models = [load_model(m, repo, overrides) for repo in repositories for m in repo.models]
    return Workspace(repositories, models, dict(overrides or {}), config_name)


def add_dependents(
    workspace: Workspace,
    keep: Callable[[ModelDir], bool] | None = None,
    mentions: Mapping[Path, Mentions] | None = None,
) -> None:
    """Add to the checked models every model of the same repositories that depends on a checked
    one: ensembles that run it as a step, transitively. Linting changed files (pre-commit) then
    also checks the ensembles that a step's change breaks. Only configs that mention `ensemble`
    and may name a checked model are parsed; `keep` filters what is added (e.g. `exclude`);
    `mentions`: by repository root, what the bytes of unchanged configs showed (the lint
    cache's), so they are not read again."""
    for repository in workspace.repositories:
        if not repository.context_names:
            continue  # the whole repository is checked already
        checked = {m.name for m in workspace.models if m.repository is repository}
        anchor = next(m for m in workspace.models if m.repository is repository)
        known = mentions.get(repository.root) if mentions is not None else None
        looks = _candidates(repository, checked, workspace.config_name, known)
        steps: dict[str, tuple[LoadedModel, set[str]] | None] = {}
        added = True
        while added:
            added = False
            for name, look in looks.items():
                if name in checked:
                    continue
                if name not in steps:
                    if look is None:
                        look = looks[name] = strings_written(_ensemble_text(repository, name))
                    # with overrides (--fix), their text is parsed, not the bytes on disk
                    if look is not None and not workspace.overrides and look.isdisjoint(checked):
                        continue  # it runs no checked model (yet): parsed once it may
                    steps[name] = _steps_of(workspace, anchor, name, known)
                found = steps[name]
                if found is None or not found[1] & checked:
                    continue
                if keep is None or keep(found[0].dir):
                    checked.add(name)
                    workspace.models.append(found[0])
                    added = True


def _first_look(
    entry: os.DirEntry[str] | None, config_name: str | None, mentions: Mentions | None
) -> Known | None:
    """A cheap first look, without scanning the model directory: False only when the config
    Triton reads (`configs/<config_name>.pbtxt` where present, else config.pbtxt) is a plain file
    that does not mention `ensemble`; the strings of config.pbtxt when it does, and is the file
    the full look reads (no --model-config-name); None for anything else (a symlink, an
    unreadable file, strings the bytes do not tell): the full, root-confined look."""
    if entry is None or entry.is_symlink():
        return None
    names = ([f"configs/{config_name}.pbtxt"] if config_name else []) + [CONFIG_FILENAME]
    for name in names:
        path, key = f"{entry.path}/{name}", f"{entry.name}/{name}"
        found = file_stamp(path) if mentions is not None else None
        known = mentions.known(key, found) if mentions is not None else None
        if known is not None:
            return None if known is not False and config_name else known
        try:  # a FIFO named config.pbtxt is refused, never opened: it would block
            data = read_regular(path, follow=False)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        look: Known | None = strings_written(data) if b"ensemble" in data else False
        if look is None or (look is not False and config_name):
            return None
        if mentions is not None:
            mentions.learn(key, found, look)
        return look
    return False


def _candidates(
    repository: Repository, checked: set[str], config_name: str | None, mentions: Mentions | None
) -> dict[str, frozenset[str] | None]:
    """The unchecked models of a repository that may be ensembles, in the repository's order,
    each with the strings its config may hold (None: not known yet)."""
    with os.scandir(repository.root) as listing:
        entries = {entry.name: entry for entry in listing}
    found: dict[str, frozenset[str] | None] = {}
    for name in repository.context_names:
        if name in checked:
            continue
        look = _first_look(entries.get(name), config_name, mentions)
        if look is not False:
            found[name] = look
    return found


def _ensemble_text(repository: Repository, name: str) -> bytes:
    """The bytes of the config the model `name` is loaded with, where it mentions `ensemble`;
    empty when it does not, or cannot be read."""
    target = repository.model(name)
    if target is None or not target.config_exists:
        return b""
    try:
        data = target.read_config_bytes()
    except RepositoryError:
        return b""
    return data if b"ensemble" in data else b""


STEPS_KEY = "#steps"  # a mentions row of an ensemble's step names, once its config was parsed


def _steps_of(
    workspace: Workspace, anchor: LoadedModel, name: str, mentions: Mentions | None
) -> tuple[LoadedModel, set[str]] | None:
    """`_ensemble_steps`, or the step names the cache recorded for the config's bytes (by its
    stamp): an ensemble that runs a changed step is then added without parsing its config (the
    lint cache has its findings; pre-commit need not import the schema). Only for config.pbtxt
    read from disk: not with --model-config-name or overrides."""
    if mentions is None or workspace.config_name or workspace.overrides:
        return _ensemble_steps(workspace, anchor, name)
    repository = anchor.repository
    key = f"{name}/{CONFIG_FILENAME}{STEPS_KEY}"
    stamp = file_stamp(os.path.join(repository.root, name, CONFIG_FILENAME))
    known = mentions.known(key, stamp)
    target = repository.model(name) if known else None
    if known and target is not None:
        workspace.asked.add(name)  # as `peer` would: the cache's dependencies
        return LoadedModel(target, repository), set(known)
    found = _ensemble_steps(workspace, anchor, name)
    if found is not None and found[1]:
        mentions.learn(key, stamp, frozenset(found[1]))  # stamped before it was read
    return found


def _ensemble_steps(
    workspace: Workspace, anchor: LoadedModel, name: str
) -> tuple[LoadedModel, set[str]] | None:
    """The model `name`, parsed, with the names of its step models; None when it is no
    ensemble (or cannot be read)."""
    if not _ensemble_text(anchor.repository, name):
        return None
    loaded = workspace.peer(anchor, name)
    if loaded is None or loaded.config is None:
        return None
    steps = loaded.config.message.ensemble_scheduling.step
    return loaded, {step.model_name for step in steps}
