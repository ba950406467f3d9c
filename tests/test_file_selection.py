"""file_selection.py: what `exclude` and git's ignore files leave out, on real trees (a real
`git init`), with git's own answer (`git check-ignore`) as the reference where git has one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tritoncfg.file_selection import FileSelection


def _git_init(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def _files(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")


def _git_ignores(root: Path, name: str) -> bool:
    """git's own verdict."""
    result = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "-q", "--no-index", name], check=False
    )
    return result.returncode == 0


CASES = [
    "a/config.pbtxt",
    "a/configs/x.pbtxt",
    "build/m/config.pbtxt",
    "keep/m/config.pbtxt",
    "keep/m/configs/gpu.pbtxt",
    "deep/n/config.pbtxt",
    "deep/n/configs/x.pbtxt",
    "deep/o/config.pbtxt",
    "tmp/m/config.pbtxt",
    "tmp/again/config.pbtxt",
    "local/m/config.pbtxt",
]


def test_gitignore_semantics_agree_with_git(tmp_path: Path) -> None:
    root = _git_init(tmp_path / "work")
    _files(root, *CASES)
    (root / ".gitignore").write_text(
        "# comment\nbuild/\n**/configs/x.pbtxt\ntmp/**\n!tmp/again/\nkeep/\n!keep/m/\n"
    )
    (root / "deep" / ".gitignore").write_text("n/\n!configs/x.pbtxt\no\n")  # deeper file wins
    (root / ".git" / "info" / "exclude").write_text("local/\n")
    selection = FileSelection(base=root, respect_gitignore=True)
    verdicts = {name: selection.skips(root / name, within=root) for name in CASES}
    assert verdicts == {name: _git_ignores(root, name) for name in CASES}
    # the cases cover both answers, nested files, negations and what cannot come back
    assert verdicts["a/config.pbtxt"] is False and verdicts["build/m/config.pbtxt"] is True
    assert verdicts["keep/m/config.pbtxt"] is True  # keep/ is ignored: keep/m cannot come back
    assert verdicts["deep/n/configs/x.pbtxt"] is True  # n/ ignored wins over the later negation
    assert verdicts["local/m/config.pbtxt"] is True  # .git/info/exclude
    assert verdicts["deep/o/config.pbtxt"] is True


def test_a_linked_worktree_reads_the_common_info_exclude(tmp_path: Path) -> None:
    root = _git_init(tmp_path / "main")
    _files(root, "seed")
    subprocess.run(["git", "-C", str(root), "add", "seed"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "s"],
        check=True,
    )
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(root), "worktree", "add", "-q", str(linked)], check=True)
    (root / ".git" / "info" / "exclude").write_text("local/\n")
    _files(linked, "local/m/config.pbtxt", "other/m/config.pbtxt")
    selection = FileSelection(base=linked, respect_gitignore=True)
    assert selection.skips(linked / "local/m/config.pbtxt", within=linked)
    assert not selection.skips(linked / "other/m/config.pbtxt", within=linked)


def test_outside_a_git_work_tree_gitignore_files_do_not_count(tmp_path: Path) -> None:
    """As ruff (its respect-gitignore needs a git repository)."""
    _files(tmp_path, "m/config.pbtxt")
    (tmp_path / ".gitignore").write_text("m/\n")
    assert not FileSelection(base=tmp_path, respect_gitignore=True).skips(
        tmp_path / "m/config.pbtxt", within=tmp_path
    )
    _git_init(tmp_path)
    assert FileSelection(base=tmp_path, respect_gitignore=True).skips(
        tmp_path / "m/config.pbtxt", within=tmp_path
    )


def test_named_paths_are_taken_unless_force_exclude(tmp_path: Path) -> None:
    root = _git_init(tmp_path)
    _files(root, "repo/vendor/config.pbtxt", "repo/own/config.pbtxt")
    (root / ".gitignore").write_text("vendor/\n")
    walking = FileSelection(base=root, respect_gitignore=True)
    assert walking.skips_model(root / "repo" / "vendor")  # found in its repository
    assert not walking.skips_model(root / "repo" / "own")
    assert not walking.skips_model(root / "repo" / "vendor", named=True)  # named: taken
    assert not walking.skips(root / "repo/vendor/config.pbtxt")
    forced = FileSelection(base=root, respect_gitignore=True, force_exclude=True)
    assert forced.skips_model(root / "repo" / "vendor", named=True)
    assert forced.skips(root / "repo/vendor/config.pbtxt")


