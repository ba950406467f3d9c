"""`--format json-lines`: one JSON object per finding per line (JSON Lines), as ruff's json-lines.

Each object is a finding of the `--format json` contract (docs/cli.md), so a consumer can stream a
large run line by line; there is no summary line (the exit status says whether the run failed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from tritoncfg.diagnostics import Diagnostic

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report


def render_json_lines(out: TextIO, diagnostics: Iterable[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        # ensure_ascii: a U+2028 in a message cannot split a line for a reader that splits there
        out.write(json.dumps(diagnostic.to_json(), separators=(",", ":")) + "\n")


def render(out: TextIO, report: Report) -> None:
    render_json_lines(out, report.diagnostics)
