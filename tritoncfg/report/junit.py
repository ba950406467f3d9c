"""`--format junit`: one test case per linted file, for CI systems that show JUnit reports.

A file passes when it has no error or warning; each such finding is one `<failure>` of its test
case, and info findings go to the case's `<system-out>`, so they are visible without failing it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from tritoncfg.diagnostics import Diagnostic, Severity

# Characters XML 1.0 cannot carry at all (ANSI escapes, NUL ...): dropped rather than emitted.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def _line(diagnostic: Diagnostic) -> str:
    d, span = diagnostic, diagnostic.span
    text = f"{d.path}:{span.line}:{span.column}: {d.severity.value} {d.code} {d.rule}: {d.message}"
    if d.triton is not None and d.triton.message:
        text += f"\n  = triton ({d.triton.phase}): {d.triton.message}"
    return _clean(text)


def _testcase(suite: ET.Element, path: str, diagnostics: list[Diagnostic]) -> bool:
    """Add the file's test case; whether it failed."""
    case = ET.SubElement(suite, "testcase", classname=f"tritoncfg.{path}", name=path)
    failing = [d for d in diagnostics if d.severity is not Severity.INFO]
    for d in failing:
        failure = ET.SubElement(
            case, "failure", type=d.code, message=_clean(f"{d.code} {d.rule}: {d.message}")
        )
        failure.text = _line(d)
    infos = [_line(d) for d in diagnostics if d.severity is Severity.INFO]
    if infos:
        ET.SubElement(case, "system-out").text = "\n".join(infos) + "\n"
    return bool(failing)


def render_junit(diagnostics: Iterable[Diagnostic], *, files: list[str]) -> str:
    """`files` are the linted files, each a test case even when clean. A diagnostic on a path not
    among them (a model directory, a missing config) gets a test case of its own, after them.
    `failures` counts failing test cases, so tests - failures is the number that passed."""
    by_path: dict[str, list[Diagnostic]] = {path: [] for path in files}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    suite = ET.Element("testsuite", name="tritoncfg")
    failed = sum(_testcase(suite, path, found) for path, found in by_path.items())
    suite.attrib.update(tests=str(len(by_path)), failures=str(failed), errors="0", skipped="0")
    ET.indent(suite)
    body = ET.tostring(suite, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
