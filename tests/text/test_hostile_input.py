"""Hostile and broken input: each gets a clear diagnostic and the right exit status, never a
traceback; a write never leaves a partial file, never touches a file outside its target, and
keeps the file's mode. Every case runs the real `tritoncfg` command on real files."""

from __future__ import annotations

import importlib.util
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import run

from tritoncfg.text import parse
from tritoncfg.text.parser import RECURSION_LIMIT

ROOT = Path(__file__).resolve().parents[2]
VALID = 'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 4\n'
IS_ROOT = os.geteuid() == 0


def model(root: Path, name: str = "m", config: str | bytes | None = VALID) -> Path:
    """A model directory with a version folder and, unless None, a config.pbtxt."""
    path = root / "repo" / name
    (path / "1").mkdir(parents=True)
    if isinstance(config, bytes):
        (path / "config.pbtxt").write_bytes(config)
    elif config is not None:
        (path / "config.pbtxt").write_text(config, encoding="utf-8")
    return path


def clean(result: subprocess.CompletedProcess[str], status: int) -> str:
    """The run ended with `status` and no traceback; its stdout and stderr together."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == status, result.stdout + result.stderr
    return result.stdout + result.stderr


def nested(depth: int) -> str:
    return "optimization { " * depth + "}" * depth + "\n"


# -- the parser's depth limit ----------------------------------------------------------------


@pytest.mark.parametrize("depth", [1_000, 10_000])
def test_deep_nesting_is_a_syntax_error_at_the_block_past_the_limit(depth: int) -> None:
    parsed = parse(nested(depth))
    assert [error.kind for error in parsed.errors] == ["syntax"]
    error = parsed.errors[0]
    assert error.message == (
        "Message is too deep, the parser exceeded the configured recursion limit of 100."
    )
    assert (error.span.line, error.span.column) == (1, RECURSION_LIMIT * 15 + 14)


def test_nesting_up_to_the_limit_parses() -> None:
    parsed = parse(nested(RECURSION_LIMIT))
    assert parsed.document is not None  # the tree was built; binding then rejects the field
    assert parsed.errors[0].kind == "unknown-field"


@pytest.mark.parametrize("command", ["lint", "fmt", "complete"])
def test_deep_nesting_through_each_command(tmp_path: Path, command: str) -> None:
    path = model(tmp_path, config=nested(10_000))
    result = run(command, str(path / "config.pbtxt"))
    out = clean(result, 1 if command == "lint" else 2)
    assert "config.pbtxt:1:1514" in out
    assert "recursion limit of 100" in out
    assert len(out) < 5_000  # the 150 kB source line is shown as a window, not whole


# -- file contents -------------------------------------------------------------------------


def test_empty_file_is_an_empty_config(tmp_path: Path) -> None:
    path = model(tmp_path, config="")
    out = clean(run("lint", str(path)), 1)
    assert "TC110" in out  # linted as an empty config: no backend can be told
    assert clean(run("fmt", "--check", str(path / "config.pbtxt")), 0)


def test_nul_byte_outside_a_string(tmp_path: Path) -> None:
    path = model(tmp_path, config=b'name: "m"\nmax_batch_size: 4\x00\n')
    out = clean(run("lint", str(path)), 1)
    assert "config.pbtxt:2:18: TC001" in out
    assert "Invalid control characters encountered in text." in out
    assert "\x00" not in out and "\u2400" in out  # shown as a picture, not written raw


def test_control_characters_in_values_never_reach_the_terminal_raw(tmp_path: Path) -> None:
    path = model(tmp_path, config=b'name: "n\x00\x1b[2Jl"\nbackend: "onnxruntime"\n')
    out = clean(run("lint", str(path)), 1)
    assert "TC107" in out  # the name does not match the directory
    assert "\x00" not in out and "\x1b" not in out


def test_invalid_utf8(tmp_path: Path) -> None:
    path = model(tmp_path, config=b'name: "\xff\xfe"\n')
    out = clean(run("lint", str(path)), 1)
    assert "TC007" in out and "invalid UTF-8 at byte offset 7 (line 1, byte column 8)" in out
    fmt = clean(run("fmt", str(path / "config.pbtxt")), 2)
    assert "cannot read" in fmt


def test_crlf_line_endings(tmp_path: Path) -> None:
    text = 'name: "m"\r\nbackend: "onnxruntime"\r\nmax_batch_size: 4\r\n# end\r\n'
    path = model(tmp_path, config=text.encode())
    out = clean(run("lint", "--model-files", "optional", str(path)), 0)
    assert "TC903" in out  # parsed and checked: batching without dynamic_batching
    assert "config.pbtxt:3:1:" in out
    config = path / "config.pbtxt"
    assert clean(run("fmt", str(config)), 0)
    assert config.read_bytes() == b'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 4\n# end\n'


def test_byte_order_mark(tmp_path: Path) -> None:
    path = model(tmp_path, config=b"\xef\xbb\xbf" + VALID.encode())
    out = clean(run("lint", str(path)), 1)
    assert "config.pbtxt:1:1: TC001" in out
    assert "Unexpected character '\\ufeff' outside a string." in out
    before = (path / "config.pbtxt").read_bytes()
    assert "cannot format" in clean(run("fmt", str(path / "config.pbtxt")), 2)
    assert (path / "config.pbtxt").read_bytes() == before


@pytest.mark.slow
def test_fifty_megabyte_config(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "large_config_bench", ROOT / "bench" / "large_config_bench.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = bench.write_model(tmp_path / "repo", 50_000_000)
    config = path / "config.pbtxt"
    with config.open("a") as handle:
        handle.write("max_batch_sise: 2\n")  # one error at the very end
    lines = config.read_text().count("\n")
    out = clean(run("lint", "--quiet", str(path)), 1)
    assert f"config.pbtxt:{lines}:1: TC002" in out


# -- the file system -----------------------------------------------------------------------


def test_directory_named_config_pbtxt(tmp_path: Path) -> None:
    path = model(tmp_path, config=None)
    (path / "config.pbtxt").mkdir()
    for target in (tmp_path / "repo", path / "config.pbtxt"):  # the repository, or the path itself
        out = clean(run("lint", str(target)), 1)
        assert "TC104 error" in out and "is a directory, not a file" in out
    assert "0 files reformatted" in clean(run("fmt", str(tmp_path / "repo")), 0)


@pytest.mark.skipif(IS_ROOT, reason="running as root: chmod 000 does not stop root from reading")
def test_unreadable_config(tmp_path: Path) -> None:
    path = model(tmp_path)
    (path / "config.pbtxt").chmod(0)
    out = clean(run("lint", str(path)), 1)
    assert "TC007" in out and "Permission denied" in out


def test_symlink_loop(tmp_path: Path) -> None:
    path = model(tmp_path, config=None)
    (path / "config.pbtxt").symlink_to("config.pbtxt")
    out = clean(run("lint", str(tmp_path / "repo")), 1)
    assert "symlink cannot be resolved" in out


def test_config_symlinked_outside_the_repository_is_not_read_or_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside.pbtxt"
    outside.write_text('name:"secret"  max_batch_size:4\n')
    path = model(tmp_path, config=None)
    (path / "config.pbtxt").symlink_to(outside)
    out = clean(run("lint", str(tmp_path / "repo")), 1)
    assert "symlink points outside the repository root" in out and "secret" not in out
    fmt = clean(run("fmt", str(path / "config.pbtxt")), 2)
    assert "a symbolic link" in fmt
    assert outside.read_text() == 'name:"secret"  max_batch_size:4\n'
    assert (path / "config.pbtxt").is_symlink()


def test_model_names_with_dot_dot_never_leave_the_repository(tmp_path: Path) -> None:
    model(tmp_path, "a..b", 'name: "a..b"\nbackend: "python"\n')
    outside = model(tmp_path / "elsewhere", "outside", 'name: "outside"\nbackend: "python"\n')
    ensemble = """name: "ens"
