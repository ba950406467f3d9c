"""Probe respects lint: a model lint finds errors in (Triton would refuse to load it) is a FAIL
with lint's findings, never probed as if it loaded; and a `--suggest` snippet is linted in its
model's config before it is printed.

Lint runs with tritoncfg's defaults through the public API (`tritoncfg.api.lint`), as
`tritoncfg lint MODEL_DIR` does without a settings file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tritoncfg.diagnostics import Diagnostic

SHOWN = 5  # findings written into a reason; the rest are counted


def lint_errors(directory: Path, overrides: Mapping[str, str] | None = None) -> list[Diagnostic]:
    """lint's errors for the model in `directory` (with `overrides`: config path -> text that
    stands in for the file), in that directory only."""
    from tritoncfg.api import lint
    from tritoncfg.diagnostics import Severity

    result = lint(directory, overrides=overrides)
    inside = directory.resolve()
    return [
        d
        for d in result.diagnostics
        if d.severity is Severity.ERROR and Path(d.path).resolve().is_relative_to(inside)
    ]


def lint_refusal(directory: Path) -> str | None:
    """Why probe does not run the model in `directory`: lint's errors, or None."""
    found = lint_errors(directory)
    if not found:
        return None
    return f"lint finds errors (Triton would not load it): {describe(found)}"


def describe(findings: list[Diagnostic]) -> str:
    """`config.pbtxt:3:1: TC203 ...; ...` (the first few, then how many more)."""
    shown = "; ".join(_one(d) for d in findings[:SHOWN])
    more = len(findings) - SHOWN
    return shown + (f"; and {more} more (run `tritoncfg lint`)" if more > 0 else "")


def _one(finding: Diagnostic) -> str:
    where = _shown(finding.path)
    if finding.span.line > 0:
        where += f":{finding.span.line}:{finding.span.column}"
    return f"{where}: {finding.code} {finding.message}"


def _shown(path: str) -> str:
    absolute = Path(path).absolute()
    cwd = Path.cwd()
    return os.path.relpath(absolute, cwd) if absolute.is_relative_to(cwd) else path


__all__ = ["describe", "lint_errors", "lint_refusal"]
