"""A rule's `when` (a fact computed once per model: registry.When) only skips calls that would
find nothing: linting with every `when` honoured and with none gives the same findings, on every
rule's documented examples and fixes and on every config of both corpora, in the modes that
change the facts (strict mode reads the written I/O, not the model file's)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus import corpus_config_files, require_corpus

from tritoncfg.api import lint
from tritoncfg.checks import RULES, LintOptions
from tritoncfg.checks.core.docs import rule_doc
from tritoncfg.checks.core.registry import ModelRule
from tritoncfg.diagnostics import Diagnostic

GUARDED = sorted(c for c, r in RULES.items() if isinstance(r, ModelRule) and r.when is not None)
MODES = {
    "default": LintOptions(),
    "strict": LintOptions(triton_mode="strict"),
    "one GPU": LintOptions(gpus=(0,)),
}


def _write(repo: Path, configs: list[str]) -> None:
    for i, text in enumerate(configs):
        model = repo / f"m{i:04d}"
        (model / "1").mkdir(parents=True)
        (model / "config.pbtxt").write_text(text, encoding="utf-8")


def _findings(repo: Path, options: LintOptions) -> list[tuple[str, str, int, int, str]]:
    found: list[Diagnostic] = lint(repo, options=options, jobs=1, cache_dir=None).diagnostics
    return [(d.code, d.path, d.span.line, d.span.column, d.message) for d in found]


Switch = Callable[[], None]


@pytest.fixture
def whens_off(monkeypatch: pytest.MonkeyPatch) -> Switch:
    """Calling it makes the engine call every rule, whatever its `when` says (undone after)."""

    def off() -> None:
        for code in GUARDED:
            monkeypatch.setitem(RULES, code, dataclasses.replace(RULES[code], when=None))

    return off


def _compare(repo: Path, whens_off: Switch) -> dict[str, int]:
    """Findings per mode with `when` honoured; asserts the same findings with every rule called."""
    honoured = {mode: _findings(repo, options) for mode, options in MODES.items()}
    whens_off()
    for mode, options in MODES.items():
        assert _findings(repo, options) == honoured[mode], mode
    return {mode: len(found) for mode, found in honoured.items()}


def test_the_guarded_rules() -> None:
    io_family = [f"TC3{n:02d}" for n in range(1, 13)]  # TC301-TC312, all of one pass's facts
    assert io_family == GUARDED


def test_when_skips_nothing_in_the_rule_examples(tmp_path: Path, whens_off: Switch) -> None:
    configs = [
        block
        for code in GUARDED
        for section in ("Example", "Fix")
        for block in rule_doc(RULES[code]).blocks(section)
    ]
    _write(tmp_path, configs)
    counts = _compare(tmp_path, whens_off)
    # the rules ran: every guarded rule's example is found with `when` honoured
    found = {f[0] for f in _findings(tmp_path, MODES["default"])}
    examples = {c for c in GUARDED if rule_doc(RULES[c]).blocks("Example")}
    assert examples <= found, sorted(examples - found)
    assert all(counts.values())


def test_when_skips_nothing_in_the_corpora(tmp_path: Path, whens_off: Switch) -> None:
    require_corpus()
    configs = [p.read_text(encoding="utf-8", errors="replace") for p in corpus_config_files()]
    assert len(configs) > 300
    _write(tmp_path, configs)
    counts = _compare(tmp_path, whens_off)
    print(f"\n{len(configs)} corpus configs; findings per mode: {counts}")
    assert all(counts.values())
