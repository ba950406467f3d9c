"""Without the corpus every corpus test skips with one clear message, `corpus.missing_corpus`'s,
never pytest's "got empty parameter set": the corpus-using test files are collected and run with
TRITONCFG_CORPUS pointed at a folder that does not exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from corpus import ROOT, missing_corpus

# Collects the given files and prints, per item, its node id and the reason of its skip mark.
COLLECT = """
import json, sys
import pytest

class Marks:
    def pytest_collection_modifyitems(self, items):
        for item in items:
            mark = item.get_closest_marker("skip")
            reason = None if mark is None else mark.kwargs.get("reason", "")
            print("ITEM " + json.dumps([item.nodeid, reason]))

sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[Marks()]))
"""


def corpus_test_files() -> list[str]:
    """The test files that use the corpus (directly, or through a kit that does)."""
    kits = ("from corpus import", "import corpus", "from genkit import")
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if path.name != "test_corpus_skips.py"
        and any(kit in path.read_text(encoding="utf-8") for kit in kits)
    )


def run(args: list[str], corpus: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRITONCFG_CORPUS": str(corpus)}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


def test_corpus_tests_skip_with_one_clear_message(tmp_path: Path) -> None:
    missing = tmp_path / "no-corpus"
    files = corpus_test_files()
    assert "tests/corpus_qa/test_triton_qa.py" in files and "tests/checks/test_io.py" in files

    collected = run(["-c", COLLECT, *files], missing)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    items = [
        json.loads(line.removeprefix("ITEM "))
        for line in collected.stdout.splitlines()
        if line.startswith("ITEM ")
    ]
    assert len(items) > 300
    empty = [node for node, reason in items if reason and "empty parameter set" in reason]
    assert not empty, "parametrized over corpus cases without parametrize_corpus: " + str(empty)
    placeholders = {node: reason for node, reason in items if node.endswith("[corpus-missing]")}
    allowed = {missing_corpus(missing / "triton_qa"), missing_corpus(missing / "real_world")}
    assert len(placeholders) >= 8, placeholders
    assert set(placeholders.values()) <= allowed, placeholders

    ran = run(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *placeholders], missing)
    assert ran.returncode == 0, ran.stdout[-3000:]
    skipped = [line for line in ran.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == len(placeholders), ran.stdout  # one per test function
    for line in skipped:
        assert line.startswith("SKIPPED [1] tests/"), line
        assert any(line.endswith(": " + message) for message in allowed), line
    assert f"{len(placeholders)} skipped" in ran.stdout, ran.stdout
