"""`new PATH` where PATH is a model repository already (or a model, or a project's repository):
it adds models there and never nests a project (.github/, deploy/) that Triton would poll as
models."""

from __future__ import annotations

import shutil
from pathlib import Path

from clikit import run
from scaffold.scaffoldkit import REPOSITORY, new, snapshot

PROJECT_FILES = (".github", "tritoncfg.toml", "README.md", ".gitignore", REPOSITORY, "deploy")


def _existing_repository(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """A plain model repository (no project around it) of python models, as a team has one."""
    scratch = tmp_path / "scratch"
    for name in names:
        assert new(scratch, "-m", name, "-t", "python").returncode == 0
    repository = tmp_path / "exrepo"
    shutil.move(scratch / REPOSITORY, repository)
    return repository


def _lint(repository: Path) -> str:
    linted = run("lint", str(repository))
    assert linted.returncode == 0, linted.stdout + linted.stderr
    return linted.stdout


def test_a_model_repository_gets_no_project_inside(tmp_path: Path) -> None:
    repository = _existing_repository(tmp_path, ("a", "b", "c", "d"))
    assert "(4 models" in _lint(repository)  # the models are there and lint clean
    before = snapshot(repository)
    done = new(repository)
    assert done.returncode == 2, done.stdout
    assert f"{repository} is a model repository (models: a, b, c, d)" in done.stderr
    assert "add a model to it with --model NAME" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(repository) == before
    deploy = new(repository, "-m", "e", "--deploy", "k8s", "--storage-uri", "s3://b/r")
    assert deploy.returncode == 2 and "writing deploy/ into it" in deploy.stderr
    assert snapshot(repository) == before


def test_a_model_is_added_to_a_model_repository_in_place(tmp_path: Path) -> None:
    repository = _existing_repository(tmp_path, ("a", "b", "c", "d"))
    added = new(repository, "-m", "e", "-t", "python")
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[0] == f"created {repository / 'e'}"
    assert f"next: tritoncfg lint {repository}" in added.stdout
    assert (repository / "e" / "config.pbtxt").is_file()
    assert not [n for n in PROJECT_FILES if (repository / n).exists()]
    assert "(5 models" in _lint(repository)  # all five linted, none of them a project folder


def test_a_projects_repository_is_a_model_repository(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    assert new(root).returncode == 0  # a project with an empty model_repository
    inner = root / REPOSITORY
    refused = new(inner)
    assert refused.returncode == 2
    assert "is a model repository (its project's settings name it)" in refused.stderr
    added = new(inner, "-m", "m", "-t", "python")
    assert added.returncode == 0, added.stderr
    assert sorted(p.name for p in inner.iterdir()) == ["m"]
    assert "(1 model" in _lint(root)


def test_a_model_folder_is_refused(tmp_path: Path) -> None:
    repository = _existing_repository(tmp_path, ("a",))
    before = snapshot(repository)
    done = new(repository / "a", "-m", "x")
    assert done.returncode == 2
    assert f"{repository / 'a'} is a model folder" in done.stderr
    assert f"give its repository, {repository}" in done.stderr
    assert snapshot(repository) == before


def test_a_project_whose_settings_name_another_repository(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "tritoncfg.toml").write_text('repository = "models"\n')
    done = new(root, "-m", "m", "-t", "python")
    assert done.returncode == 0, done.stderr
    assert (root / "models" / "m" / "config.pbtxt").is_file()
    assert not (root / REPOSITORY).exists()
    assert "(1 model" in _lint(root)
    (root / "tritoncfg.toml").write_text('repository = "../elsewhere"\n')
    outside = new(root, "-m", "n")
    assert outside.returncode == 2 and "outside the project" in outside.stderr
    assert not (tmp_path / "elsewhere").exists()
