"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other static-analysis viewers.

The rule metadata (descriptions, help, doc links) comes from the rules themselves, so an alert on
GitHub shows the same documentation as `tritoncfg explain` and docs/rules.md.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from tritoncfg import __version__
from tritoncfg.checks.core.docs import anchor, rule_doc
from tritoncfg.checks.core.registry import Rule
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text.span import NO_LINE

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report
    from tritoncfg.report.provenance import VersionControl

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/tritoncfg/tritoncfg"
RULES_DOC_URI = "https://github.com/tritoncfg/tritoncfg/blob/main/docs/rules.md"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "tritoncfg/v1"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_FENCE = re.compile(r"^```\w*\n?", re.MULTILINE)


def _plain(markdown: str) -> str:
    """The rule doc as plain text: headings and code fences dropped, everything else kept."""
    return _FENCE.sub("", re.sub(r"^#+ ", "", markdown, flags=re.MULTILINE)).strip()


def _descriptor(rule: Rule) -> dict[str, Any]:
    sections = rule_doc(rule).sections
    tags = [rule.phase.lower().replace("_", "-")] + (["fixable"] if rule.fixable else [])
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": sections.get("What it does", rule.summary)},
        "help": {"text": _plain(rule.doc) or rule.summary, "markdown": rule.doc or rule.summary},
        "helpUri": f"{RULES_DOC_URI}#{anchor(rule)}",
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": tags},
    }


def _bare_descriptor(diagnostic: Diagnostic) -> dict[str, Any]:
    """For a code with no registered rule: what the diagnostic itself says about it."""
    return {
        "id": diagnostic.code,
        "name": diagnostic.rule,
        "defaultConfiguration": {"level": LEVELS[diagnostic.severity]},
    }


def _artifact(path: str, root: Path | None) -> dict[str, str]:
    """A relative `uri` under %SRCROOT% when the path is under `root` (or relative); else file://.
    A directory's URI ends in `/` (RFC 3986: what a relative reference inside it resolves from)."""
    target = Path(path)
    slash = "/" if target.is_dir() else ""
    if root is not None and target.resolve().is_relative_to(root.resolve()):
        target = target.resolve().relative_to(root.resolve())
    if target.is_absolute():
        return {"uri": target.as_uri() + slash}
    return {"uri": quote(target.as_posix(), safe="/") + slash, "uriBaseId": SRCROOT}


def _region(diagnostic: Diagnostic) -> dict[str, int]:
    # SARIF lines/columns are 1-based, the end column exclusive: the same as Span.
    span = diagnostic.span
    start_line, start_column = max(1, span.line), max(1, span.column)
    end_line = max(start_line, span.end_line)
    end_column = max(1, span.end_column)
    if end_line == start_line:
        end_column = max(start_column, end_column)
    return {
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def _location(diagnostic: Diagnostic, artifact: dict[str, str]) -> dict[str, Any]:
    """A finding about a directory (TC104, TC105) has no line: its location is the directory
    itself, without a region (SARIF allows it), and says so."""
    if diagnostic.span != NO_LINE:
        return {"physicalLocation": {"artifactLocation": artifact, "region": _region(diagnostic)}}
    kind = "directory" if artifact["uri"].endswith("/") else "file"
    return {
        "physicalLocation": {"artifactLocation": artifact},
        "message": {"text": f"The finding concerns the whole {kind}, not a line in it."},
    }


def _message(diagnostic: Diagnostic) -> str:
    triton = diagnostic.triton
    if triton is None or not triton.message:
        return diagnostic.message
    return f"{diagnostic.message}\n\nTriton ({triton.phase}): {triton.message}"


def _fingerprint(diagnostic: Diagnostic, uri: str, seen: dict[str, int]) -> str:
    """Stable across edits that move the finding (no line in it); `:n` tells identical ones apart,
    as GitHub's own primaryLocationLineHash does."""
    key = "\0".join((diagnostic.code, uri, diagnostic.message))
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    seen[digest] = seen.get(digest, 0) + 1
    return f"{digest}:{seen[digest]}"


def render_sarif(
    diagnostics: Iterable[Diagnostic],
    rules: Iterable[Rule],
    *,
    root: Path | None = None,
    version_control: VersionControl | None = None,
) -> str:
    """One SARIF run. `rules` is where rule metadata is looked up (e.g. `RULES.values()`); the
    driver lists the rules the results use, by code, as ruff does. `root` (the repository checked
    out by CI) makes artifact URIs relative to %SRCROOT%, which code scanning needs;
    `version_control` (provenance.find_version_control) says which commit was linted."""
    diagnostics = list(diagnostics)
    known = {rule.code: rule for rule in rules}
    used = sorted({d.code for d in diagnostics})
    first = {d.code: d for d in reversed(diagnostics)}
    descriptors = [
        _descriptor(known[code]) if code in known else _bare_descriptor(first[code])
        for code in used
    ]
    index = {code: i for i, code in enumerate(used)}
    seen: dict[str, int] = {}
    results = []
    for d in diagnostics:
        artifact = _artifact(d.path, root)
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": LEVELS[d.severity],
                "message": {"text": _message(d)},
                "locations": [_location(d, artifact)],
                "partialFingerprints": {FINGERPRINT_KEY: _fingerprint(d, artifact["uri"], seen)},
            }
        )
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "tritoncfg",
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": descriptors,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if version_control is not None:
        run["versionControlProvenance"] = [version_control.to_sarif(root)]
    if root is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": root.resolve().as_uri() + "/"}}
    document = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render(out: TextIO, report: Report) -> None:
    """The run's findings with the metadata of every rule, their URIs relative to the report's
    root, and the commit checked out there."""
    from tritoncfg.checks import RULES
    from tritoncfg.report.provenance import find_version_control

    root = report.root
    version_control = find_version_control(root) if root is not None else None
    sarif = render_sarif(
        report.diagnostics, RULES.values(), root=root, version_control=version_control
    )
    out.write(sarif + "\n")
