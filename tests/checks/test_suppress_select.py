"""Suppression comments, rule selection, severity overrides, per-path ignores and exclude."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintkit import make_model

from tritoncfg.api import lint
from tritoncfg.checks.core.selection import PathFilters, RuleSelection
from tritoncfg.diagnostics import Severity

BATCHING = 'name: "m"\nbackend: "python"\nmax_batch_size: 8{comment}\n'


def _lint(
    tmp_path: Path,
    config: str,
    selection: RuleSelection | None = None,
    filters: PathFilters | None = None,
) -> list[tuple[str, int]]:
    make_model(tmp_path / "repo", "m", config, files={"1/model.py": "# never executed\n"})
    result = lint(tmp_path / "repo", selection=selection, filters=filters)
    return [(d.code, d.span.line) for d in result.diagnostics]


def test_unsuppressed_finding_is_reported(tmp_path: Path) -> None:
    assert ("TC903", 3) in _lint(tmp_path, BATCHING.format(comment=""))


def test_noqa_with_code_at_end_of_line(tmp_path: Path) -> None:
    found = _lint(tmp_path, BATCHING.format(comment="  # tritoncfg: noqa TC903"))
    assert not [c for c, _ in found if c in ("TC903", "TC010", "TC011")]


def test_noqa_on_the_line_before(tmp_path: Path) -> None:
    config = 'name: "m"\nbackend: "python"\n# tritoncfg: noqa: TC903\nmax_batch_size: 8\n'
    assert not [c for c, _ in _lint(tmp_path, config) if c in ("TC903", "TC010")]


def test_bare_noqa_suppresses_everything_on_the_line(tmp_path: Path) -> None:
    found = _lint(tmp_path, BATCHING.format(comment="  # tritoncfg: noqa"))
    assert not [c for c, _ in found if c in ("TC903", "TC010")]


def test_file_level_noqa(tmp_path: Path) -> None:
    config = "# tritoncfg: noqa-file TC903\n" + BATCHING.format(comment="")
    assert not [c for c, _ in _lint(tmp_path, config) if c in ("TC903", "TC010")]


def test_noqa_for_another_code_does_not_suppress_and_is_unused(tmp_path: Path) -> None:
    found = _lint(tmp_path, BATCHING.format(comment="  # tritoncfg: noqa TC901"))
    assert ("TC903", 3) in found
    assert ("TC010", 3) in found


def test_unknown_code_in_noqa(tmp_path: Path) -> None:
    found = _lint(tmp_path, BATCHING.format(comment="  # tritoncfg: noqa TC903, TC999"))
    assert ("TC011", 3) in found
    assert "TC903" not in [c for c, _ in found]


def test_unused_bare_noqa(tmp_path: Path) -> None:
    config = 'name: "m"\nbackend: "python"  # tritoncfg: noqa\n'
    assert ("TC010", 2) in _lint(tmp_path, config)


def test_select_by_prefix_and_ignore_by_name(tmp_path: Path) -> None:
    config = BATCHING.format(comment="") + "dynamic_batching { preferred_batch_size: [ 8, 4 ] }\n"
    everything = {c for c, _ in _lint(tmp_path, config)}
    assert {"TC901", "TC902"} <= everything
    only_9 = {c for c, _ in _lint(tmp_path, config, RuleSelection(select=("TC9",)))}
    assert only_9 <= {c for c in everything if c.startswith("TC9")} | {"TC009"}
    ignored = {
        c
        for c, _ in _lint(
            tmp_path, config, RuleSelection(ignore=("preferred-batch-sizes-unsorted",))
        )
    }
    assert "TC902" not in ignored and "TC901" in ignored


def test_more_specific_select_beats_broader_ignore(tmp_path: Path) -> None:
    config = BATCHING.format(comment="") + "dynamic_batching { preferred_batch_size: [ 8, 4 ] }\n"
    found = {
        c for c, _ in _lint(tmp_path, config, RuleSelection(select=("TC902",), ignore=("TC9",)))
    }
    assert "TC902" in found and "TC901" not in found


def test_severity_override(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", BATCHING.format(comment=""), files={"1/model.py": ""})
    result = lint(
        tmp_path / "repo", selection=RuleSelection(severity_overrides={"TC903": Severity.ERROR})
    )
    assert next(d for d in result.diagnostics if d.code == "TC903").severity is Severity.ERROR
    assert result.has_errors


def test_per_path_ignores_and_exclude(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_model(repo, "a", BATCHING.format(comment=""), files={"1/model.py": ""})
    make_model(repo, "b", BATCHING.format(comment=""), files={"1/model.py": ""})
    ignores = PathFilters(base=tmp_path, per_path_ignores={"repo/a/*": ("TC903",)})
    models = [
        Path(d.path).parent.name
        for d in lint(repo, filters=ignores).diagnostics
        if d.code == "TC903"
    ]
    assert models == ["b"]
    excluded = PathFilters(base=tmp_path, exclude=("repo/b",))
    result = lint(repo, filters=excluded)
    assert result.models == 1
    assert all("/b/" not in d.path for d in result.diagnostics)


def _two_models(tmp_path: Path) -> Path:
    repo = tmp_path / "models"
    make_model(repo, "x", BATCHING.format(comment=""), files={"1/model.py": ""})
    make_model(repo, "xy", BATCHING.format(comment=""), files={"1/model.py": ""})
    return repo


@pytest.mark.parametrize(
    "pattern", ["models/x/", "models/x/*", "**/x/*", "**/x", "models/x", "/models/x/", "x/"]
)
def test_exclude_is_gitignore_style(tmp_path: Path, pattern: str) -> None:
    repo = _two_models(tmp_path)
    result = lint(repo, filters=PathFilters(base=tmp_path, exclude=(pattern,)))
    linted = sorted({Path(d.path).parent.name for d in result.diagnostics if d.code == "TC903"})
    assert result.models == 1 and linted == ["xy"]


def test_exclude_negation_and_near_names(tmp_path: Path) -> None:
    repo = _two_models(tmp_path)
    kept = lint(repo, filters=PathFilters(base=tmp_path, exclude=("models/*/", "!models/xy/")))
    assert kept.models == 1 and all("/xy/" in d.path for d in kept.diagnostics)
    near = lint(repo, filters=PathFilters(base=tmp_path, exclude=("models/x?/",)))
    assert near.models == 1 and all("/x/" in d.path for d in near.diagnostics)


@pytest.mark.parametrize("pattern", ["models/x/", "**/x/*", "**/x/config.pbtxt", "x/"])
def test_per_path_ignores_are_gitignore_style(tmp_path: Path, pattern: str) -> None:
    repo = _two_models(tmp_path)
    ignores = PathFilters(base=tmp_path, per_path_ignores={pattern: ("TC903",)})
    result = lint(repo, filters=ignores)
    assert result.models == 2
    assert sorted(Path(d.path).parent.name for d in result.diagnostics if d.code == "TC903") == [
        "xy"
    ]


def test_lint_looks_for_suppressions_where_every_comment_has_its_marker(tmp_path: Path) -> None:
    """Lint applies suppression comments only to configs holding `SUPPRESSION_MARKER`: each
    form the comment parser accepts must hold it, and a config holding it is looked at."""
    from tritoncfg.checks.core import suppress
    from tritoncfg.lintrun import SUPPRESSION_MARKER

    assert SUPPRESSION_MARKER in suppress._NOQA.pattern
    config = BATCHING.format(comment=f"  # {SUPPRESSION_MARKER} noqa TC903")
    assert [c for c, _ in _lint(tmp_path, config) if c == "TC903"] == []


def test_a_removed_code_is_named_as_removed_in_a_suppression_and_a_selector(
    tmp_path: Path,
) -> None:
    """TC905 is a removed line of the rule table: the code is never reused, a suppression of it
    says it was removed, and selecting it is an error that says so."""
    from tritoncfg.api import lint as lint_with_messages
    from tritoncfg.checks.core.selection import SelectorError, check_selectors

    found = _lint(tmp_path, BATCHING.format(comment="  # tritoncfg: noqa TC903, TC905"))
    assert ("TC011", 3) in found and "TC903" not in [c for c, _ in found]
    result = lint_with_messages(tmp_path / "repo")
    (message,) = [d.message for d in result.diagnostics if d.code == "TC011"]
    assert message == "suppression names TC905, a rule removed in 0.1.0"
    with pytest.raises(SelectorError, match=r"rule TC905 was removed in 0\.1\.0"):
        check_selectors(["TC905"])


def test_a_preview_rule_runs_only_when_named(tmp_path: Path) -> None:
    """A rule whose table line says `preview` is left out of ALL and of prefixes, and runs when
    selected by its code or name."""
    from dataclasses import replace

    from tritoncfg.checks.core import selection
    from tritoncfg.checks.core.table import table

    config = BATCHING.format(comment="")
    assert ("TC903", 3) in _lint(tmp_path, config)  # the rule runs, and finds this
    rows = table()
    stable = rows["TC903"]
    rows["TC903"] = replace(stable, lifecycle="preview")
    selection._preview.cache_clear()
    try:
        assert "TC903" not in [c for c, _ in _lint(tmp_path, config)]
        by_prefix = RuleSelection(select=("TC9",))
        assert "TC903" not in [c for c, _ in _lint(tmp_path, config, by_prefix)]
        for named in ("TC903", "batching-model-without-dynamic-batching"):
            chosen = RuleSelection(extend_select=(named,))
            assert ("TC903", 3) in _lint(tmp_path, config, chosen)
    finally:
        rows["TC903"] = stable
        selection._preview.cache_clear()
