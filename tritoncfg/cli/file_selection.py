"""The file-selection options every command that walks a tree shares (lint, fmt), and the
selection of the other walking commands (complete, probe), from the project's settings. What is
left out is decided in tritoncfg/file_selection.py, for all of them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from tritoncfg.checks.core.selection import PathFilters
    from tritoncfg.workspace import LoadedModel, Workspace

RESPECT_GITIGNORE = typer.Option(
    "--respect-gitignore/--no-respect-gitignore",
    help="Leave out what .gitignore files ignore, in a git work tree (default: on; setting "
    "respect-gitignore).",
    show_default=False,
)
FORCE_EXCLUDE = typer.Option(
    "--force-exclude/--no-force-exclude",
    help="Apply exclude and .gitignore to the paths given too (pre-commit passes file names; "
    "setting force-exclude).",
    show_default=False,
)


def selected_models(
    workspace: Workspace, filters: PathFilters, given: Sequence[Path]
) -> list[LoadedModel]:
    """The workspace's models that `filters` do not leave out: a model given by path (itself or
    a config file in it) is kept unless force-exclude; the models of a repository given are
    checked below it."""
    import os

    named = {
        Path(os.path.abspath(p)) for path in given for p in (path, path.parent, path.parent.parent)
    }
    return [
        m
        for m in workspace.models
        if not filters.excluded(m.dir.path, named=Path(os.path.abspath(m.dir.path)) in named)
    ]
