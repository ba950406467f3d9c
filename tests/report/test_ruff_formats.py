"""The formats ruff has and tritoncfg took (concise, json-lines, gitlab) and `--statistics`,
rendered from the diagnostics of a real lint and from hand-made ones that stress the format."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import jsonschema
import pytest
from lintkit import make_model

from tritoncfg.api import LintResult, lint
from tritoncfg.diagnostics import Diagnostic, Fix, Severity
from tritoncfg.report.concise import render_concise
from tritoncfg.report.gitlab import render_gitlab
from tritoncfg.report.jsonlines import render_json_lines
from tritoncfg.report.statistics import render_statistics, render_statistics_json, rule_counts
from tritoncfg.text.span import NO_LINE, Span

PYTHON_MODEL = {"1/model.py": "# never executed\n"}
# two parse errors (TC002, TC005) and TC009 in one model, a clean model beside it
BROKEN = (
    'name: "bad"\nbackend: "python"\nmax_batch_sise: 8\ninstance_group [ { kind: KIND_GPUS } ]\n'
)
CLEAN = 'name: "clean"\nbackend: "python"\n'
MULTILINE = Diagnostic(
    "TC999",
    "made-up",
    Severity.WARNING,
    "first\nsecond\r\x1b[31m",
    "m/config.pbtxt",
    Span(3, 5, 3, 9),
)
ON_A_DIRECTORY = Diagnostic("TC104", "made-up-dir", Severity.ERROR, "no versions", "m", NO_LINE)

# GitLab's Code Quality report, as its docs list the fields an issue needs to be shown
# (docs.gitlab.com, "Code Quality report format"): an array of issues; severity one of five.
CODE_QUALITY_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


@pytest.fixture(scope="module")
def linted(tmp_path_factory: pytest.TempPathFactory) -> LintResult:
    repo = tmp_path_factory.mktemp("checkout") / "models"
    make_model(repo, "bad", BROKEN, files=PYTHON_MODEL)
    make_model(repo, "clean", CLEAN, files=PYTHON_MODEL)
    result = lint(repo)
    assert {d.code for d in result.diagnostics} == {"TC002", "TC005", "TC009"}
    return result


def _concise(diagnostics: list[Diagnostic]) -> list[str]:
    out = io.StringIO()
    render_concise(out, diagnostics)
    return out.getvalue().splitlines()


def test_concise_is_one_line_per_finding_path_line_col_code_message(linted: LintResult) -> None:
    lines = _concise(linted.diagnostics)
    assert len(lines) == len(linted.diagnostics)
    for line, d in zip(lines, linted.diagnostics, strict=True):
        assert line == f"{d.path}:{d.span.line}:{d.span.column}: {d.code} {d.message}"
    assert any(":3:1: TC002 " in line for line in lines)


def test_concise_keeps_a_multiline_message_and_a_directory_finding_on_one_line_each() -> None:
    lines = _concise([MULTILINE, ON_A_DIRECTORY])
    assert lines == ["m/config.pbtxt:3:5: TC999 first␊second␍␛[31m", "m: TC104 no versions"]


def test_json_lines_is_the_json_contract_one_finding_per_line(linted: LintResult) -> None:
    out = io.StringIO()
    render_json_lines(out, [*linted.diagnostics, MULTILINE])
    lines = out.getvalue().split("\n")
    assert lines[-1] == ""  # every object ends with a newline, none is split by its message
    parsed = [json.loads(line) for line in lines[:-1]]
    assert parsed == [d.to_json() for d in [*linted.diagnostics, MULTILINE]]


def test_gitlab_report_has_what_code_quality_requires(linted: LintResult) -> None:
    report = json.loads(render_gitlab([*linted.diagnostics, ON_A_DIRECTORY], project_dir=""))
    jsonschema.Draft202012Validator(CODE_QUALITY_SCHEMA).validate(report)
    issues = dict(zip((d.code for d in linted.diagnostics), report, strict=False))
    assert issues["TC002"]["check_name"] == "TC002"
    assert issues["TC002"]["description"].startswith("TC002 unknown-field: Message type")
    assert issues["TC002"]["severity"] == "critical"
    assert issues["TC009"]["severity"] == "info"
    assert issues["TC002"]["location"]["lines"] == {"begin": 3, "end": 3}
    assert report[-1]["location"] == {"path": "m", "lines": {"begin": 1, "end": 1}}
    assert json.loads(render_gitlab([])) == []
    assert json.loads(render_gitlab([MULTILINE]))[0]["severity"] == "minor"


def test_gitlab_fingerprints_are_unique_and_survive_a_move(linted: LintResult) -> None:
    def prints(diagnostics: list[Diagnostic]) -> list[str]:
        return [issue["fingerprint"] for issue in json.loads(render_gitlab(diagnostics))]

    twice = linted.diagnostics + linted.diagnostics  # identical findings: told apart by order
    assert len(set(prints(twice))) == len(twice)
    moved = [
        Diagnostic(d.code, d.rule, d.severity, d.message, d.path, Span(d.span.line + 5, 1, 9, 1))
        for d in linted.diagnostics
    ]
    assert prints(moved) == prints(linted.diagnostics)
    reworded = [dataclasses.replace(d, message=d.message + "!") for d in moved]
    assert not set(prints(reworded)) & set(prints(moved))


def test_gitlab_paths_are_relative_to_the_gitlab_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = Diagnostic(
        "TC999", "x", Severity.INFO, "m", str(tmp_path / "models/a/config.pbtxt"), Span(1, 1, 1, 2)
    )
    outside = Diagnostic(
        "TC999", "x", Severity.INFO, "m", "/elsewhere/config.pbtxt", Span(1, 1, 1, 2)
    )
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    paths = [issue["location"]["path"] for issue in json.loads(render_gitlab([inside, outside]))]
    assert paths == ["models/a/config.pbtxt", "/elsewhere/config.pbtxt"]
    monkeypatch.delenv("CI_PROJECT_DIR")
    assert json.loads(render_gitlab([inside]))[0]["location"]["path"] == inside.path


def _fixable(code: str, safe: bool | None) -> Diagnostic:
    fix = None if safe is None else Fix("change it", (), safe=safe)
    return Diagnostic(
        code, f"rule-{code}", Severity.ERROR, "m", "c.pbtxt", Span(1, 1, 1, 2), fix=fix
    )


def test_statistics_count_per_rule_most_frequent_first_with_ruffs_keys() -> None:
    found = [_fixable("TC002", None), *[_fixable("TC005", True)] * 3, _fixable("TC003", False)]
    found += [_fixable("TC003", True)]
    counts = rule_counts(found)
    assert json.loads(render_statistics_json(counts)) == [
        {"code": "TC005", "name": "rule-TC005", "count": 3, "fixable": True, "fixable_count": 3},
        {"code": "TC003", "name": "rule-TC003", "count": 2, "fixable": False, "fixable_count": 1},
        {"code": "TC002", "name": "rule-TC002", "count": 1, "fixable": False, "fixable_count": 0},
    ]
    unsafe = {c.code: c.fixable for c in rule_counts(found, unsafe=True)}
    assert unsafe == {"TC005": True, "TC003": True, "TC002": False}
    out = io.StringIO()
    render_statistics(out, counts)
    assert out.getvalue().splitlines() == [
        "3  TC005  error    [*] rule-TC005",
        "2  TC003  error    [-] rule-TC003",
        "1  TC002  error    [ ] rule-TC002",
    ]


def test_statistics_table_has_no_fix_marker_when_no_rule_has_fixes(linted: LintResult) -> None:
    out = io.StringIO()
    unfixable = [d for d in linted.diagnostics if d.fix is None]
    render_statistics(out, rule_counts(unfixable))
    rows = [line.split() for line in out.getvalue().splitlines()]
    assert rows == [
        ["1", d.code, d.severity.value, d.rule] for d in sorted(unfixable, key=lambda d: d.code)
    ]
    assert json.loads(render_statistics_json([])) == []
