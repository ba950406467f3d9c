"""The hostile-input matrix: every local command that reads a config (lint, fmt --check, convert,
complete) on every hostile input below ends with exit status 0, 1 or 2, never a traceback, and
when it fails says where: `file:line:col`. (`fmt --check`'s 1 is "would reformat FILE", not an
error.) The commands run in-process through the Typer app, so the whole matrix takes seconds;
the inputs that touch the file system itself run as real processes, with a time limit."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tritoncfg.cli.app import app

VALID = b'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 4\n'
NESTED = b"optimization { " * 10_000 + b"}" * 10_000 + b"\n"
FIELDS = b'input { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ' * 4_000

# name: (file name, content)
INPUTS: dict[str, tuple[str, bytes]] = {
    "empty": ("config.pbtxt", b""),
    "nul-only": ("config.pbtxt", b"\0" * 4_096),
    "nul-after-a-field": ("config.pbtxt", VALID + b"max_batch_size: 4\0\n"),
    "nul-in-a-string": ("config.pbtxt", b'name: "m\0"\n'),
    "control-characters": ("config.pbtxt", b'name: "\x1b[2J"\n# \x07\x08\n'),
    "invalid-utf8": ("config.pbtxt", b'name: "\xff\xfe"\n'),
    "invalid-utf8-json": ("config.json", b'{"name": "\xc3"}'),
    "invalid-utf8-escape": ("config.pbtxt", b'name: "\\xff"\n'),
    "lone-surrogate-escape": ("config.pbtxt", b'name: "\\ud800"\n'),
    "lone-surrogate-json": ("config.json", b'{"name": "\\udc00"}'),
    "huge-integer": ("config.pbtxt", b"max_batch_size: 99999999999999999999999\n"),
    "5000-digit-integer": ("config.pbtxt", b"max_batch_size: " + b"9" * 5_000 + b"\n"),
    "5000-digit-integer-json": ("config.json", b'{"max_batch_size": ' + b"9" * 5_000 + b"}"),
    "5000-digit-negative-json": ("config.json", b'{"max_batch_size": -' + b"9" * 5_000 + b"}"),
    "huge-exponent": ("config.pbtxt", b"optimization { priority: 1e99999 }\n"),
    "huge-float-json": ("config.json", b'{"max_batch_size": 1e400}'),
    "negative-unsigned": ("config.pbtxt", b"version_policy { specific { versions: -1 } }\n"),
    "deep-nesting": ("config.pbtxt", NESTED),
    "deep-nesting-json": ("config.json", b'{"optimization": ' * 10_000 + b"{}" + b"}" * 10_000),
    "deep-arrays-json": ("config.json", b"[" * 200_000),
    "unbalanced-close": ("config.pbtxt", b"}" * 1_000),
    "unterminated-string": ("config.pbtxt", b'name: "m\nbackend: "onnxruntime"\n'),
    "unterminated-string-json": ("config.json", b'{"name": "m'),
    "unterminated-block": ("config.pbtxt", b"dynamic_batching {\n"),
    "bom": ("config.pbtxt", b"\xef\xbb\xbf" + VALID),
    "bom-json": ("config.json", b'\xef\xbb\xbf{"name": "m"}'),
    "crlf": ("config.pbtxt", VALID.replace(b"\n", b"\r\n")),
    "crlf-json": ("config.json", b'{\r\n"name": "m",\r\n"backend": "onnxruntime"\r\n}\r\n'),
    "lone-cr": ("config.pbtxt", VALID.replace(b"\n", b"\r")),
    "very-long-line": ("config.pbtxt", FIELDS + b"\n"),
    "very-long-string": ("config.pbtxt", b'name: "' + b"m" * 300_000 + b'"\n'),
    "very-long-identifier": ("config.pbtxt", b"a" * 300_000 + b": 1\n"),
    "duplicate-keys-json": ("config.json", b'{"name": "a", "name": "b", "max_batch_size": 1}'),
    "trailing-comma-json": ("config.json", b'{"name": "m",}'),
    "nan-json": ("config.json", b'{"parameters": {"k": {"string_value": NaN}}}'),
    "not-an-object-json": ("config.json", b'["name", "m"]'),
    "empty-json": ("config.json", b""),
    "pbtxt-in-json": ("config.json", VALID),
    "json-in-pbtxt": ("config.pbtxt", b'{"name": "m"}'),
    "extension-field": ("config.pbtxt", b"[ext.field]: 1\n"),
    "any-field": ("config.pbtxt", b"[type.googleapis.com/x] { a: 1 }\n"),
    "only-comments": ("config.pbtxt", b"# a\n" * 1_000),
    "many-errors": ("config.pbtxt", b"max_batch_sise: 1\n" * 2_000),
}

COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "lint": lambda path: ["lint", "--color", "never", str(path)],
    "fmt": lambda path: ["fmt", "--check", str(path)],
    "convert": lambda path: [
        "convert",
        "--to",
        "pbtxt" if path.suffix == ".json" else "json",
        str(path),
    ],
    "complete": lambda path: ["complete", str(path)],
}

POSITION = re.compile(r"config\.(?:pbtxt|json):\d+:\d+")


def check_outcome(command: str, status: int, output: str) -> None:
    assert "Traceback" not in output, output
    assert status in (0, 1, 2), output
    if status == 1 and command == "fmt":
        assert "would reformat" in output, output
    elif status != 0:
        assert POSITION.search(output), output


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", list(INPUTS))
def test_hostile_input(tmp_path: Path, name: str, command: str) -> None:
    file_name, content = INPUTS[name]
    (tmp_path / "m" / "1").mkdir(parents=True)
    path = tmp_path / "m" / file_name
    path.write_bytes(content)
    result = CliRunner().invoke(app, COMMANDS[command](path))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a crash: its traceback is the test's failure
    check_outcome(command, result.exit_code, result.output)
    assert path.read_bytes() == content  # fmt --check, convert and complete write nothing


# -- the file system itself, in real processes ------------------------------------------------


# a run that waits on a FIFO waits forever; one that ends takes about a second (`complete` took
# 4.2 s of the 5 this was under four busy loops)
HANG_S = 60


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a runaway read fails, not the host


def _symlink_loop(tmp_path: Path) -> Path:
    path = tmp_path / "m" / "config.pbtxt"
    path.symlink_to("config.pbtxt")
    return path


def _symlink_loop_dir(tmp_path: Path) -> Path:
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    return loop


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "m" / "config.pbtxt"
    path.mkdir()
    return path


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "m" / "config.pbtxt"
    os.mkfifo(path)
    return path


def _long_component(tmp_path: Path) -> Path:
    return tmp_path / "m" / ("x" * 300) / "config.pbtxt"


def _long_path(tmp_path: Path) -> Path:
    return tmp_path.joinpath(*["d" * 200] * 25, "config.pbtxt")


def _dev_null(_: Path) -> Path:
    return Path(os.devnull)


FILE_SYSTEM: dict[str, Callable[[Path], Path]] = {
    "symlink-loop-config": _symlink_loop,
    "symlink-loop-path": _symlink_loop_dir,
    "config-is-a-directory": _directory,
    "fifo-config": _fifo,
    "path-component-over-255-bytes": _long_component,
    "path-over-path-max": _long_path,
    "dev-null": _dev_null,
}


def file_system_cases() -> list[object]:
    return [
        pytest.param(
            name,
            command,
            id=f"{name}-{command}",
        )
        for name in FILE_SYSTEM
        for command in COMMANDS
    ]


@pytest.mark.parametrize(("name", "command"), file_system_cases())
def test_hostile_file_system(tmp_path: Path, name: str, command: str) -> None:
    (tmp_path / "m" / "1").mkdir(parents=True)
    path = FILE_SYSTEM[name](tmp_path)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tritoncfg", *COMMANDS[command](path)],
            capture_output=True,
            text=True,
            timeout=HANG_S,
            preexec_fn=_limits,
            env={**os.environ, "NO_COLOR": "1"},
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: {command} still running after {HANG_S} s")
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    assert done.returncode in (1, 2), output  # nothing was checked: never "all passed"
    assert str(path.name)[:50] in output or "config.pbtxt" in output, output


# -- where invalid UTF-8 is -------------------------------------------------------------------


@pytest.mark.parametrize("command", list(COMMANDS))
def test_invalid_utf8_is_shown_at_its_line_and_character_column(
    tmp_path: Path, command: str
) -> None:
    (tmp_path / "m" / "1").mkdir(parents=True)
    path = tmp_path / "m" / "config.pbtxt"
    path.write_bytes(b'name: "m"\nbackend: "\xc3\xa9\xff"\n')  # é is 2 bytes, 1 character
    result = CliRunner().invoke(app, COMMANDS[command](path))
    check_outcome(command, result.exit_code, result.output)
    assert result.exit_code == (1 if command == "lint" else 2)
    assert (
        f"{path}:2:12:" in result.output
        and "invalid UTF-8 at byte offset 22 (line 2, byte column 13)" in result.output
    ), result.output
