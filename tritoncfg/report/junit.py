"""`--format junit`: one test case per linted file, for CI systems that show JUnit reports.

The report agrees with lint's exit status: a test case fails exactly when its findings would make
lint exit 1 (an error, or a warning with `--warnings-as-errors`). A failing case has one
`<failure>` whose body lists all of its failing findings; every other finding (warnings of a run
that passes, info) goes to the case's `<system-out>`, visible without failing the case.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from tritoncfg.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report

# Characters XML 1.0 cannot carry at all (ANSI escapes, NUL ...): dropped rather than emitted.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def _line(diagnostic: Diagnostic) -> str:
    d, span = diagnostic, diagnostic.span
    where = f"{d.path}:{span.line}:{span.column}" if span.line else d.path
    text = f"{where}: {d.severity.value} {d.code} {d.rule}: {d.message}"
    if d.triton is not None and d.triton.message:
        text += f"\n  = triton ({d.triton.phase}): {d.triton.message}"
    return _clean(text)


def _fails(diagnostic: Diagnostic, warnings_as_errors: bool) -> bool:
    """Whether the finding makes lint exit 1, as `tritoncfg lint` decides its exit status."""
    if diagnostic.severity is Severity.ERROR:
        return True
    return warnings_as_errors and diagnostic.severity is Severity.WARNING


def _summary(failing: list[Diagnostic]) -> str:
    first = failing[0]
    if len(failing) == 1:
        return _clean(f"{first.code} {first.rule}: {first.message}")
    codes = ", ".join(dict.fromkeys(d.code for d in failing))
    return _clean(f"{len(failing)} findings: {codes}")


def _testcase(
    suite: ET.Element, path: str, diagnostics: list[Diagnostic], warnings_as_errors: bool
) -> bool:
    """Add the file's test case; whether it failed."""
    case = ET.SubElement(suite, "testcase", classname=f"tritoncfg.{path}", name=path)
    failing = [d for d in diagnostics if _fails(d, warnings_as_errors)]
    if failing:
        failure = ET.SubElement(case, "failure", type=failing[0].code, message=_summary(failing))
        failure.text = "\n".join(_line(d) for d in failing) + "\n"
    others = [_line(d) for d in diagnostics if not _fails(d, warnings_as_errors)]
    if others:
        ET.SubElement(case, "system-out").text = "\n".join(others) + "\n"
    return bool(failing)


def render_junit(
    diagnostics: Iterable[Diagnostic], *, files: list[str], warnings_as_errors: bool = False
) -> str:
    """`files` are the linted files, each a test case even when clean. A diagnostic on a path not
    among them (a model directory, a missing config) gets a test case of its own, after them.
    `failures` counts failing test cases, so tests - failures is the number that passed."""
    by_path: dict[str, list[Diagnostic]] = {path: [] for path in files}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    suite = ET.Element("testsuite", name="tritoncfg")
    failed = sum(
        _testcase(suite, path, found, warnings_as_errors) for path, found in by_path.items()
    )
    suite.attrib.update(tests=str(len(by_path)), failures=str(failed), errors="0", skipped="0")
    ET.indent(suite)
    body = ET.tostring(suite, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def render(out: TextIO, report: Report) -> None:
    junit = render_junit(
        report.diagnostics,
        files=list(report.file_paths),
        warnings_as_errors=report.warnings_as_errors,
    )
    out.write(junit + "\n")
