"""`tritoncfg new` checks every path it will write before the first write: names and paths the
file system cannot hold, and files where its folders must go, stop it with nothing written; and
it copies nothing from outside the model's folder (ONNX external data behind a symlink)."""

from __future__ import annotations

from pathlib import Path

from scaffold.scaffoldkit import REPOSITORY, assert_clean, new, snapshot


def test_a_name_over_255_bytes_writes_nothing(tmp_path: Path) -> None:
    done = new(tmp_path / "d", "-m", "a" * 300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "is 300 bytes long" in done.stderr and "at most 255 bytes" in done.stderr
    assert not (tmp_path / "d").exists()


def test_a_name_of_255_bytes_is_a_model(tmp_path: Path) -> None:
    """The longest folder name works: the folder is built under a shorter name, then renamed."""
    name = "m" * 255
    done = new(tmp_path / "d", "-m", name, "--template", "python")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "d" / REPOSITORY / name / "config.pbtxt").is_file()
    assert [p.name for p in (tmp_path / "d").iterdir() if p.name.endswith(".new")] == []
    assert_clean(tmp_path / "d")


def test_a_path_over_path_max_writes_nothing(tmp_path: Path) -> None:
    """The project folder's own path fits, the model's files under it would not."""
    root = tmp_path
    while len(str(root)) + 201 < 4060:
        root = root / ("p" * 200)
    root = root / ("q" * (4060 - len(str(root)) - 1))  # 4,060 bytes
    root.mkdir(parents=True)
    done = new(root, "-m", "m", "--template", "python")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the path is too long to write" in done.stderr
    assert list(root.iterdir()) == []


def test_a_file_where_a_folder_must_go_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "d"
    root.mkdir()
    (root / ".github").write_text("a file, not the workflows folder\n")
    before = snapshot(root)
    done = new(root, "-m", "m")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{root / '.github'}: exists and is not a directory" in done.stderr
    assert snapshot(root) == before


def test_external_data_linked_from_elsewhere_is_not_copied(tmp_path: Path) -> None:
    """`weights.bin` beside the model is a symlink to a file elsewhere: its bytes would end up in
    the project (and ONNX Runtime would refuse to load the source model as it is): refused,
    naming the file, nothing written."""
    from models.onnxkit import make_external

    source = make_external(tmp_path / "src" / "big.onnx")
    elsewhere = tmp_path / "private" / "weights.bin"
    elsewhere.parent.mkdir()
    (source.parent / "weights.bin").rename(elsewhere)
    (source.parent / "weights.bin").symlink_to(elsewhere)
    done = new(tmp_path / "d", "--from-model", str(source))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"its external data file {source.parent / 'weights.bin'} is not copied" in done.stderr
    assert f"it resolves to '{elsewhere}'" in done.stderr
    assert not (tmp_path / "d").exists()