platform: "ensemble"
input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]
ensemble_scheduling { step [ { model_name: "../../elsewhere/repo/outside" model_version: -1
  input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ] }
"""
    model(tmp_path, "ens", ensemble)
    out = clean(run("lint", str(tmp_path / "repo")), 1)
    assert "TC520" in out and "which is not in the repository" in out
    assert "a..b/1/model.py" in out  # the model named with dots is linted like any other
    assert str(outside) not in out


def test_one_hundred_thousand_version_folders(tmp_path: Path) -> None:
    path = model(tmp_path, config='name: "m"\nbackend: "python"\n')
    for number in range(2, 100_001):
        (path / str(number)).mkdir()
    out = clean(run("lint", "--quiet", str(path)), 1)
    assert "version 100000 of python model 'm'" in out  # the latest version is the one loaded


# -- writes that fail ------------------------------------------------------------------------

UNFORMATTED = 'name:"m"  max_batch_size:4  # a comment that makes the file longer than 64 bytes\n'


def test_fmt_keeps_the_file_mode(tmp_path: Path) -> None:
    config = model(tmp_path, config=UNFORMATTED) / "config.pbtxt"
    config.chmod(0o640)
    assert "reformatted" in clean(run("fmt", str(config)), 0)
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert "# a comment" in config.read_text()


def test_fmt_when_the_disk_is_full(tmp_path: Path) -> None:
    """A full disk, as the process sees it: RLIMIT_FSIZE makes any write past 64 bytes fail with
    EFBIG (Python ignores SIGXFSZ), root included, no mount needed."""
    config = model(tmp_path, config=UNFORMATTED) / "config.pbtxt"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    result = subprocess.run(
        [sys.executable, "-m", "tritoncfg", "fmt", str(config)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        check=False,
    )
    assert "cannot write: File too large" in clean(result, 2)
    assert config.read_text() == UNFORMATTED
    assert sorted(p.name for p in config.parent.iterdir()) == ["1", "config.pbtxt"]


@pytest.mark.skipif(IS_ROOT, reason="running as root: a read-only directory does not stop root")
def test_fmt_into_a_read_only_directory(tmp_path: Path) -> None:
    config = model(tmp_path, config=UNFORMATTED) / "config.pbtxt"
    config.parent.chmod(0o555)
    try:
        out = clean(run("fmt", str(config)), 2)
    finally:
        config.parent.chmod(0o755)
    assert "cannot write: Permission denied" in out
    assert config.read_text() == UNFORMATTED


def test_atomic_write_refuses_a_symlink_and_leaves_both_files(tmp_path: Path) -> None:
    from tritoncfg.atomic import write_atomic

    target = tmp_path / "target.pbtxt"
    target.write_text("a: 1\n")
    link = tmp_path / "config.pbtxt"
    link.symlink_to(target)
    with pytest.raises(OSError, match="a symbolic link"):
        write_atomic(link, "b: 2\n")
    assert link.is_symlink() and target.read_text() == "a: 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.pbtxt", "target.pbtxt"]


def test_deep_json_is_a_syntax_error_too(tmp_path: Path) -> None:
    path = model(tmp_path, config=None) / "config.json"
    path.write_text('{"optimization": ' * 10_000 + "{}" + "}" * 10_000)
    out = clean(run("lint", str(path)), 1)
    assert "config.json:1:1701: TC001" in out
    assert "recursion limit of 100" in out
    assert "cannot format" in clean(run("fmt", str(path)), 2)
