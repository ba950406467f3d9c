"""`--format github`: GitHub Actions workflow commands, shown as annotations on the PR diff.

GitHub shows at most 10 annotations of each level per step (50 per job); the rest are dropped, so
CI that needs every finding should also upload SARIF.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text.span import NO_LINE

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """The message part (after `::`), escaped as the Actions runner expects."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A `key=value` property: `:` and `,` would end the value, so they are escaped too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(diagnostic: Diagnostic) -> str:
    span = diagnostic.span
    properties: dict[str, object] = {"file": diagnostic.path}
    if span != NO_LINE:  # a finding about a directory: an annotation on the path, no line
        properties.update(
            line=span.line,
            col=span.column,
            endLine=max(span.line, span.end_line),
            endColumn=span.end_column,
        )
    properties["title"] = f"{diagnostic.code} {diagnostic.rule}"
    listed = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = diagnostic.message
    if diagnostic.triton is not None and diagnostic.triton.message:
        message += f"\nTriton ({diagnostic.triton.phase}): {diagnostic.triton.message}"
    return f"::{COMMANDS[diagnostic.severity]} {listed}::{escape_data(message)}"


def render_github(diagnostics: Iterable[Diagnostic]) -> str:
    """One workflow command per diagnostic, in the order given. Paths are written as given: make
    them relative to the checkout (run from its root) so the annotations land on the diff."""
    lines = [_command(d) for d in diagnostics]
    return "".join(line + "\n" for line in lines)


def render(out: TextIO, report: Report) -> None:
    out.write(render_github(report.diagnostics))