def test_a_named_directory_is_a_boundary(tmp_path: Path) -> None:
    """A pattern that covers the directory named on the command line does not drop what is
    found inside it (ruff walks a named directory whatever covers it); force-exclude does."""
    root = _git_init(tmp_path)
    _files(root, "vendor/m/config.pbtxt")
    (root / ".gitignore").write_text("vendor/\n")
    config = root / "vendor/m/config.pbtxt"
    assert FileSelection(base=root, respect_gitignore=True).skips(config, within=root)
    assert not FileSelection(base=root, respect_gitignore=True).skips(
        config, within=root / "vendor"
    )
    assert FileSelection(base=root, respect_gitignore=True, force_exclude=True).skips(
        config, within=root / "vendor"
    )


@pytest.mark.parametrize(
    ("pattern", "left_out"),
    [
        ("repo/b", {"b"}),
        ("repo/b/", {"b"}),
        ("repo/b/*", {"b"}),  # the model's files: git would keep nothing of it
        ("**/b/*", {"b"}),
        ("b", {"b"}),
        ("repo/*/", {"a", "b"}),
        ("config.pbtxt", {"a", "b"}),
        ("repo/bb", set()),
    ],
)
def test_exclude_patterns(tmp_path: Path, pattern: str, left_out: set[str]) -> None:
    _files(tmp_path, "repo/a/config.pbtxt", "repo/b/config.pbtxt")
    selection = FileSelection(base=tmp_path, exclude=(pattern,))
    found = {m for m in ("a", "b") if selection.skips_model(tmp_path / "repo" / m)}
    assert found == left_out


def test_exclude_negation_takes_a_model_back(tmp_path: Path) -> None:
    _files(tmp_path, "repo/a/config.pbtxt", "repo/b/config.pbtxt")
    selection = FileSelection(base=tmp_path, exclude=("repo/*/", "!repo/a/"))
    assert [m for m in ("a", "b") if selection.skips_model(tmp_path / "repo" / m)] == ["b"]


def test_respect_gitignore_off_and_no_exclude_leave_nothing_out(tmp_path: Path) -> None:
    root = _git_init(tmp_path)
    _files(root, "m/config.pbtxt")
    (root / ".gitignore").write_text("m/\n")
    assert FileSelection(base=root, respect_gitignore=True).skips_model(root / "m")
    assert not FileSelection(base=root, respect_gitignore=False).skips_model(root / "m")
    assert not FileSelection(base=root).skips_model(root / "m")  # the defaults leave nothing out


def test_the_fingerprint_follows_the_ignore_files_above_a_path(tmp_path: Path) -> None:
    root = _git_init(tmp_path)
    _files(root, "repo/m/config.pbtxt")
    selection = FileSelection(base=root, respect_gitignore=True)
    before = selection.fingerprint([root / "repo"])
    (root / "repo" / ".gitignore").write_text("m/\n")
    after = selection.fingerprint([root / "repo"])
    (root / "repo" / ".gitignore").write_text("n/\n")  # same size, other text
    assert len({before, after, selection.fingerprint([root / "repo"])}) == 3
    assert FileSelection(base=root, respect_gitignore=False).fingerprint([root / "repo"]) == ""


def test_walk_prunes_left_out_directories(tmp_path: Path) -> None:
    root = _git_init(tmp_path)
    _files(root, "a/config.pbtxt", "big/x/config.pbtxt", "a/configs/g.pbtxt", ".git/x/config.pbtxt")
    (root / ".gitignore").write_text("big/\n")
    (root / "big").chmod(0o000)  # a pruned directory is never listed
    try:
        found = list(
            FileSelection(base=root, respect_gitignore=True).walk(
                root, lambda p: p.suffix == ".pbtxt"
            )
        )
    finally:
        (root / "big").chmod(0o755)
    assert found == [root / "a/config.pbtxt", root / "a/configs/g.pbtxt"]
