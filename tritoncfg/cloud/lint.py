"""Linting cloud repositories: stage each one locally, lint, and name findings by object URL."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from tritoncfg.cloud.stage import Staged, stage
from tritoncfg.cloud.url import is_cloud, parse_url

T = TypeVar("T")


def lint_staged(
    paths: Sequence[Path | str], lint_local: Callable[[list[Path | str], Callable[[str], str]], T]
) -> T:
    """`lint_local(local, to_url)` over `paths`, each cloud URL among them replaced by its staged
    copy; `to_url` writes a staged path (in a path or a message) as its object URL. It runs
    while the copies exist (a finding's config text is read from there).

    Raises CloudUrlError or CloudError when a repository cannot be read."""
    with tempfile.TemporaryDirectory(prefix="tritoncfg-cloud-") as temp:
        staged: list[Staged] = []
        local: list[Path | str] = []
        for index, path in enumerate(paths):
            if is_cloud(path):
                assert isinstance(path, str)
                staged.append(stage(parse_url(path), Path(temp) / str(index)))
                local.append(staged[-1].local)
            else:
                local.append(path)

        def to_url(text: str) -> str:
            for one in staged:
                text = one.to_url(text)
            return text

        return lint_local(local, to_url)
