"""tritoncfg.atomic: a file is replaced whole, keeps its mode, and a new one gets the umask's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tritoncfg.atomic import copy_atomic, current_umask, write_atomic
from tritoncfg.confined import PathRefused, read_snapshot


def test_new_file_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    write_atomic(path, 'name: "m"\n')
    assert path.read_text() == 'name: "m"\n'
    assert path.stat().st_mode & 0o777 == 0o666 & ~current_umask()  # not mkstemp's 0600


def test_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, "new")
    assert (path.read_text(), path.stat().st_mode & 0o777) == ("new", 0o640)


def test_copy_is_byte_identical_and_leaves_no_temporary(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(os.urandom(3 << 20))  # more than one copy chunk
    target = tmp_path / "out" / "model.onnx"
    target.parent.mkdir()
    copy_atomic(source, target)
    assert target.read_bytes() == source.read_bytes()
    assert [p.name for p in target.parent.iterdir()] == ["model.onnx"]


def test_failed_copy_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    target.write_bytes(b"old")
    with pytest.raises(FileNotFoundError):
        copy_atomic(tmp_path / "missing.onnx", target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["model.onnx"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_replaced_file_keeps_its_owner_and_group(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_text("old")
    os.chown(path, 4321, 8765)
    path.chmod(0o2640)  # setgid survives: the chown comes before the chmod
    write_atomic(path, "new")
    status = path.stat()
    assert (status.st_uid, status.st_gid, status.st_mode & 0o7777) == (4321, 8765, 0o2640)


def test_a_file_with_several_hard_links_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_text("old")
    os.link(path, tmp_path / "other.pbtxt")
    with pytest.raises(PathRefused, match="has 2 hard links, and replacing it would split them"):
        write_atomic(path, "new")
    assert path.read_text() == "old" and os.path.samefile(path, tmp_path / "other.pbtxt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.pbtxt", "other.pbtxt"]


def test_a_file_edited_since_it_was_read_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_text("old")
    _, snapshot = read_snapshot(path)
    path.write_text("edited meanwhile")
    with pytest.raises(PathRefused, match="changed since it was read"):
        write_atomic(path, "formatted", expect=snapshot)
    assert path.read_text() == "edited meanwhile"
    assert [p.name for p in tmp_path.iterdir()] == ["config.pbtxt"]  # no temporary left
    _, snapshot = read_snapshot(path)
    write_atomic(path, "formatted", expect=snapshot)
    assert path.read_text() == "formatted"


def test_a_write_through_a_linked_folder_out_of_the_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.pbtxt").write_text("outside")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "b").symlink_to(outside)
    target = tmp_path / "repo" / "b" / "config.pbtxt"
    with pytest.raises(PathRefused, match="symbolic link out of the repository root"):
        write_atomic(target, "changed", root=tmp_path / "repo")
    assert (outside / "config.pbtxt").read_text() == "outside"
    assert [p.name for p in outside.iterdir()] == ["config.pbtxt"]
