"""`tritoncfg fmt`: --check, --diff, --stdin, writes in place, fmt: off, refuses broken files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from clikit import run

UGLY = 'name:"m" # the name\nmax_batch_size : 8;input<name:"x" dims:[1,2]>\n'
PRETTY = 'name: "m"  # the name\nmax_batch_size: 8\ninput {\n  name: "x"\n  dims: [ 1, 2 ]\n}\n'


def _model(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m" / "config.pbtxt"
    path.parent.mkdir()
    path.write_text(text)
    return path


def test_check_lists_files_and_exits_one(tmp_path: Path) -> None:
    path = _model(tmp_path, UGLY)
    result = run("fmt", "--check", str(tmp_path))
    assert result.returncode == 1
    assert f"would reformat {path}" in result.stdout
    assert path.read_text() == UGLY  # --check changes nothing


def test_diff_prints_a_unified_diff(tmp_path: Path) -> None:
    path = _model(tmp_path, UGLY)
    result = run("fmt", "--diff", str(path))
    assert result.returncode == 1
    assert result.stdout.startswith(f"--- {path}\n+++ {path}\n")
    assert "+max_batch_size: 8\n" in result.stdout
    assert path.read_text() == UGLY


def test_writes_in_place_and_is_then_clean(tmp_path: Path) -> None:
    path = _model(tmp_path, UGLY)
    assert run("fmt", str(path)).returncode == 0
    assert path.read_text() == PRETTY
    assert not list(path.parent.glob(".*.tmp"))  # the atomic write left no temp file
    assert run("fmt", "--check", str(path)).returncode == 0


def test_the_summary_counts_the_files_left_as_they_were(tmp_path: Path) -> None:
    _model(tmp_path, UGLY)
    (tmp_path / "n").mkdir()
    (tmp_path / "n" / "config.pbtxt").write_text(PRETTY)
    check = run("fmt", "--check", str(tmp_path))
    assert check.stderr == "1 file would be reformatted, 1 file already formatted\n"
    assert run("fmt", str(tmp_path)).stderr == "1 file reformatted, 1 file left unchanged\n"
    assert run("fmt", "--check", str(tmp_path)).stderr == (
        "0 files would be reformatted, 2 files already formatted\n"
    )


def test_stdin(tmp_path: Path) -> None:
    result = run("fmt", "--stdin", stdin=UGLY)
    assert result.returncode == 0
    assert result.stdout == PRETTY
    assert run("fmt", "--stdin", "--check", stdin=UGLY).returncode == 1
    assert run("fmt", "--stdin", "--check", stdin=PRETTY).returncode == 0


def test_stdin_reads_bytes_as_a_file_is_read() -> None:
    """Invalid UTF-8 is refused with its position (not echoed back, nor reported as an odd
    character), and CRLF is kept for the formatter to normalise, as for a file."""

    def fmt_stdin(data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-m", "tritoncfg", "fmt", "--stdin", *args]
        return subprocess.run(command, input=data, capture_output=True, check=False)

    invalid = fmt_stdin(b'name: "\xff"\n')
    assert (invalid.returncode, invalid.stdout) == (2, b"")
    assert b"<stdin>:1:8: invalid UTF-8 at byte offset 7" in invalid.stderr
    assert b"Traceback" not in invalid.stderr
    crlf = fmt_stdin(b'name: "m"\r\n')
    assert (crlf.returncode, crlf.stdout) == (0, b'name: "m"\n')
    assert fmt_stdin(b'name: "m"\r\n', "--check").returncode == 1
    assert fmt_stdin(b'name: "m"\n', "--check").returncode == 0


def test_fmt_off_leaves_the_file_alone(tmp_path: Path) -> None:
    text = "# tritoncfg: fmt: off\n" + UGLY
    path = _model(tmp_path, text)
    assert run("fmt", "--check", str(path)).returncode == 0
    assert run("fmt", str(path)).returncode == 0
    assert path.read_text() == text


def test_unparsable_file_is_reported_and_untouched(tmp_path: Path) -> None:
    text = 'name: "m"\ninput {\n'
    path = _model(tmp_path, text)
    result = run("fmt", str(path))
    assert result.returncode == 2
    assert f'{path}:3:1: cannot format: Expected "}}", found end of input.' in result.stderr
    assert path.read_text() == text
