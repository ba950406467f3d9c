"""`--format text`: diagnostics grouped by file, each with its source line and a caret (like ruff).

Written with plain ANSI styles rather than Rich: lint runs in pre-commit hooks, where Rich's import
alone would be a fifth of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, TextIO

from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text.span import FILE_START

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report

_CODES = {"bold": "1", "dim": "2", "red": "1;31", "yellow": "1;33", "blue": "1;34", "green": "1;32"}
_SEVERITY_STYLE = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "blue"}


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        return f"\x1b[{_CODES[style]}m{text}\x1b[0m" if self.color else text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 or word == "info" else "s")


# Control characters (a NUL, an escape sequence in a model name) are shown as their Unicode
# pictures, one column each, so a hostile config cannot garble the terminal or shift the caret.
_VISIBLE = {code: 0x2400 + code for code in range(32)} | {0x7F: 0x2421}
SNIPPET_WIDTH = 160  # a longer source line is shown as a window around the finding


def visible(text: str) -> str:
    # a printable text has no control character to replace (isprintable runs at C speed; a
    # report shows a message and a source line per finding)
    return text if text.isprintable() else text.translate(_VISIBLE)


def _snippet(paint: _Painter, diagnostic: Diagnostic, lines: list[str]) -> list[str]:
    span = diagnostic.span
    if span == FILE_START or not 1 <= span.line <= len(lines):
        return []
    text = lines[span.line - 1].rstrip("\r").expandtabs(1)
    gutter = str(span.line)
    pad = " " * len(gutter)
    end = span.end_column if span.end_line == span.line else len(text) + 1
    column = span.column
    if len(text) > SNIPPET_WIDTH:
        start = max(0, min(column - 1 - SNIPPET_WIDTH // 3, len(text) - SNIPPET_WIDTH))
        head = "…" if start else ""
        tail = "…" if start + SNIPPET_WIDTH < len(text) else ""
        text = head + text[start : start + SNIPPET_WIDTH] + tail
        column = column - start + len(head)
        end = min(end - start + len(head), len(text) + 1)
    text = visible(text)
    carets = "^" * max(1, end - column)
    style = _SEVERITY_STYLE[diagnostic.severity]
    return [
        paint("dim", f"{pad} |"),
        f"{paint('dim', f'{gutter} |')} {text}",
        f"{paint('dim', f'{pad} |')} {' ' * (column - 1)}{paint(style, carets)}",
    ]


def render_text(
    out: TextIO,
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, str],
    *,
    files: int,
    models: int,
    color: bool = False,
    summary: bool = True,
    fixable: Callable[[Diagnostic], bool] | None = None,
) -> None:
    """`fixable`: which findings `--fix` would fix, shown with `[*]` before the message (ruff's
    marker)."""
    paint = _Painter(color)
    # written finding by finding, not gathered first: a file of 100,000 errors gives 30 MB of
    # text, which a list of its lines and their join held three times over
    separator = ""  # the blank line after a file's findings, written before what follows
    for path, group in groupby(diagnostics, key=lambda d: d.path):
        # split as the lexer does: only "\n" ends a line
        lines = sources[path].split("\n") if path in sources else []
        out.write(separator)
        for d in group:
            marked = fixable is not None and fixable(d)
            out.write("\n".join(_finding_lines(paint, d, lines, marked)) + "\n")
        separator = "\n"
    if summary:
        out.write(separator + summary_line(diagnostics, files=files, models=models, color=color))


def summary_line(diagnostics: Sequence[Diagnostic], *, files: int, models: int, color: bool) -> str:
    """The verdict that ends the text report: `Found 1 error, ... (2 models, 2 config files).`"""
    paint = _Painter(color)
    counts = {s: sum(d.severity is s for d in diagnostics) for s in Severity}
    scope = f"{_plural(models, 'model')}, {_plural(files, 'config file')}"
    if not diagnostics:
        return f"{paint('green', 'All checks passed')} ({scope}).\n"
    parts = ", ".join(_plural(counts[s], s.value) for s in Severity)
    found = paint("red" if counts[Severity.ERROR] else "yellow", "Found")
    return f"{found} {parts} ({scope}).\n"


def _finding_lines(
    paint: _Painter, d: Diagnostic, lines: list[str], marked: bool = False
) -> list[str]:
    """A finding's lines: where and what, its source line with a caret, Triton's message."""
    style = _SEVERITY_STYLE[d.severity]
    # a position in a file whose text is not at hand (invalid UTF-8) is still shown
    placed = d.span.line and (lines or d.span != FILE_START)
    where = f"{d.path}:{d.span.line}:{d.span.column}" if placed else d.path
    found = [
        f"{paint('bold', where + ':')} {paint(style, d.code)} {paint(style, d.severity.value)} "
        f"{paint('dim', f'({d.rule})')} {'[*] ' if marked else ''}{visible(d.message)}",
        *_snippet(paint, d, lines),
    ]
    if d.triton is not None and d.triton.message:
        found.append(
            f"  {paint('dim', f'= triton ({d.triton.phase}):')} {visible(d.triton.message)}"
        )
    return found


def render(out: TextIO, report: Report) -> None:
    render_text(
        out,
        report.diagnostics,
        report.sources,
        files=report.files,
        models=report.models,
        color=report.color,
        summary=report.summary,
        fixable=report.fixable,
    )
