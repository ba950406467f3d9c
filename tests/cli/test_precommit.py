"""The real pre-commit, running this checkout's hooks on a temporary git repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD = 'name: "good"\nbackend: "python"\nmax_batch_size: 8\ndynamic_batching { }\n'
BAD = 'name: "bad"\nbackend: "python"\nmax_batch_sise: 8\n'
UGLY = 'name:"good" backend:"python"\nmax_batch_size:8 dynamic_batching{}\n'


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _precommit() -> list[str]:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("pre-commit is not installed (it comes with the dev extras)")
    return [found]


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "project"
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    return repo


def _pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), NO_COLOR="1")
    return subprocess.run(
        [*_precommit(), *args, "--color", "never"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def _try(repo: Path, hook: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    home = tmp_path.parent / "pre-commit-home"
    return _pre_commit(repo, home, "try-repo", str(ROOT), hook, "--all-files")


def test_lint_hook_passes_good_and_fails_bad(tmp_path: Path) -> None:
    layout = {"models/good/config.pbtxt": GOOD, "models/good/1/model.py": "# never executed\n"}
    good = _try(_repo(tmp_path / "ok", layout), "tritoncfg-lint", tmp_path / "ok")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "tritoncfg lint" in good.stdout and "Passed" in good.stdout
    layout |= {"models/bad/config.pbtxt": BAD, "models/bad/1/model.py": "# never executed\n"}
    bad = _try(_repo(tmp_path / "ko", layout), "tritoncfg-lint", tmp_path / "ko")
    assert bad.returncode == 1, bad.stdout
    assert "Failed" in bad.stdout
    assert "models/bad/config.pbtxt:3:1: TC002" in bad.stdout


def test_fmt_hook_reformats(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"models/good/config.pbtxt": UGLY, "models/good/1/model.py": ""})
    result = _try(repo, "tritoncfg-fmt", tmp_path)
    assert result.returncode == 1, result.stdout  # pre-commit fails a hook that changed files
    assert (repo / "models/good/config.pbtxt").read_text() == GOOD.replace(
        "max_batch_size: 8\n", "max_batch_size: 8\n"
    )


def _documented_snippet() -> str:
    text = (ROOT / "docs" / "linting.md").read_text()
    snippet = text.split("# .pre-commit-config.yaml\n", 1)[1].split("```", 1)[0]
    assert "rev:" in snippet and "tritoncfg-lint" in snippet
    return snippet


def test_documented_rev_names_no_tag_that_does_not_exist() -> None:
    rev = re.search(r"rev: (\S+)", _documented_snippet())
    assert rev is not None
    tags = subprocess.run(
        ["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert rev.group(1) in tags or not re.fullmatch(r"v?\d+(\.\d+)*", rev.group(1))


def test_documented_snippet_pins_a_real_revision_with_autoupdate(tmp_path: Path) -> None:
    """The documented steps, against this checkout as the hook repository: `pre-commit
    autoupdate` turns `rev: main` into a commit (or tag) that exists, and it names both hooks."""
    snippet = _documented_snippet().replace("https://github.com/tritoncfg/tritoncfg", str(ROOT))
    repo = _repo(tmp_path, {".pre-commit-config.yaml": snippet})
    result = _pre_commit(repo, tmp_path / "home", "autoupdate")
    assert result.returncode == 0, result.stdout + result.stderr
    rev = re.search(r"rev: (\S+)", (repo / ".pre-commit-config.yaml").read_text())
    assert rev is not None and rev.group(1) != "main"
    resolved = subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev.group(1)}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert resolved.returncode == 0, rev.group(1)


FILES = ("--files", "models/step/config.pbtxt")


def test_precommit_on_the_changed_step_fails_the_ensemble(tmp_path: Path) -> None:
    # the committed step's output was renamed; only its config is given to the hook
    from dependents_layout import LAYOUT, STEP

    layout = dict(LAYOUT)
    layout["models/step/config.pbtxt"] = STEP.replace('name: "y"', 'name: "y2"')
    repo = _repo(tmp_path, layout)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")
    result = subprocess.run(
        [*_precommit(), "try-repo", str(ROOT), "tritoncfg-lint", "--color", "never", *FILES],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "TC532" in result.stdout and "models/ens/config.pbtxt" in result.stdout
