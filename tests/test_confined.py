"""tritoncfg.confined: regular files only, of bounded size, never waited on; writes only inside
the repository root, the link that leaves it named."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tritoncfg.confined import (
    CONFIG_SIZE_LIMIT,
    PathRefused,
    Snapshot,
    check_input,
    confine,
    read_regular,
    read_snapshot,
    unchanged,
)


def _in_thread(call: object, seconds: float = 10) -> BaseException | object:
    """Run `call` in a daemon thread; what it returned or raised, or TimeoutError if it hung."""
    outcome: list[object] = []

    def target() -> None:
        try:
            outcome.append(call())  # type: ignore[operator]
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    return outcome[0] if outcome else TimeoutError("hung")


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "config.pbtxt"
    os.mkfifo(fifo)
    outcome = _in_thread(lambda: read_regular(fifo))  # opening a FIFO blocks until a writer
    assert isinstance(outcome, PathRefused), outcome
    assert "a FIFO (named pipe), not a regular file" in str(outcome)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_devices_are_refused(device: str) -> None:
    with pytest.raises(PathRefused, match="a character device"):
        read_regular(device)
    with pytest.raises(PathRefused, match="a character device; give a config file"):
        check_input(device)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PathRefused, match="a directory, not a regular file"):
        read_regular(tmp_path)


def test_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_bytes(b"#" * 101)
    assert read_regular(path, limit=101) == b"#" * 101
    with pytest.raises(PathRefused, match="101 bytes, over the 0 MiB limit"):
        read_regular(path, limit=100)
    with path.open("r+b") as handle:  # sparse: the size check comes before any read
        handle.truncate(CONFIG_SIZE_LIMIT + 1)
    with pytest.raises(PathRefused, match="over the 64 MiB limit"):
        read_regular(path)


def test_no_follow_refuses_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to("real")
    assert read_regular(tmp_path / "link") == b"x"
    with pytest.raises(PathRefused, match="a symbolic link; not followed"):
        read_regular(tmp_path / "link", follow=False)


def test_check_input_loops_and_long_names(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(PathRefused, match="a symbolic link loop"):
        check_input(tmp_path / "a")
    with pytest.raises(PathRefused, match="too long for the file system"):
        check_input(tmp_path / ("x" * 300))
    with pytest.raises(PathRefused, match="too long for the file system"):
        check_input(tmp_path.joinpath(*["abcdefgh"] * 600))
    check_input(tmp_path / "missing")  # missing is the caller's to report
    check_input(tmp_path)


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """repo/a (a model) and repo/b, a symlink to a model folder outside the repository."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.pbtxt").write_text("outside")
    repo = tmp_path / "repo"
    (repo / "a").mkdir(parents=True)
    (repo / "a" / "config.pbtxt").write_text("inside")
    (repo / "b").symlink_to(outside)
    (repo / "c").symlink_to("a")  # a link inside the root is followed
    return repo, outside


def test_confine_names_the_link_that_leaves_the_root(linked: tuple[Path, Path]) -> None:
    repo, outside = linked
    with pytest.raises(PathRefused) as refused:
        confine(repo / "b" / "config.pbtxt", repo)
    assert f"'{repo / 'b'}' is a symbolic link out of the repository root" in str(refused.value)
    assert f"to '{outside}'" in str(refused.value)
    confine(repo / "a" / "config.pbtxt", repo)
    confine(repo / "c" / "config.pbtxt", repo)
    confine(repo / "a" / "new.pbtxt", repo)  # not there yet: fine
    with pytest.raises(PathRefused, match="a symbolic link out of the repository root"):
        confine(repo / "b" / "1" / "new" / "file", repo, directory=True)


def test_confine_a_root_that_is_a_symlink_is_resolved_once(linked: tuple[Path, Path]) -> None:
    repo, _ = linked
    alias = repo.parent / "alias"
    alias.symlink_to(repo)
    confine(alias / "a" / "config.pbtxt", alias)
    with pytest.raises(PathRefused, match="symbolic link out of the repository root"):
        confine(alias / "b" / "config.pbtxt", alias)


def test_confine_refuses_what_is_not_a_regular_file(linked: tuple[Path, Path]) -> None:
    repo, _ = linked
    with pytest.raises(PathRefused, match="a directory, not a regular file"):
        confine(repo / "a", repo)
    confine(repo / "a", repo, directory=True)
    (repo / "a" / "link.pbtxt").symlink_to("config.pbtxt")
    with pytest.raises(PathRefused, match="a symbolic link; write the file it points to"):
        confine(repo / "a" / "link.pbtxt", repo)


def test_snapshot_sees_an_edit_of_the_same_size(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    path.write_bytes(b"max_batch_size: 4\n")
    data, snapshot = read_snapshot(path)
    assert unchanged(path, snapshot) and unchanged(path, Snapshot.of(data))
    stamp = os.stat(path)
    path.write_bytes(b"max_batch_size: 8\n")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # within the clock's tick
    assert not unchanged(path, snapshot)
    assert not unchanged(path, Snapshot.of(data))
    path.unlink()
    assert not unchanged(path, Snapshot.of(data))
