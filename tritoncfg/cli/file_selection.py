"""The file-selection options every command that walks a tree shares (lint, fmt), and the
selection of the other walking commands (complete, probe), from the project's settings. What is
left out is decided in tritoncfg/file_selection.py, for all of them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.cli.lint_options import typer_option
from tritoncfg.options.table import BY_KEY

if TYPE_CHECKING:
    from tritoncfg.checks.core.selection import PathFilters
    from tritoncfg.workspace import LoadedModel, Workspace

# lint's options (declared with the settings in tritoncfg/options/table.py), fmt's too
RESPECT_GITIGNORE = typer_option(BY_KEY["respect-gitignore"])
FORCE_EXCLUDE = typer_option(BY_KEY["force-exclude"])


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
