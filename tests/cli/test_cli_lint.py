"""`tritoncfg lint` as a user runs it: a real subprocess, real files, exit codes and both formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run

from tritoncfg import __version__

CONTRACT_KEYS = {
    "code",
    "rule",
    "severity",
    "message",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "model",
    "triton",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    good = root / "good"
    (good / "1").mkdir(parents=True)
    (good / "1" / "model.py").write_text("# never executed\n")
    (good / "config.pbtxt").write_text('name: "good"\nbackend: "python"\n')
    bad = root / "bad"
    (bad / "1").mkdir(parents=True)
    (bad / "config.pbtxt").write_text(
        'name: "bad"\nbackend: "python"\nmax_batch_sise: 8\ninstance_group [ { kind: KIND_GPUS } ]\n'
    )
    worse = root / "worse"
    (worse / "1").mkdir(parents=True)
    (worse / "config.pbtxt").write_text(
        'name: "worse"\ninput { name: "x" data_type: TYPE_FLOAT32 }\n'
    )
    return root


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"tritoncfg {__version__}"


def test_unknown_field_is_reported_with_position_type_and_suggestion(repo: Path) -> None:
    result = run("lint", str(repo / "bad" / "config.pbtxt"))
    assert result.returncode == 1
    path = repo / "bad" / "config.pbtxt"
    assert f"{path}:3:1:" in result.stdout
    assert (
        'Message type "inference.ModelConfig" has no field named "max_batch_sise"' in result.stdout
    )
    assert 'Did you mean "max_batch_size"?' in result.stdout
    assert "max_batch_sise: 8\n" in result.stdout  # the source line is shown
    assert "^^^^^^^^^^^^^^" in result.stdout  # with a caret under the field name
    assert "Traceback" not in result.stderr


def test_directory_reports_every_parse_error_of_every_model(repo: Path) -> None:
    result = run("lint", str(repo), "--format", "json")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    errors = [
        (Path(d["path"]).parent.name, d["code"], d["line"])
        for d in document["diagnostics"]
        if d["severity"] == "error"
    ]
    assert ("bad", "TC002", 3) in errors
    assert ("bad", "TC005", 4) in errors
    assert ("worse", "TC005", 2) in errors
    assert not [e for e in errors if e[0] == "good"]


def test_json_contract(repo: Path) -> None:
    document = json.loads(run("lint", str(repo), "--format", "json").stdout)
    assert document["tool"] == {"name": "tritoncfg", "version": __version__}
    assert set(document["summary"]) == {"error", "warning", "info", "files", "models"}
    assert document["summary"]["models"] == 3
    assert document["summary"]["files"] == 3
    assert document["summary"]["error"] == sum(
        d["severity"] == "error" for d in document["diagnostics"]
    )
    for diagnostic in document["diagnostics"]:
        assert set(diagnostic) == CONTRACT_KEYS
        assert diagnostic["code"].startswith("TC") and len(diagnostic["code"]) == 5
        assert diagnostic["severity"] in {"error", "warning", "info"}
        assert diagnostic["triton"] is None or set(diagnostic["triton"]) == {"phase", "message"}
    parse_error = next(d for d in document["diagnostics"] if d["code"] == "TC002")
    assert parse_error["triton"]["phase"] == "PARSE"
    assert parse_error["triton"]["message"].startswith("failed to read text proto from ")
    assert (parse_error["line"], parse_error["column"], parse_error["end_column"]) == (3, 1, 15)


def test_clean_model_exits_zero(repo: Path) -> None:
    result = run("lint", str(repo / "good"))
    assert result.returncode == 0, result.stdout
    assert "All checks passed" in result.stdout


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run("lint", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "no such file or directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_option_is_a_usage_error(repo: Path) -> None:
    assert run("lint", str(repo), "--format", "xml").returncode == 2
    result = run("lint", str(repo), "--gpus", "zero")
    assert result.returncode == 2
    assert "--gpus" in result.stderr
