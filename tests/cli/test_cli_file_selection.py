"""Every command that walks a tree takes the same files: `exclude`, `.gitignore` (with
--respect-gitignore, the default), named paths (unless --force-exclude), and the lint cache
follows a model that becomes ignored."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clikit import run

UGLY = 'name:"{name}"\nbackend:"onnxruntime"\nmax_batch_size : 0\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git work tree: repo/{a,b,c} (each unformatted, each with findings); b is excluded by
    the settings, c ignored by repo/.gitignore."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tritoncfg.toml").write_text('exclude = ["repo/b"]\n')
    for name in ("a", "b", "c"):
        (tmp_path / "repo" / name).mkdir(parents=True)
        (tmp_path / "repo" / name / "config.pbtxt").write_text(UGLY.format(name=name))
    (tmp_path / "repo" / ".gitignore").write_text("c/\n")
    return tmp_path


def _linted(*args: str, cwd: Path) -> set[str]:
    """The models lint reports findings for (each model here has some)."""
    result = run("lint", "--format", "json", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return {d["model"] for d in json.loads(result.stdout)["diagnostics"] if d["model"]}


def _reformatted(*args: str, cwd: Path) -> set[str]:
    result = run("fmt", "--check", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return {Path(line.split()[-1]).parent.name for line in result.stdout.splitlines()}


def test_lint_and_fmt_take_the_same_models(project: Path) -> None:
    # fmt used to walk with its own rglob and reformat the excluded repo/b
    assert _linted("repo", cwd=project) == {"a"}
    assert _reformatted("repo", cwd=project) == {"a"}
    assert _linted("--no-respect-gitignore", "repo", cwd=project) == {"a", "c"}
    assert _reformatted("--no-respect-gitignore", "repo", cwd=project) == {"a", "c"}


def test_the_respect_gitignore_setting(project: Path) -> None:
    (project / "tritoncfg.toml").write_text('exclude = ["repo/b"]\nrespect-gitignore = false\n')
    assert _linted("repo", cwd=project) == {"a", "c"}
    assert _reformatted("repo", cwd=project) == {"a", "c"}
    assert _linted("--respect-gitignore", "repo", cwd=project) == {"a"}


def test_named_paths_are_taken_unless_force_exclude(project: Path) -> None:
    named = ("repo/b/config.pbtxt", "repo/c/config.pbtxt")
    assert _linted(*named, cwd=project) == {"b", "c"}
    assert _reformatted(*named, cwd=project) == {"b", "c"}
    assert _linted("--force-exclude", *named, cwd=project) == set()
    assert _reformatted("--force-exclude", *named, cwd=project) == set()
    assert _linted("repo/b", cwd=project) == {"b"}  # a model directory named


def test_the_pre_commit_shape_with_force_exclude(project: Path) -> None:
    """`tritoncfg lint --force-exclude FILE...` (the hook's entry) runs the fast path and
    leaves excluded and ignored files alone; the others are linted."""
    files = ("repo/a/config.pbtxt", "repo/b/config.pbtxt", "repo/c/config.pbtxt")
    result = run("lint", "--force-exclude", *files, cwd=project)
    assert result.returncode == 1, result.stdout
    assert "repo/a: TC105" in result.stdout and "(1 model, 1 config file)" in result.stdout
    assert "repo/b" not in result.stdout and "repo/c" not in result.stdout
    hooks = (Path(__file__).parents[2] / ".pre-commit-hooks.yaml").read_text()
    assert "entry: tritoncfg lint --force-exclude" in hooks
    assert "entry: tritoncfg fmt --force-exclude" in hooks


def test_complete_takes_the_same_models(project: Path) -> None:
    for name in ("a", "b", "c"):  # a version each: complete prints what Triton would serve
        (project / "repo" / name / "1").mkdir()
        (project / "repo" / name / "1" / "model.py").write_text("")
        (project / "repo" / name / "config.pbtxt").write_text(
            f'name: "{name}"\nbackend: "python"\nmax_batch_size: 0\n'
        )
    result = run("complete", "repo", cwd=project)
    assert 'name: "a"' in result.stdout, result.stderr
    assert 'name: "b"' not in result.stdout and 'name: "c"' not in result.stdout
    named = run("complete", "repo/c", cwd=project)
    assert 'name: "c"' in named.stdout, named.stderr


def test_the_cache_follows_a_model_that_becomes_ignored(project: Path) -> None:
    gitignore = project / "repo" / ".gitignore"
    assert _linted("repo", cwd=project) == {"a"}
    assert _linted("repo", cwd=project) == {"a"}  # replayed from the cache
    assert (project / ".tritoncfg_cache").is_dir()
    gitignore.write_text("a/\n")  # same size: the root's stamp does not change
    assert _linted("repo", cwd=project) == {"c"}
    gitignore.write_text("c/\n")
    assert _linted("repo", cwd=project) == {"a"}
    (project / ".git" / "info" / "exclude").write_text("a/\n")
    assert _linted("repo", cwd=project) == set()
    (project / ".git" / "info" / "exclude").write_text("")
    (project / "repo" / "a" / ".gitignore").write_text("config.pbtxt\n")
    assert _linted("repo", cwd=project) == set()
