"""Every rule carries its documentation, and the examples in it are true.

A ```pbtxt block under "## Example" is the config of a python-backend model `m` that must produce
the rule's code; the one under "## Fix" must not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lintkit import PARSE_ERRORS, lint_config

from tritoncfg.checks import RULES
from tritoncfg.checks.core.docs import SECTIONS, rule_doc
from tritoncfg.diagnostics import Severity

ALL = sorted(RULES)


def test_rule_metadata_is_well_formed() -> None:
    names = [rule.name for rule in RULES.values()]
    assert len(names) == len(set(names))
    for code, rule in RULES.items():
        assert re.fullmatch(r"TC\d{3}", code), code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.summary and rule.summary.endswith("."), code
        assert isinstance(rule.severity, Severity)


@pytest.mark.parametrize("code", ALL)
def test_rule_has_every_doc_section(code: str) -> None:
    doc = rule_doc(RULES[code])
    assert list(doc.sections) == list(SECTIONS), f"{code}: sections {list(doc.sections)}"
    assert all(doc.sections.values()), f"{code}: an empty section"


EXAMPLES = [(c, b) for c in ALL for b in rule_doc(RULES[c]).blocks("Example")]
FIXES = [(c, b) for c in ALL for b in rule_doc(RULES[c]).blocks("Fix")]


@pytest.mark.parametrize(("code", "config"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_example_triggers_the_rule(tmp_path: Path, code: str, config: str) -> None:
    # a parse rule's example does not parse; every other example must
    found = [d.code for d in lint_config(tmp_path, config, parse_errors=code in PARSE_ERRORS)]
    assert code in found, f"{code} example did not trigger it; got {found}"


@pytest.mark.parametrize(("code", "config"), FIXES, ids=[c for c, _ in FIXES])
def test_fix_does_not_trigger_the_rule(tmp_path: Path, code: str, config: str) -> None:
    found = [d for d in lint_config(tmp_path, config) if d.code == code]
    assert not found, f"{code} fix still triggers it: {[d.message for d in found]}"


def test_examples_exist() -> None:
    assert len(EXAMPLES) >= 5


def test_docs_rules_md_is_up_to_date() -> None:
    from tritoncfg.checks.core.docs import rules_markdown

    path = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    expected = rules_markdown([RULES[code] for code in ALL])
    assert path.exists() and path.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `make docs`"
    )


FIXABLE = [(c, b) for c, b in EXAMPLES if RULES[c].fixable]


@pytest.mark.parametrize(("code", "config"), FIXABLE, ids=[c for c, _ in FIXABLE])
def test_fix_resolves_the_example_and_keeps_comments(
    tmp_path: Path, code: str, config: str
) -> None:
    from lintkit import make_model

    from tritoncfg.fixer import fix
    from tritoncfg.text.parser import parse_tree

    commented = "# header comment\n" + "".join(
        line + "  # note\n"
        if line.strip() and not line.rstrip().endswith(("{", "["))
        else line + "\n"
        for line in config.splitlines()
    )
    make_model(tmp_path / "repo", "m", commented, files={"1/model.py": "# never executed\n"})
    outcome = fix(tmp_path / "repo", unsafe=True)
    assert code not in [d.code for d in outcome.result.diagnostics], (
        f"{code} still reported after --fix"
    )
    (fixed,) = outcome.after.values()
    before = [c.text for c in parse_tree(commented).comments()]
    assert [c.text for c in parse_tree(fixed).comments()] == before, "a fix lost or moved a comment"


def test_some_rules_are_fixable() -> None:
    assert len(FIXABLE) >= 4


def test_rules_without_runnable_examples_have_tests_of_their_own() -> None:
    """A rule whose Example/Fix need more than a config (model files, several models, host
    options) must be exercised by a test that names its code or its name."""
    tests = Path(__file__).resolve().parents[1]
    text = "\n".join(
        path.read_text(encoding="utf-8")
        for path in tests.rglob("test_*.py")
        if path.name != Path(__file__).name
    )
    untested = [
        code
        for code, rule in RULES.items()
        if not (rule_doc(rule).blocks("Example") and rule_doc(rule).blocks("Fix"))
        and not re.search(rf"\b{code}\b", text)
        and f'"{rule.name}"' not in text
    ]
    assert not untested, f"rules with neither runnable examples nor tests: {untested}"
