"""`--format concise`: one line per finding, `path:line:col: CODE message` (as ruff's concise),
with `[*]` before the message of a finding `--fix` would fix, as ruff marks it.

For grep, editors' quickfix lists and terminals too narrow for source snippets. A finding about a
directory (no line) is `path: CODE message`; a message's line breaks and control characters are
shown as their Unicode pictures, so each finding stays one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.report.text import summary_line, visible

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report


def concise_line(diagnostic: Diagnostic, *, marked: bool = False) -> str:
    d, span = diagnostic, diagnostic.span
    where = f"{d.path}:{span.line}:{span.column}" if span.line else d.path
    return visible(f"{where}: {d.code} {'[*] ' if marked else ''}{d.message}")


def render_concise(
    out: TextIO,
    diagnostics: Iterable[Diagnostic],
    fixable: Callable[[Diagnostic], bool] | None = None,
) -> None:
    """`fixable`: which findings `--fix` would fix, marked `[*]`."""
    for d in diagnostics:  # written one by one: a huge run is not held twice
        out.write(concise_line(d, marked=fixable is not None and fixable(d)) + "\n")


def render(out: TextIO, report: Report) -> None:
    """The lines, then the text format's verdict (not with -q)."""
    render_concise(out, report.diagnostics, fixable=report.fixable)
    if report.summary:
        out.write(
            summary_line(
                report.diagnostics, files=report.files, models=report.models, color=report.color
            )
        )
