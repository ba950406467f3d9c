"""`--format gitlab`: a GitLab Code Quality report (`artifacts:reports:codequality`).

A JSON array, one issue per finding: `description`, `check_name` (the rule's code),
`fingerprint`, `severity` and `location` (`path`, `lines.begin`), the fields GitLab requires to
show an issue in the merge request widget and diff. GitLab matches issues between the base and
head pipelines by fingerprint alone, so a fingerprint has no line number in it (an edit above a
finding does not make it "new"), and identical findings in one file are told apart by their order.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tritoncfg.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report

# Code Quality's scale is info < minor < major < critical < blocker. An error is a model Triton
# refuses to load (critical); `blocker` is left for a project's own policy (severity overrides
# cannot reach it, as tritoncfg has three severities).
SEVERITIES = {Severity.ERROR: "critical", Severity.WARNING: "minor", Severity.INFO: "info"}


def project_path(path: str, project_dir: str | None) -> str:
    """The path as GitLab expects it: relative to the checkout (`CI_PROJECT_DIR` in a GitLab job),
    in POSIX form; a path outside it is kept as given."""
    if project_dir:
        base, target = Path(project_dir).resolve(), Path(path).resolve()
        if target.is_relative_to(base):
            return target.relative_to(base).as_posix()
    return Path(path).as_posix()


def _fingerprint(diagnostic: Diagnostic, path: str, seen: dict[str, int]) -> str:
    key = "\0".join((diagnostic.code, path, diagnostic.message))
    seen[key] = seen.get(key, 0) + 1
    return hashlib.sha256(f"{key}\0{seen[key]}".encode()).hexdigest()[:32]


def _description(diagnostic: Diagnostic) -> str:
    text = f"{diagnostic.code} {diagnostic.rule}: {diagnostic.message}"
    triton = diagnostic.triton
    if triton is not None and triton.message:
        text += f" (Triton, {triton.phase}: {triton.message})"
    return text


def _issue(diagnostic: Diagnostic, path: str, seen: dict[str, int]) -> dict[str, Any]:
    span = diagnostic.span
    begin = max(1, span.line)  # a finding about a directory (no line): its first line
    return {
        "description": _description(diagnostic),
        "check_name": diagnostic.code,
        "fingerprint": _fingerprint(diagnostic, path, seen),
        "severity": SEVERITIES[diagnostic.severity],
        "location": {"path": path, "lines": {"begin": begin, "end": max(begin, span.end_line)}},
    }


def render_gitlab(diagnostics: Iterable[Diagnostic], *, project_dir: str | None = None) -> str:
    """The report; `project_dir` defaults to `CI_PROJECT_DIR`, else paths are kept as given
    (make them relative to the checkout by running from its root)."""
    if project_dir is None:
        project_dir = os.environ.get("CI_PROJECT_DIR")
    seen: dict[str, int] = {}
    issues = [_issue(d, project_path(d.path, project_dir), seen) for d in diagnostics]
    return json.dumps(issues, indent=2)


def render(out: TextIO, report: Report) -> None:
    out.write(render_gitlab(report.diagnostics) + "\n")
