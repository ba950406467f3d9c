"""Discovery never leaves the root, never raises for layout problems, and reads only configs."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tritoncfg.repository import RepositoryError, discover
from tritoncfg.text.span import Span

Tree = Callable[..., Path]


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Every directory discovery lists, as absolute resolved paths."""
    seen: list[Path] = []
    real_scandir = os.scandir

    def spy(path: Any) -> Any:
        seen.append(Path(path).resolve())
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", spy)
    yield seen


def test_symlink_outside_root_is_reported_not_followed(
    tree: Tree, tmp_path: Path, listed: list[Path]
) -> None:
    outside = tree("config.pbtxt", "1/model.onnx", base="outside/ext")
    repo_dir = tree("m/config.pbtxt", "m/1/")
    (repo_dir / "ext").symlink_to(outside, target_is_directory=True)
    (repo_dir / "m/1/model.onnx").symlink_to(outside / "1/model.onnx")
    repo = discover(repo_dir)
    assert [m.name for m in repo.models] == ["m"]
    escaped = [i for i in repo.issues if i.kind == "symlink_outside_root"]
    assert [i.path for i in escaped] == [repo_dir / "ext", repo_dir / "m/1/model.onnx"]
    (m,) = repo.models
    link = m.versions[0].entry("model.onnx")
    assert link is not None
    assert (link.is_symlink, link.outside_root, link.is_file) == (True, True, False)
    assert not any(p.is_relative_to(tmp_path / "outside") for p in listed)


def test_selected_model_linked_outside_is_not_listed(
    tree: Tree, tmp_path: Path, listed: list[Path]
) -> None:
    outside = tree("config.pbtxt", base="outside/m")
    repo_dir = tree("other/config.pbtxt")
    (repo_dir / "m").symlink_to(outside, target_is_directory=True)
    repo = discover(repo_dir / "m" / "config.pbtxt")
    (m,) = repo.models
    assert not m.accessible and not m.config_exists
    assert [i.kind for i in repo.issues] == ["symlink_outside_root"]
    assert not any(p.is_relative_to(tmp_path / "outside") for p in listed)
    with pytest.raises(RepositoryError, match="outside the repository root"):
        m.read_config()


def test_symlink_inside_root_is_followed(tree: Tree) -> None:
    repo_dir = tree("m/config.pbtxt", "m/1/", "shared/model.onnx")
    (repo_dir / "m/1/model.onnx").symlink_to(repo_dir / "shared/model.onnx")
    (repo_dir / "m/2").symlink_to(repo_dir / "m/1", target_is_directory=True)
    repo = discover(repo_dir)
    m = repo.model("m")
    assert m is not None
    assert m.version_numbers == (1, 2)
    assert m.versions[0].has_file("model.onnx")
    assert m.versions[1].has_file("model.onnx")
    assert not [i for i in repo.issues if i.kind.endswith("symlink")]


def test_broken_and_looping_symlinks(tree: Tree) -> None:
    repo_dir = tree("m/config.pbtxt")
    (repo_dir / "m/dangling").symlink_to(repo_dir / "m/nothing")
    (repo_dir / "m/loop").symlink_to(repo_dir / "m/loop")
    repo = discover(repo_dir)
    broken = sorted(i.path.name for i in repo.issues if i.kind == "broken_symlink")
    assert broken == ["dangling", "loop"]


def test_unreadable_dir_chmod(tree: Tree) -> None:
    if os.geteuid() == 0:
        pytest.skip("running as root: chmod 000 does not stop root from reading")
    repo_dir = tree("ok/config.pbtxt", "locked/config.pbtxt")
    locked = repo_dir / "locked"
    locked.chmod(0)
    try:
        repo = discover(repo_dir)
    finally:
        locked.chmod(0o755)
    m = repo.model("locked")
    assert m is not None and not m.accessible
    assert [(i.kind, i.path) for i in repo.issues] == [("unreadable_dir", locked)]


def test_unreadable_dir_simulated(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    repo_dir = tree("ok/config.pbtxt", "locked/config.pbtxt", "ok2/1/")
    locked = repo_dir / "locked"
    real_scandir = os.scandir

    def deny(path: Any) -> Any:
        if Path(path) in (locked, repo_dir / "ok2" / "1"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", deny)
    repo = discover(repo_dir)
    m = repo.model("locked")
    assert m is not None and not m.accessible
    unreadable = [i for i in repo.issues if i.kind == "unreadable_dir"]
    assert [i.path for i in unreadable] == [locked, repo_dir / "ok2/1"]
    assert unreadable[0].detail == "cannot list directory: Permission denied"
    ok2 = repo.model("ok2")
    assert ok2 is not None and ok2.version_numbers == (1,) and ok2.versions[0].entries == ()


def test_unreadable_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo_dir = tmp_path / "repo"
    repo_dir.mkdir()

    def deny(path: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", deny)
    repo = discover(repo_dir)
    assert repo.models == ()
    assert [i.kind for i in repo.issues] == ["unreadable_dir"]


def test_read_config_utf8(tree: Tree) -> None:
    model = tree(files={"config.pbtxt": 'name: "m" # é\n'}, base="repo/m")
    assert discover(model).models[0].read_config() == 'name: "m" # é\n'


def test_read_config_invalid_utf8(tree: Tree) -> None:
    model = tree(files={"config.pbtxt": b'name: "m"\n# \xff\n'}, base="repo/m")
    (m,) = discover(model).models
    with pytest.raises(RepositoryError) as caught:
        m.read_config()
    assert caught.value.span == Span.point(2, 3)  # the bad byte's line and column
    assert caught.value.path == model / "config.pbtxt"
    assert "invalid UTF-8 at byte offset 12 (line 2, byte column 3)" in str(caught.value)
    assert m.read_config_bytes().endswith(b"\xff\n")


def test_read_config_missing(tree: Tree) -> None:
    model = tree("1/", base="repo/m")
    (m,) = discover(model).models
    with pytest.raises(RepositoryError, match="No such file or directory"):
        m.read_config()


def test_resolve_stays_inside_model_dir(tree: Tree, tmp_path: Path) -> None:
    model = tree("config.pbtxt", "labels.txt", "sub/", base="repo/m")
    (model / "sub/out").symlink_to(tmp_path, target_is_directory=True)
    (m,) = discover(model).models
    assert m.resolve("labels.txt") == model / "labels.txt"
    assert m.resolve("sub/../labels.txt") == model / "labels.txt"
    assert m.resolve("/labels.txt") == model / "labels.txt"  # Triton's JoinPath
    assert m.resolve("missing.txt") == model / "missing.txt"
    assert m.resolve("../labels.txt") is None
    assert m.resolve("../m2/labels.txt") is None
    assert m.resolve("sub/out/x") is None
