"""A selection that leaves out, or reports below error, rules that decide whether Triton loads a
model: the run says so (a run without errors under it does not mean Triton loads the repository)."""

from __future__ import annotations

import json
from pathlib import Path

from clikit import run
from lintkit import make_model

from tritoncfg.api import lint
from tritoncfg.checks.core.selection import PathFilters, RuleSelection, selection_notes
from tritoncfg.diagnostics import Severity
from tritoncfg.repository.reuse import SETTLE_NS

REFUSED = 'name: "m"\nbackend: "python"\nmax_batch_size: -1\n'  # TC201: Triton refuses it


def _repository(tmp_path: Path) -> Path:
    make_model(tmp_path / "repo", "m", REFUSED, files={"1/model.py": "# never executed\n"})
    return tmp_path / "repo"


def test_the_default_selection_has_no_note(tmp_path: Path) -> None:
    result = lint(_repository(tmp_path))
    assert [d.code for d in result.diagnostics if d.severity is Severity.ERROR] == ["TC201"]
    assert result.notes == []


def test_a_selection_without_a_load_rule_says_so(tmp_path: Path) -> None:
    selection = RuleSelection(select=("TC9",))
    not_run, demoted = selection.load_rules_left_out()
    assert "TC201" in not_run and "TC903" not in not_run and demoted == []

    result = lint(_repository(tmp_path), selection=selection)

    assert not result.has_errors  # TC201 did not run: the run alone would pass
    (note,) = result.notes
    assert f"leaves out {len(not_run)} rules" in note and "Triton loads" in note


def test_a_load_rule_reported_below_error_is_named(tmp_path: Path) -> None:
    selection = RuleSelection(severity_overrides={"TC201": Severity.WARNING})
    result = lint(_repository(tmp_path), selection=selection)
    assert [(d.code, d.severity) for d in result.diagnostics if d.code == "TC201"] == [
        ("TC201", Severity.WARNING)
    ]
    assert result.notes == [
        "severity-overrides report 1 rule (TC201) below error, though Triton refuses a model"
        " they find: their findings do not fail the run"
    ]


def test_a_failing_run_has_no_note(tmp_path: Path) -> None:
    """It fails the gate anyway (and does not import the rule families it left out to know)."""
    selection = RuleSelection(select=("TC2",))
    assert selection.load_rules_left_out()[0]  # it does leave load rules out
    result = lint(_repository(tmp_path), selection=selection)
    assert result.has_errors and result.notes == []


def test_leaving_out_only_rules_of_accepted_configs_has_no_note(tmp_path: Path) -> None:
    """Best-practice (TC9) and runtime rules do not decide the load: ignoring them is no gap."""
    selection = RuleSelection(ignore=("TC9",), severity_overrides={"TC903": Severity.INFO})
    assert not selection.is_default
    files = {"1/model.py": "# never executed\n", "01/x": ""}  # TC106: a warning
    make_model(tmp_path / "repo", "m", 'name: "m"\nbackend: "python"\n', files=files)
    result = lint(tmp_path / "repo", selection=selection)
    assert [d.code for d in result.diagnostics] == ["TC106"]  # it ran its rules, and passes
    assert selection.load_rules_left_out() == ([], [])
    assert result.notes == selection_notes(selection) == []


def test_per_path_ignores_of_a_load_rule_say_so(tmp_path: Path) -> None:
    filters = PathFilters(
        base=tmp_path, per_path_ignores={"repo/m/*": ("TC201",), "repo/other/*": ("TC9",)}
    )
    result = lint(_repository(tmp_path), filters=filters)
    assert not result.has_errors and result.models == 1  # TC201 hidden in repo/m
    assert result.notes == [
        "per-path-ignores leave out 1 rule (TC201) for 'repo/m/*', which decide whether Triton"
        " loads a model: a run without errors does not say that Triton loads the models there"
    ]  # and nothing for the best-practice rules ignored in repo/other


def test_a_replayed_run_has_the_notes(tmp_path: Path) -> None:
    repo, cache = _repository(tmp_path), tmp_path / "cache"
    selection = RuleSelection(select=("TC9",))
    first = lint(repo, selection=selection, cache_dir=cache)
    (replay_file,) = cache.glob("replay-*.json")
    content = json.loads(replay_file.read_text())
    content["started"] += 2 * SETTLE_NS  # as if recorded long after the files last changed
    replay_file.write_text(json.dumps(content))

    again = lint(repo, selection=selection, cache_dir=cache)

    assert again.replayed and again.notes == first.notes != []


def test_the_cli_warns(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    first = run("lint", str(repo), "--select", "TC9", cwd=tmp_path)
    again = run("lint", str(repo), "--select", "TC9", cwd=tmp_path)  # with the cache
    for done in (first, again):
        assert done.returncode == 0, done.stderr
        assert "tritoncfg: warning: the rule selection (select, ignore) leaves out" in done.stderr
    silent = run("lint", str(repo), "--select", "TC9", "--silent", cwd=tmp_path)
    assert (silent.returncode, silent.stderr) == (0, "")
