"""A config Triton cannot read is always an error: no selection hides a parse error (TC001-TC007),
as ruff reports syntax errors whatever is selected, and the output says checks were skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.api import lint
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.diagnostics import Severity

BROKEN = 'name: "m"\nbackend: "python"\nmax_batch_sise: 8\n'


def _repo(tmp_path: Path) -> Path:
    make_model(tmp_path / "repo", "m", BROKEN, files={"1/model.py": ""})
    return tmp_path / "repo"


@pytest.mark.parametrize(
    ("selection", "filters"),
    [
        (RuleSelection(select=("TC9",)), None),
        (RuleSelection(ignore=("TC0",)), None),
        (RuleSelection(ignore=("unknown-field",)), None),
        (RuleSelection(severity_overrides={"TC002": Severity.INFO}), None),
        (None, PathFilters(per_path_ignores={"m/*": ("TC002",)})),
    ],
    ids=["select", "ignore-prefix", "ignore-name", "severity-override", "per-path-ignores"],
)
def test_selection_never_hides_a_parse_error(
    tmp_path: Path, selection: RuleSelection | None, filters: PathFilters | None
) -> None:
    repo = _repo(tmp_path)
    if filters is not None:  # the globs are relative to the configuration's folder
        filters = PathFilters(base=repo, per_path_ignores=filters.per_path_ignores)
    result = lint(repo, selection=selection, filters=filters)
    found = [(d.code, d.severity, d.span.line) for d in result.diagnostics]
    assert ("TC002", Severity.ERROR, 3) in found
    assert "TC009" in [c for c, _, _ in found]
    assert result.has_errors


def test_noqa_does_not_hide_a_parse_error(tmp_path: Path) -> None:
    make_model(
        tmp_path / "repo",
        "m",
        BROKEN.replace("8\n", "8  # tritoncfg: noqa TC002\n"),
        files={"1/model.py": ""},
    )
    assert "TC002" in [d.code for d in lint(tmp_path / "repo").diagnostics]


def test_cli_exits_1_and_says_checks_were_skipped(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    for args in (("--select", "TC9"), ("--ignore", "TC0")):
        result = run("lint", *args, str(repo))
        assert result.returncode == 1, result.stdout
        assert "TC002 error" in result.stdout
        assert "TC009" in result.stdout and "skipped" in result.stdout
    (repo / "tritoncfg.toml").write_text('[per-path-ignores]\n"m/*" = ["TC002"]\n')
    configured = run("lint", str(repo))
    assert configured.returncode == 1 and "TC002 error" in configured.stdout
