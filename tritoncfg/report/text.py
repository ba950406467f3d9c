"""`--format text`: diagnostics grouped by file, each with its source line and a caret (like ruff)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby

from rich.console import Console
from rich.markup import escape

from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text.span import FILE_START

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "bold blue"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 or word == "info" else "s")


def _snippet(console: Console, diagnostic: Diagnostic, lines: list[str]) -> None:
    span = diagnostic.span
    if span == FILE_START or not 1 <= span.line <= len(lines):
        return
    text = lines[span.line - 1].rstrip("\n").expandtabs(1)
    gutter = str(span.line)
    pad = " " * len(gutter)
    end = span.end_column if span.end_line == span.line else len(text) + 1
    width = max(1, end - span.column)
    console.print(f"[dim]{pad} |[/]")
    console.print(f"[dim]{gutter} |[/] {escape(text)}")
    console.print(
        f"[dim]{pad} |[/] {' ' * (span.column - 1)}[{_STYLE[diagnostic.severity]}]{'^' * width}[/]"
    )


def render_text(
    console: Console,
    diagnostics: list[Diagnostic],
    sources: Mapping[str, str],
    *,
    files: int,
    models: int,
) -> None:
    for path, group in groupby(diagnostics, key=lambda d: d.path):
        lines = sources[path].splitlines() if path in sources else []
        for d in group:
            style = _STYLE[d.severity]
            where = f"{d.path}:{d.span.line}:{d.span.column}" if lines else d.path
            console.print(
                f"[bold]{escape(where)}:[/] [{style}]{d.code}[/] "
                f"[{style}]{d.severity.value}[/] [dim]({d.rule})[/] {escape(d.message)}",
                soft_wrap=True,
            )
            _snippet(console, d, lines)
            if d.triton is not None and d.triton.message:
                console.print(
                    f"  [dim]= triton ({d.triton.phase}):[/] {escape(d.triton.message)}",
                    soft_wrap=True,
                )
        console.print()
    counts = {s: sum(d.severity is s for d in diagnostics) for s in Severity}
    scope = f"{_plural(models, 'model')}, {_plural(files, 'config file')}"
    if not diagnostics:
        console.print(f"[bold green]All checks passed[/] ({scope}).")
        return
    parts = ", ".join(_plural(counts[s], s.value) for s in Severity)
    verdict = "[bold red]Found[/]" if counts[Severity.ERROR] else "[bold yellow]Found[/]"
    console.print(f"{verdict} {parts} ({scope}).")
