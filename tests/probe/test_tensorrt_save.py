"""`--save-plan` writes through `write_atomic_bytes`: the whole plan or the old file, no temp left."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritoncfg.atomic import write_atomic, write_atomic_bytes


def test_bytes_replace_the_file_whole_and_keep_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "model.plan"
    target.write_bytes(b"old")
    target.chmod(0o640)
    data = bytes(range(256)) * 100
    write_atomic_bytes(target, data)
    assert target.read_bytes() == data
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["model.plan"]


def test_text_still_goes_through_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "config.pbtxt"
    write_atomic(target, 'name: "m"\r\n# é\n')
    assert target.read_bytes() == 'name: "m"\r\n# é\n'.encode()


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "model.plan"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomic_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["model.plan"]
