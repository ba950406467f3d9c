"""tritoncfg.atomic: a file is replaced whole, keeps its mode, and a new one gets the umask's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tritoncfg.atomic import copy_atomic, current_umask, write_atomic


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
