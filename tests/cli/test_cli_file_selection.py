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


def test_stdin_named_as_an_excluded_or_ignored_file_is_skipped_only_with_force_exclude(
    project: Path,
) -> None:
    """`lint - --stdin-filename NAME`: NAME is a path given by name, as ruff takes it."""
    for name in ("repo/b/config.pbtxt", "repo/c/config.pbtxt", "repo/new/config.pbtxt"):
        linted = run("lint", "-", "--stdin-filename", name, "-f", "json", stdin=UGLY, cwd=project)
        assert linted.returncode == 1, linted.stderr
        paths = {d["path"] for d in json.loads(linted.stdout)["diagnostics"]}
        # TC105 on a model folder that exists; a new one (no folder yet) gets none
        folder = {str(Path(name).parent)} if (project / name).parent.is_dir() else set()
        assert paths == {name} | folder
    (project / "repo" / ".gitignore").write_text("c/\nnew/\n")
    for name in ("repo/b/config.pbtxt", "repo/c/config.pbtxt", "repo/new/config.pbtxt"):
        args = ("lint", "-", "--stdin-filename", name, "--force-exclude", "-f", "json")
        skipped = run(*args, stdin=UGLY, cwd=project)
        assert skipped.returncode == 0, skipped.stderr
        assert json.loads(skipped.stdout)["diagnostics"] == []
    kept = run("lint", "-", "--stdin-filename", "repo/a/config.pbtxt", "--force-exclude",
               "-f", "json", stdin=UGLY, cwd=project)  # fmt: skip
    assert kept.returncode == 1 and json.loads(kept.stdout)["diagnostics"], kept.stderr


def test_add_noqa_writes_only_to_the_models_selected(project: Path) -> None:
    typo = 'name: "{name}"\nbackend: "python"\nmax_batch_size: 8\n'  # TC903 on line 3
    for name in ("a", "b", "c"):
        (project / "repo" / name / "config.pbtxt").write_text(typo.format(name=name))
    result = run("lint", "--add-noqa", "repo", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "Added 1 noqa directive." in result.stderr
    assert "# tritoncfg: noqa TC903" in (project / "repo" / "a" / "config.pbtxt").read_text()
    for name in ("b", "c"):  # excluded, ignored: left byte for byte
        assert (project / "repo" / name / "config.pbtxt").read_text() == typo.format(name=name)


def test_isolated_ignores_the_file_selection_settings_too(project: Path) -> None:
    """--isolated: the settings file's exclude, respect-gitignore and force-exclude are not
    read; the defaults (.gitignore respected, named paths taken) and the options given apply."""
    (project / "tritoncfg.toml").write_text(
        'exclude = ["repo/b"]\nrespect-gitignore = false\nforce-exclude = true\n'
    )
    named = ("repo/a/config.pbtxt", "repo/b/config.pbtxt", "repo/c/config.pbtxt")
    assert _linted("repo", cwd=project) == {"a", "c"}  # respect-gitignore = false
    assert _linted(*named, cwd=project) == {"a", "c"}  # and force-exclude
    assert _linted("--isolated", "repo", cwd=project) == {"a", "b"}
    assert _linted("--isolated", *named, cwd=project) == {"a", "b", "c"}
    assert _linted("--isolated", "--force-exclude", *named, cwd=project) == {"a", "b"}
    inline = ("--isolated", "--config", "respect-gitignore = false", "repo")
    assert _linted(*inline, cwd=project) == {"a", "b", "c"}


def test_the_fast_path_takes_force_exclude_with_the_environment(project: Path) -> None:
    """The hook's `lint --force-exclude FILE...` skips Typer and still reads
    TRITONCFG_OUTPUT_FORMAT and TRITONCFG_CACHE_DIR."""
    import os
    import sys

    probe = (
        "import atexit, sys\natexit.register(lambda: sys.stderr.write("
        "'[typer]' if 'typer' in sys.modules else '[fast]'))\n"
        "from tritoncfg.cli.main import main; main()"
    )
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {
        "NO_COLOR": "1",
        "TRITONCFG_OUTPUT_FORMAT": "concise",
        "TRITONCFG_CACHE_DIR": str(project / "elsewhere"),
    }
    files = ("repo/a/config.pbtxt", "repo/b/config.pbtxt", "repo/c/config.pbtxt")
    done = subprocess.run(
        [sys.executable, "-c", probe, "lint", "--force-exclude", *files],
        capture_output=True, text=True, cwd=project, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert done.stderr == "[fast]" and done.returncode == 1, done.stderr
    assert done.stdout.startswith("repo/a: TC105 model 'a'")  # concise: no rule name
    assert "repo/b" not in done.stdout and "repo/c" not in done.stdout
    assert (project / "elsewhere" / "CACHEDIR.TAG").is_file()
    assert not (project / ".tritoncfg_cache").exists()


def test_watch_starts_no_run_for_a_file_left_out(project: Path) -> None:
    """--watch's filter: a change to a selected config counts; one under an excluded or ignored
    model does not; a .gitignore or the settings always does, and the selection is read again."""
    pytest.importorskip("watchfiles")
    from watchfiles import Change

    from tritoncfg.cli.lint_request import LintRequest
    from tritoncfg.cli.watch import _targets, _Wanted

    repo = project / "repo"
    request = LintRequest((str(repo),))
    wanted = _Wanted(request, _targets(request))
    modified = Change.modified
    assert wanted(modified, str(repo / "a" / "config.pbtxt"))
    assert not wanted(modified, str(repo / "b" / "config.pbtxt"))  # exclude
    assert not wanted(modified, str(repo / "c" / "config.pbtxt"))  # .gitignore
    assert wanted(modified, str(repo / ".gitignore"))
    assert wanted(modified, str(project / "tritoncfg.toml"))
    (repo / ".gitignore").write_text("a/\n")
    wanted.reread()
    assert not wanted(modified, str(repo / "a" / "config.pbtxt"))
    assert wanted(modified, str(repo / "c" / "config.pbtxt"))
