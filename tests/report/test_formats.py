"""The CI output formats (SARIF, GitHub workflow commands, JUnit), on diagnostics of a real lint."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.api import LintResult, lint
from tritoncfg.checks import RULES
from tritoncfg.diagnostics import Diagnostic, Severity, TritonVerdict
from tritoncfg.report.github import render_github
from tritoncfg.report.junit import render_junit
from tritoncfg.report.sarif import render_sarif
from tritoncfg.report.sarif_schema import SARIF_SCHEMA_SUBSET
from tritoncfg.text.span import Span

PYTHON_MODEL = {"1/model.py": "# never executed\n"}
CLEAN = """name: "clean"
backend: "python"
max_batch_size: 4
dynamic_batching { }
input [{ name: "x" data_type: TYPE_FP32 dims: [1] }]
output [{ name: "y" data_type: TYPE_FP32 dims: [1] }]
"""
UNKNOWN_FIELD = CLEAN.replace('"clean"', '"bad_field"') + "max_batch_sise: 8\n"
UNKNOWN_ENUM = CLEAN.replace('"clean"', '"bad_enum"').replace("TYPE_FP32", "TYPE_FLOATY", 1)
TRICKY = Diagnostic(
    code="TC999",
    rule="made-up",
    severity=Severity.WARNING,
    message="100% sure: a, b\nsecond line\r",
    path="models/odd, name:x/config.pbtxt",
    span=Span(3, 5, 4, 2),
)


@pytest.fixture(scope="module")
def linted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, LintResult]:
    root = tmp_path_factory.mktemp("checkout")
    repo = root / "models"
    make_model(repo, "bad_field", UNKNOWN_FIELD, files=PYTHON_MODEL)
    make_model(repo, "bad_enum", UNKNOWN_ENUM, files=PYTHON_MODEL)
    make_model(repo, "clean", CLEAN, files=PYTHON_MODEL)
    return root, lint(repo)


def _by_code(diagnostics: list[Diagnostic]) -> dict[str, Diagnostic]:
    return {d.code: d for d in diagnostics}


def test_the_fixture_has_one_unknown_field_one_unknown_enum_and_a_clean_model(
    linted: tuple[Path, LintResult],
) -> None:
    _, result = linted
    found = {(Path(d.path).parent.name, d.code) for d in result.diagnostics}
    assert ("bad_field", "TC002") in found
    assert ("bad_enum", "TC005") in found
    assert not any(Path(d.path).parent.name == "clean" for d in result.diagnostics)
    assert {d.severity for d in result.diagnostics} >= {Severity.ERROR, Severity.INFO}


# --- SARIF -------------------------------------------------------------------------------------


def test_sarif_is_valid_against_the_subset_schema(linted: tuple[Path, LintResult]) -> None:
    root, result = linted
    jsonschema.Draft202012Validator.check_schema(SARIF_SCHEMA_SUBSET)
    document = json.loads(render_sarif(result.diagnostics, RULES.values(), root=root))
    jsonschema.Draft202012Validator(SARIF_SCHEMA_SUBSET).validate(document)
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert document["version"] == "2.1.0"


def _first_result(document: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = document["runs"][0]["results"][0]
    return result


def _location(document: dict[str, Any]) -> dict[str, Any]:
    location: dict[str, Any] = _first_result(document)["locations"][0]["physicalLocation"]
    return location


BREAKAGES: dict[str, Callable[[dict[str, Any]], object]] = {
    "no ruleId": lambda doc: _first_result(doc).pop("ruleId"),
    "no message text": lambda doc: _first_result(doc)["message"].pop("text"),
    "no locations": lambda doc: _first_result(doc).pop("locations"),
    "line 0": lambda doc: _location(doc)["region"].update(startLine=0),
    "no uri": lambda doc: _location(doc)["artifactLocation"].pop("uri"),
    "unknown level": lambda doc: _first_result(doc).update(level="fatal"),
    "misspelt key": lambda doc: _first_result(doc).update(ruleIdd="TC002"),
    "other version": lambda doc: doc.update(version="2.0.0"),
    "no driver name": lambda doc: doc["runs"][0]["tool"]["driver"].pop("name"),
    "no rule id": lambda doc: doc["runs"][0]["tool"]["driver"]["rules"][0].pop("id"),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_the_subset_schema_rejects_what_code_scanning_rejects(
    linted: tuple[Path, LintResult], breakage: str
) -> None:
    root, result = linted
    document = json.loads(render_sarif(result.diagnostics, RULES.values(), root=root))
    BREAKAGES[breakage](document)
    assert not jsonschema.Draft202012Validator(SARIF_SCHEMA_SUBSET).is_valid(document)


def test_sarif_has_what_github_code_scanning_requires(linted: tuple[Path, LintResult]) -> None:
    root, result = linted
    run = json.loads(render_sarif(result.diagnostics, RULES.values(), root=root))["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "tritoncfg"
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(run["results"]) == len(result.diagnostics)
    for sarif_result, diagnostic in zip(run["results"], result.diagnostics, strict=True):
        assert sarif_result["ruleId"] in rule_ids
        assert rule_ids[sarif_result["ruleIndex"]] == sarif_result["ruleId"]
        assert sarif_result["message"]["text"].startswith(diagnostic.message)
        location = sarif_result["locations"][0]["physicalLocation"]
        uri = location["artifactLocation"]["uri"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not uri.startswith("/") and "\\" not in uri and ":" not in uri
        assert uri == Path(diagnostic.path).relative_to(root).as_posix()
        region = location["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (
            region["startLine"],
            region["startColumn"],
        )
        assert region["startLine"] == diagnostic.span.line
        assert region["startColumn"] == diagnostic.span.column
        assert sarif_result["partialFingerprints"]


def test_sarif_levels_and_rule_metadata(linted: tuple[Path, LintResult]) -> None:
    root, result = linted
    run = json.loads(render_sarif(result.diagnostics, RULES.values(), root=root))["runs"][0]
    expected = {"error": "error", "warning": "warning", "info": "note"}
    for sarif_result, diagnostic in zip(run["results"], result.diagnostics, strict=True):
        assert sarif_result["level"] == expected[diagnostic.severity.value]
    assert "note" in {r["level"] for r in run["results"]}
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert set(rules) == {d.code for d in result.diagnostics}
    unknown_field = rules["TC002"]
    assert unknown_field["name"] == "unknown-field"
    assert unknown_field["shortDescription"]["text"] == RULES["TC002"].summary
    assert unknown_field["fullDescription"]["text"].startswith("Reports a field name")
    assert unknown_field["helpUri"].endswith("docs/rules.md#tc002-unknown-field")
    assert "## Why it matters" in unknown_field["help"]["markdown"]
    assert "##" not in unknown_field["help"]["text"] and "```" not in unknown_field["help"]["text"]
    assert unknown_field["defaultConfiguration"]["level"] == "error"


def test_sarif_message_carries_the_triton_message() -> None:
    verdict = TritonVerdict("VALIDATE", "max_batch_size must be non-negative")
    diagnostic = Diagnostic(
        "TC999", "made-up", Severity.ERROR, "wrong", "m/config.pbtxt", Span.point(), triton=verdict
    )
    run = json.loads(render_sarif([diagnostic], []))["runs"][0]
    assert run["results"][0]["message"]["text"] == (
        "wrong\n\nTriton (VALIDATE): max_batch_size must be non-negative"
    )
    assert run["tool"]["driver"]["rules"] == [
        {"id": "TC999", "name": "made-up", "defaultConfiguration": {"level": "error"}}
    ]


def test_sarif_fingerprints_are_stable_and_distinct(
    linted: tuple[Path, LintResult], tmp_path: Path
) -> None:
    root, result = linted
    moved = [
        Diagnostic(d.code, d.rule, d.severity, d.message, d.path, Span(d.span.line + 3, 1, 9, 9))
        for d in result.diagnostics
    ]

    def prints(diagnostics: list[Diagnostic]) -> list[str]:
        run = json.loads(render_sarif(diagnostics, RULES.values(), root=root))["runs"][0]
        return [r["partialFingerprints"]["tritoncfg/v1"] for r in run["results"]]

    assert prints(result.diagnostics) == prints(moved)  # moving a finding keeps its alert
    assert len(set(prints(result.diagnostics + result.diagnostics))) == 2 * len(result.diagnostics)


def test_sarif_uri_outside_the_root_is_absolute(tmp_path: Path) -> None:
    diagnostic = Diagnostic(
        "TC999", "made-up", Severity.INFO, "x", str(tmp_path / "a b.pbtxt"), Span.point()
    )
    root = tmp_path / "elsewhere"
    artifact = json.loads(render_sarif([diagnostic], [], root=root))["runs"][0]["results"][0][
        "locations"
    ][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (tmp_path / "a b.pbtxt").as_uri()}


# --- GitHub workflow commands ------------------------------------------------------------------

COMMAND = re.compile(r"^::(?P<level>error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def _unescape(text: str) -> str:
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    props = dict(prop.split("=", 1) for prop in match["props"].split(","))
    return match["level"], {k: _unescape(v) for k, v in props.items()}, _unescape(match["message"])


def test_github_commands_round_trip(linted: tuple[Path, LintResult]) -> None:
    _, result = linted
    diagnostics = [*result.diagnostics, TRICKY]
    output = render_github(diagnostics)
    lines = output.splitlines()
    assert output.endswith("\n") and len(lines) == len(diagnostics)
    levels = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for line, d in zip(lines, diagnostics, strict=True):
        level, props, message = _parse_command(line)
        assert level == levels[d.severity]
        assert props == {
            "file": d.path,
            "line": str(d.span.line),
            "col": str(d.span.column),
            "endLine": str(d.span.end_line),
            "endColumn": str(d.span.end_column),
            "title": f"{d.code} {d.rule}",
        }
        assert message.split("\nTriton (")[0] == d.message
        if d.triton is not None and d.triton.message:
            assert message.endswith(f"\nTriton ({d.triton.phase}): {d.triton.message}")


def test_github_escapes_data_and_properties() -> None:
    (line,) = render_github([TRICKY]).splitlines()
    assert line == (
        "::warning file=models/odd%2C name%3Ax/config.pbtxt,line=3,col=5,endLine=4,endColumn=2,"
        "title=TC999 made-up::100%25 sure: a, b%0Asecond line%0D"
    )
    assert render_github([]) == ""


# --- JUnit -------------------------------------------------------------------------------------


def test_junit_has_one_case_per_file(linted: tuple[Path, LintResult]) -> None:
    _, result = linted
    files = sorted(result.sources)
    output = render_junit(result.diagnostics, files=files)
    assert output.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    suite = ET.fromstring(output.encode("utf-8"))
    assert suite.tag == "testsuite" and suite.get("name") == "tritoncfg"
    cases = {case.get("name", ""): case for case in suite.iter("testcase")}
    assert sorted(cases) == files
    assert suite.attrib | {"name": ""} == {
        "name": "",
        "tests": "3",
        "failures": "2",
        "errors": "0",
        "skipped": "0",
    }
    for path, case in cases.items():
        assert case.get("classname") == f"tritoncfg.{path}"
        failing = [d for d in result.diagnostics if d.path == path and d.severity.rank < 2]
        failures = case.findall("failure")
        assert [f.get("type") for f in failures] == [d.code for d in failing]
        for failure, d in zip(failures, failing, strict=True):
            assert failure.get("message") == f"{d.code} {d.rule}: {d.message}"
            assert (failure.text or "").startswith(
                f"{d.path}:{d.span.line}:{d.span.column}: {d.severity.value} {d.code} {d.rule}: "
            )
        infos = [d for d in result.diagnostics if d.path == path and d.severity is Severity.INFO]
        out = case.find("system-out")
        if infos:
            assert out is not None and all(d.code in (out.text or "") for d in infos)
        else:
            assert out is None
    clean = next(case for path, case in cases.items() if "/clean/" in path)
    assert list(clean) == []  # a passing test case: no failure, no output
    codes = {f.get("type") for f in suite.iter("failure")}
    assert codes == {"TC002", "TC005"}


def test_junit_adds_a_case_for_findings_outside_the_files() -> None:
    output = render_junit([TRICKY], files=["a/config.pbtxt"], warnings_as_errors=True)
    suite = ET.fromstring(output.encode("utf-8"))
    assert [case.get("name") for case in suite.iter("testcase")] == [
        "a/config.pbtxt",
        TRICKY.path,
    ]
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failure = suite.find("testcase/failure")
    assert failure is not None
    assert failure.get("message") == f"TC999 made-up: {TRICKY.message}"


WARNING_ONLY = """name: "warned"
backend: "python"
max_batch_size: 4
input [{ name: "x" data_type: TYPE_FP32 dims: [1] }]
output [{ name: "y" data_type: TYPE_FP32 dims: [1] }]
"""


@pytest.mark.parametrize("strict", [False, True], ids=["default", "warnings-as-errors"])
def test_junit_fails_a_case_exactly_when_lint_exits_1(tmp_path: Path, strict: bool) -> None:
    repo = tmp_path / "models"
    make_model(repo, "warned", WARNING_ONLY, files=PYTHON_MODEL)
    flag = ["--warnings-as-errors"] if strict else []
    result = run("lint", "--format", "junit", *flag, str(repo))
    suite = ET.fromstring(result.stdout.encode("utf-8"))
    warned = [c for c in suite.iter("testcase") if "/warned/" in (c.get("name") or "")]
    assert len(warned) == 1 and "TC903" in ET.tostring(warned[0], encoding="unicode")
    assert result.returncode == (1 if strict else 0)
    failures = list(suite.iter("failure"))
    if not strict:
        assert failures == [] and suite.get("failures") == "0"
        assert "TC903" in (warned[0].findtext("system-out") or "")
        return
    assert suite.get("failures") == str(len(list(suite.iter("testcase"))))
    for case in suite.iter("testcase"):
        assert len(case.findall("failure")) == 1


def test_junit_writes_one_failure_per_case_with_every_finding_in_its_body() -> None:
    second = Diagnostic(
        code="TC998",
        rule="other",
        severity=Severity.ERROR,
        message="two",
        path=TRICKY.path,
        span=Span(7, 1, 7, 2),
    )
    suite = ET.fromstring(
        render_junit([TRICKY, second], files=[], warnings_as_errors=True).encode("utf-8")
    )
    (failure,) = suite.iter("failure")
    assert failure.get("message") == "2 findings: TC999, TC998"
    body = (failure.text or "").splitlines()
    assert body[0].startswith(f"{TRICKY.path}:3:5: warning TC999 made-up: 100% sure")
    assert body[-1] == f"{TRICKY.path}:7:1: error TC998 other: two"


@pytest.fixture
def directory_findings(tmp_path: Path) -> LintResult:
    """`nameless/` has its config as `config.pbtx`; `versionless/` has no version directory."""
    repo = tmp_path / "models"
    make_model(repo, "nameless", None, files={**PYTHON_MODEL, "config.pbtx": CLEAN})
    make_model(repo, "versionless", CLEAN.replace('"clean"', '"versionless"'), versions=())
    result = lint(repo)
    assert {"TC104", "TC105"} <= {d.code for d in result.diagnostics}
    return result


def test_a_finding_about_a_directory_points_at_it_with_no_line(
    directory_findings: LintResult,
) -> None:
    found = {d.code: d for d in directory_findings.diagnostics if d.code in ("TC104", "TC105")}
    assert Path(found["TC104"].path).name == "nameless"
    assert Path(found["TC105"].path).name == "versionless"
    assert "'config.pbtx' is not read" in found["TC104"].message
    assert all(Path(d.path).is_dir() for d in found.values())
    assert all(d.to_json()["line"] is None for d in found.values())
    sarif = json.loads(render_sarif(list(found.values()), RULES.values(), root=None))
    jsonschema.validate(sarif, SARIF_SCHEMA_SUBSET)
    for result in sarif["runs"][0]["results"]:
        (location,) = result["locations"]
        assert set(location["physicalLocation"]) == {"artifactLocation"}  # no region
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("less/")
        assert location["message"]["text"] == (
            "The finding concerns the whole directory, not a line in it."
        )
    for line in render_github(found.values()).splitlines():
        assert ",line=" not in line and "col=" not in line and "file=" in line
    junit = render_junit(list(found.values()), files=[])
    assert ":1:1" not in junit and ":0:0" not in junit
