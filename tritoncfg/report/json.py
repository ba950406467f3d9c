"""`--format json`: the machine-readable contract of `tritoncfg lint`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from tritoncfg import __version__
from tritoncfg.diagnostics import Diagnostic

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report


def render_json(diagnostics: Sequence[Diagnostic], *, files: int, models: int) -> str:
    summary: dict[str, Any] = {"error": 0, "warning": 0, "info": 0}
    for diagnostic in diagnostics:
        summary[diagnostic.severity.value] += 1
    summary.update(files=files, models=models)
    document = {
        "tool": {"name": "tritoncfg", "version": __version__},
        "diagnostics": [d.to_json() for d in diagnostics],
        "summary": summary,
    }
    return json.dumps(document, indent=2)


def render(out: TextIO, report: Report) -> None:
    out.write(render_json(report.diagnostics, files=report.files, models=report.models) + "\n")
