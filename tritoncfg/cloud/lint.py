"""Linting cloud repositories: stage each one locally, lint, and name findings by object URL."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.cloud.stage import Staged, stage
from tritoncfg.cloud.url import is_cloud, parse_url

if TYPE_CHECKING:
    from tritoncfg.api import LintResult
    from tritoncfg.diagnostics import Diagnostic


def _rename(diagnostic: Diagnostic, to_url: Callable[[str], str]) -> Diagnostic:
    triton = diagnostic.triton
    if triton is not None and triton.message is not None:
        triton = dataclasses.replace(triton, message=to_url(triton.message))
    return dataclasses.replace(
        diagnostic,
        path=to_url(diagnostic.path),
        message=to_url(diagnostic.message),
        triton=triton,
    )


def lint_staged(
    paths: Sequence[Path | str], lint_local: Callable[[list[Path | str]], LintResult]
) -> LintResult:
    """`lint_local` over `paths`, each cloud URL among them replaced by its staged copy.

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
        result = lint_local(local)

    def to_url(text: str) -> str:
        for one in staged:
            text = one.to_url(text)
        return text

    result.diagnostics = [_rename(d, to_url) for d in result.diagnostics]
    result.sources = {to_url(path): text for path, text in result.sources.items()}
    result.file_paths = [to_url(path) for path in result.file_paths]
    return result
