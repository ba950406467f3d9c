"""Lint's errors on the repository of load_verdict_cases.py match the verdicts a real Triton 2.51
gave (issue 23, items 10-11): an error exactly where Triton refused the model."""

from __future__ import annotations

from pathlib import Path

from clikit import run
from lintkit import lint_repo
from load_verdict_cases import CASES, build_repository

from tritoncfg.diagnostics import Severity


def test_lint_errors_match_triton_verdicts(tmp_path: Path) -> None:
    diagnostics = lint_repo(build_repository(tmp_path))
    errors: dict[str, set[str]] = {name: set() for name in CASES}
    for d in diagnostics:
        model = Path(d.path).parent.name
        assert model in CASES, d.path  # every model was discovered and linted
        if d.severity is Severity.ERROR:
            errors[model].add(d.code)
    assert errors == {name: {code} if code else set() for name, (_, _, code) in CASES.items()}
    # the duplicate input is still reported, as the warning it is
    assert [d.severity for d in diagnostics if d.code == "TC312"] == [Severity.WARNING]


def test_lint_exit_status_on_the_loaded_case(tmp_path: Path) -> None:
    repository = build_repository(tmp_path)
    loaded = run("lint", str(repository / "duplicate_input"), "--no-cache")
    assert loaded.returncode == 0, loaded.stdout
    refused = run("lint", str(repository), "--no-cache")
    assert refused.returncode == 1
    for name, (_, _, code) in CASES.items():
        if code:
            assert f"{name}/config.pbtxt" in refused.stdout and f"{code} error" in refused.stdout
