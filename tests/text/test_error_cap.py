"""A file with an error on every line: the first MAX_TEXT_ERRORS errors are reported, then one
finding says how many more there are. Triton's verdict, the first error and the exit status are
those of the whole file."""

from __future__ import annotations

import json
from pathlib import Path

from clikit import run
from lintkit import make_model

from tritoncfg.api import lint
from tritoncfg.checks.parse.text_format import PARSE_ERRORS
from tritoncfg.text import parse
from tritoncfg.text.bind import MAX_TEXT_ERRORS
from tritoncfg.text.json_config import parse_json

BAD_LINE = "max_batch_sise: 1\n"
UNKNOWN = 'Message type "inference.ModelConfig" has no field named "max_batch_sise".'


def test_parse_keeps_the_first_errors_and_counts_the_others() -> None:
    config = parse(BAD_LINE * 5_000)
    assert len(config.errors) == MAX_TEXT_ERRORS
    assert (config.omitted, config.error_count, config.ok) == (
        5_000 - MAX_TEXT_ERRORS,
        5_000,
        False,
    )
    assert [e.span.line for e in config.errors] == list(range(1, MAX_TEXT_ERRORS + 1))
    assert config.first_omitted is not None
    assert (config.first_omitted.kind, config.first_omitted.span.line) == (
        "unknown-field",
        MAX_TEXT_ERRORS + 1,
    )


def test_a_file_at_the_limit_has_no_omitted_errors() -> None:
    config = parse(BAD_LINE * MAX_TEXT_ERRORS)
    assert (len(config.errors), config.omitted, config.first_omitted) == (MAX_TEXT_ERRORS, 0, None)


def test_errors_inside_map_entries_share_the_file_limit() -> None:
    entry = 'parameters { key: "k%d" value { string_valu: "x" } }\n'
    config = parse("".join(entry % i for i in range(MAX_TEXT_ERRORS + 500)))
    assert (len(config.errors), config.omitted) == (MAX_TEXT_ERRORS, 500)
    assert config.first_omitted is not None
    assert config.first_omitted.span.line == MAX_TEXT_ERRORS + 1
    assert {e.message for e in config.errors} == {
        'Message type "inference.ModelParameter" has no field named "string_valu".'
    }


def test_a_json_config_is_capped_too() -> None:
    members = ", ".join(f'"unknown_{i}": 1' for i in range(MAX_TEXT_ERRORS + 7))
    config = parse_json("{" + members + "}")
    assert (len(config.errors), config.omitted) == (MAX_TEXT_ERRORS, 7)


def test_lint_reports_the_limit_and_one_summary_last(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", BAD_LINE * 5_000)
    diagnostics = lint(tmp_path / "repo").diagnostics
    parse_errors = [d for d in diagnostics if d.code in PARSE_ERRORS]
    assert len(parse_errors) == MAX_TEXT_ERRORS + 1
    first, summary = parse_errors[0], parse_errors[-1]
    assert (first.code, first.span.line, first.message) == (
        "TC002",
        1,
        f'{UNKNOWN} Did you mean "max_batch_size"?',
    )
    assert (summary.code, summary.span.line) == ("TC002", MAX_TEXT_ERRORS + 1)
    assert summary.message.startswith("4,000 more text-format errors, from this one on, are not")
    assert f"the first {MAX_TEXT_ERRORS:,} errors" in summary.message
    assert summary.fix is None
    assert (
        summary.triton is not None and summary.triton == first.triton
    )  # Triton's verdict: the same rejection
    assert [d.code for d in diagnostics if d.code not in PARSE_ERRORS] == ["TC009"]


def test_the_summary_has_the_code_of_the_first_error_not_shown(tmp_path: Path) -> None:
    enum_line = 'input { name: "x" data_type: TYPE_FLOAT32 dims: [ 1 ] }\n'
    make_model(tmp_path / "repo", "m", BAD_LINE * MAX_TEXT_ERRORS + enum_line * 3)
    parse_errors = [d for d in lint(tmp_path / "repo").diagnostics if d.code in PARSE_ERRORS]
    assert len(parse_errors) == MAX_TEXT_ERRORS + 1
    assert {d.code for d in parse_errors[:-1]} == {"TC002"}
    summary = parse_errors[-1]
    assert (summary.code, summary.span.line) == ("TC005", MAX_TEXT_ERRORS + 1)
    assert summary.message.startswith("3 more text-format errors")


def test_cli_exit_status_and_json_report(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", BAD_LINE * 5_000)
    result = run("lint", "--format", "json", str(tmp_path / "repo"))
    assert result.returncode == 1, result.stderr
    codes = [d["code"] for d in json.loads(result.stdout)["diagnostics"]]
    assert codes == ["TC002"] * (MAX_TEXT_ERRORS + 1) + ["TC009"]
