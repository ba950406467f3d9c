"""A model directory as a generator will write it, seen by lint before anything is written.

`gen ensemble` creates a model directory (its config and an empty version directory). Its lint
runs on the repository in place: the step models are read where they are, as `tritoncfg lint`
reads them (root-confined, symlinks leaving the root never followed), and the new directory is a
`ModelDir` made from what will be written, its config text given as an override. Nothing of the
repository is copied or listed beyond what lint itself lists.
"""

from __future__ import annotations

import os
from pathlib import Path

from tritoncfg.gen.change import GenUsageError
from tritoncfg.record import replace
from tritoncfg.repository import CONFIG_FILENAME, Entry, ModelDir, Repository, Version
from tritoncfg.repository.discover import Pick, RootPlan, plan_many
from tritoncfg.repository.model import LayoutIssue, byte_order
from tritoncfg.repository.scan import ConfigChoice

# what discovery reports of the directory as it is, which the write changes
_MENDED = frozenset({"missing_config", "config_name_not_found"})


def planned_repository(
    config_path: Path, text: str, version_dir: str, config_name: str | None = None
) -> Repository:
    """The repository holding `config_path`'s model directory with `text` as its config and
    `version_dir` in it, as they will be written: a directory there is scanned (what it holds
    stays), one not there yet is made up. Its models are the one selected model; the others are
    context models, scanned when a check asks for them. Raises GenUsageError when the directory
    cannot be read. `config_name`: the settings' `model-config-name`, for the other models."""
    directory = config_path.parent
    (plan,) = plan_many([directory.parent], config_name=config_name)
    name = directory.name
    if name in plan.names:
        found, issues = plan.scan(Pick(name, ConfigChoice(explicit=config_path)))
        if not found.accessible:
            raise GenUsageError(f"{directory}: {_why_unreadable(plan, directory)}")
        kept = tuple(i for i in issues if i.kind not in _MENDED)
    elif os.path.lexists(directory):
        raise GenUsageError(f"{directory}: exists and is not a directory")
    else:
        found, kept = _empty(directory, plan), ()
    model = _with_written(found, config_path, len(text.encode("utf-8")), version_dir)
    return plan.repository([(model, kept)])


def _why_unreadable(plan: RootPlan, directory: Path) -> str:
    issue: LayoutIssue | None = next((i for i in plan.issues if i.path == directory), None)
    return issue.detail if issue is not None else "cannot list this model directory"


def _empty(directory: Path, plan: RootPlan) -> ModelDir:
    return ModelDir(
        name=directory.name, path=directory, root=plan.root, accessible=True,
        config_path=directory / CONFIG_FILENAME, config_name=None, config_exists=False,
        alternative_configs=(), entries=(), subdirs_sorted=(), detection_dir=None,
        detection_entries=(), versions=(), ignored_version_dirs=(), warmup_entries=(),
        initial_state_entries=(), real_path=plan.root_real / directory.name,
    )  # fmt: skip


def _with_written(model: ModelDir, config_path: Path, size: int, version_dir: str) -> ModelDir:
    """`model` with the config file and the (empty) version directory the write makes."""
    path = model.path
    config = Entry(config_path.name, path, False, True, False, size)
    entries = [e for e in model.entries if e.name != config.name]
    entries.append(config)
    subdirs = list(model.subdirs_sorted)
    versions = list(model.versions)
    if version_dir not in subdirs:
        entries.append(Entry(version_dir, path, True, False, False, None))
        subdirs = sorted([*subdirs, version_dir], key=byte_order)
    if all(v.number != int(version_dir) for v in versions):
        versions.append(Version(int(version_dir), version_dir, path / version_dir, ()))
    detection = path / subdirs[0]
    return replace(
        model,
        config_path=config_path,
        config_name=None,
        config_exists=True,
        entries=tuple(sorted(entries, key=lambda e: byte_order(e.name))),
        subdirs_sorted=tuple(subdirs),
        versions=tuple(sorted(versions, key=lambda v: v.number)),
        detection_dir=detection,
        detection_entries=model.detection_entries if detection == model.detection_dir else (),
    )


__all__ = ["planned_repository"]
