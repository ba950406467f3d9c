"""Diagnostics: what every check produces and every renderer consumes."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from tritoncfg.record import record
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span


@record(frozen=True)
class Fix:
    """Edits that resolve a diagnostic. Safe fixes keep behaviour; unsafe ones may change it."""

    description: str
    edits: tuple[Edit, ...]
    safe: bool = True


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@record(frozen=True)
class TritonVerdict:
    """What Triton itself does with the same problem: its pipeline phase and logged text."""

    phase: str
    message: str | None


@record(frozen=True)
class Diagnostic:
    code: str  # "TC" + 3 digits
    rule: str  # kebab-case rule name
    severity: Severity
    message: str  # what is wrong and what to do, in tritoncfg's words
    path: str  # the file (or directory) the span is in
    span: Span
    model: str | None = None
    triton: TritonVerdict | None = None
    fix: Fix | None = None

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)

    def moved(self, path: str) -> Diagnostic:
        """The same finding named by `path` (a report's relative path): `dataclasses.replace`
        without its per-call field walk, for reports of thousands of findings."""
        return Diagnostic(
            self.code, self.rule, self.severity, self.message, path, self.span, self.model,
            self.triton, self.fix,
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        positioned = self.span.line > 0  # 0: a finding about a directory, no line (NO_LINE)
        return {
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "path": self.path,
            "line": self.span.line if positioned else None,
            "column": self.span.column if positioned else None,
            "end_line": self.span.end_line if positioned else None,
            "end_column": self.span.end_column if positioned else None,
            "model": self.model,
            "triton": None
            if self.triton is None
            else {"phase": self.triton.phase, "message": self.triton.message},
        }
