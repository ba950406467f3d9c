"""Where `new PATH` writes: a project (a new folder, or one `new` made before), or a model
repository that exists already, which gets models and nothing else.

Triton polls every folder of its repository as a model, hidden ones included, so a project
written into a repository (`.github/`, `deploy/`, `model_repository/`) would be loaded as models
that fail, and `tritoncfg.toml` would point lint at the new, nested repository instead of the
models that are there.
"""

from __future__ import annotations

from pathlib import Path

from tritoncfg.record import record
from tritoncfg.scaffold.spec import ScaffoldError

_SHOWN = 4  # model names an error lists


@record(frozen=True)
class Destination:
    repository: str  # where model folders go, relative to PATH ("." for PATH itself)
    project: bool  # whether the project's files (README, workflow, settings, deploy/) belong


def destination(root: Path, default_repository: str) -> Destination:
    """What PATH is: a project (its settings' repository, else `default_repository`), or a model
    repository (found by its models, or named by an enclosing project's settings). A model
    folder is refused."""
    from tritoncfg.repository.discover import is_model_dir
    from tritoncfg.settings import project_repository

    if not root.is_dir():
        return Destination(default_repository, True)
    if is_model_dir(root):
        raise ScaffoldError(
            f"{root} is a model folder (it has a config.pbtxt or a version folder), not a "
            f"project: give its repository, {root.parent}, to add a model beside it"
        )
    named = project_repository(root)
    if named != root:
        return Destination(_inside(root, named), True)
    if model_names(root) or _named_by_enclosing_project(root):
        return Destination(".", False)
    return Destination(default_repository, True)


def check_repository_request(root: Path, has_model: bool, deploy: str | None) -> None:
    """In a model repository `new` adds models only: refuse what would put other folders there."""
    if has_model and deploy is None:
        return
    models = model_names(root)
    shown = ", ".join(models[:_SHOWN]) + (", ..." if len(models) > _SHOWN else "")
    what = f"(models: {shown})" if models else "(its project's settings name it)"
    unwanted = "deploy/" if has_model else "a project (.github/, tritoncfg.toml, model_repository/)"
    raise ScaffoldError(
        f"{root} is a model repository {what}: writing {unwanted} into it would make Triton poll "
        f"those folders as models; add a model to it with --model NAME, or give a new folder for "
        "the project"
    )


def model_names(root: Path) -> list[str]:
    """The folders of `root` that are models (a config or a version folder), by name."""
    from tritoncfg.repository.discover import is_model_dir

    if not root.is_dir():
        return []
    return sorted(c.name for c in root.iterdir() if not c.is_symlink() and is_model_dir(c))


def _inside(root: Path, repository: Path) -> str:
    """The project's repository as a path under PATH; one outside it is refused."""
    try:
        relative = repository.resolve().relative_to(root.resolve())
    except ValueError:
        raise ScaffoldError(
            f"{root}: its settings name the repository {repository}, outside the project; "
            "`new` writes models only inside the project folder"
        ) from None
    return relative.as_posix()


def _named_by_enclosing_project(root: Path) -> bool:
    """Whether the settings of a project above PATH name PATH as their model repository."""
    from tritoncfg.settings import find_config, project_repository

    found = find_config(root.parent)
    if found is None:
        return False
    return project_repository(found.parent).resolve() == root.resolve()


__all__ = ["Destination", "check_repository_request", "destination", "model_names"]
