"""Every command on hostile paths (issue 21): nothing written or read through a symlink out of the
repository root, no wait on a FIFO or a device, a clean error for loops and over-long names,
never a traceback. The real `tritoncfg` command on real files, each run under a time limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

UGLY = 'name:"b"  backend:"python" max_batch_size : 4\n'
MODEL = (
    'name: "s"\nbackend: "python"\nmax_batch_size: 4\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
)
LONG_NAME = "x" * 300  # over NAME_MAX (255 bytes)


def run(*args: str, cwd: Path | None = None, seconds: float = 60) -> tuple[int, str]:
    """The command's exit status and its output; a hang fails the test, as does a traceback."""
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {"NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "tritoncfg", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input="",
        env=env,
        timeout=seconds,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout + result.stderr


def model(path: Path, config: str = MODEL) -> Path:
    (path / "1").mkdir(parents=True)
    (path / "1" / "model.py").touch()
    (path / "config.pbtxt").write_text(config)
    return path


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """repo/s (a model) and repo/b, a symlink to a model folder outside the repository."""
    outside = model(tmp_path / "outside", UGLY)
    repo = tmp_path / "repo"
    model(repo / "s")
    (repo / "b").symlink_to(outside)
    return repo, outside


@pytest.mark.parametrize("form", ["dir", "file", "glob"])
def test_fmt_never_writes_through_a_folder_linked_out_of_the_root(
    linked: tuple[Path, Path], form: str
) -> None:
    repo, outside = linked
    args = {
        "dir": [str(repo / "b")],
        "file": [str(repo / "b" / "config.pbtxt")],
        "glob": [str(p) for p in sorted(repo.iterdir())],  # `fmt repo/*`
    }[form]
    status, out = run("fmt", *args)
    assert status == 2, out
    assert f"'{repo / 'b'}' is a symbolic link out of the repository root" in out
    assert (outside / "config.pbtxt").read_text() == UGLY
    assert sorted(p.name for p in outside.iterdir()) == ["1", "config.pbtxt"]
    lint_status, lint_out = run("lint", str(repo))  # lint agrees: the link is not followed
    assert "TC102" in lint_out and "not followed" in lint_out, (lint_status, lint_out)


def test_gen_ensemble_never_writes_into_a_folder_linked_out_of_the_root(
    linked: tuple[Path, Path],
) -> None:
    repo, outside = linked
    status, out = run("gen", "ensemble", "b", "--step", "s", "--repository", str(repo), "--write")
    assert status == 2 and "symbolic link out of the repository root" in out, out
    assert (outside / "config.pbtxt").read_text() == UGLY


def test_a_fifo_config_in_a_sibling_model_does_not_hang_lint_of_one_file(tmp_path: Path) -> None:
    one = model(tmp_path / "repo" / "s")
    (tmp_path / "repo" / "f").mkdir()
    os.mkfifo(tmp_path / "repo" / "f" / "config.pbtxt")  # siblings are read to find ensembles
    status, out = run("lint", str(one / "config.pbtxt"), seconds=30)
    assert status == 0 and "(1 model, 1 config file)" in out, out
    status, out = run("lint", str(tmp_path / "repo" / "f" / "config.pbtxt"), seconds=30)
    assert status == 2 and "a FIFO (named pipe)" in out, out


def test_a_fifo_as_the_settings_file_is_refused(tmp_path: Path) -> None:
    one = model(tmp_path / "repo" / "s")
    os.mkfifo(tmp_path / "tritoncfg.toml")
    status, out = run("lint", "--config", str(tmp_path / "tritoncfg.toml"), str(one), seconds=30)
    assert status == 2 and "tritoncfg.toml: cannot read: a FIFO (named pipe)" in out, out


@pytest.mark.parametrize(
    "command",
    [["fmt"], ["fmt", "--check"], ["convert", "--to", "json"], ["lint"], ["complete"]],
    ids=" ".join,
)
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/proc/self/fd/0"])
def test_devices_are_refused_not_read(command: list[str], device: str) -> None:
    status, out = run(*command, device, seconds=30)
    assert status == 2 and "give a config file, a model directory or a repository" in out, out


def test_fmt_check_of_a_directory_named_config_pbtxt_fails(tmp_path: Path) -> None:
    (tmp_path / "repo" / "d" / "config.pbtxt").mkdir(parents=True)
    status, out = run("fmt", "--check", str(tmp_path / "repo" / "d" / "config.pbtxt"))
    assert status == 2 and "a directory, not a regular file" in out, out


COMMANDS = [
    ["lint"],
    ["complete"],
    ["gen", "dynamic-batching"],
    ["probe"],
    ["fmt"],
    ["convert", "--to", "json"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_symlink_loop_as_the_path(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    status, out = run(*command, str(tmp_path / "a"))
    assert status == 2 and f"{tmp_path / 'a'}: a symbolic link loop" in out, out


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("shape", ["long-name", "long-path"])
def test_names_and_paths_too_long(tmp_path: Path, command: list[str], shape: str) -> None:
    path = tmp_path / LONG_NAME if shape == "long-name" else tmp_path.joinpath(*["d" * 8] * 600)
    status, out = run(*command, str(path))
    assert status == 2 and "too long for the file system" in out, out


def test_gen_ensemble_name_too_long(linked: tuple[Path, Path]) -> None:
    repo, _ = linked
    status, out = run("gen", "ensemble", LONG_NAME, "--step", "s", "--repository", str(repo))
    assert status == 2 and "at most 255 bytes" in out, out  # the name rule new and gen share
    assert sorted(p.name for p in repo.iterdir()) == ["b", "s"]


def test_json_config_with_a_five_thousand_digit_integer(tmp_path: Path) -> None:
    path = tmp_path / "repo" / "m" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"name": "m",\n "max_batch_size": ' + "9" * 5000 + "}\n")
    status, out = run("lint", str(path))
    assert status == 1 and "config.json:2:20: TC001" in out and "5000 digits" in out, out
    status, out = run("convert", str(path), "--to", "pbtxt")
    assert status == 2 and "config.json:2:20: Integer with 5000 digits" in out, out


def test_fmt_refuses_a_file_with_several_hard_links(tmp_path: Path) -> None:
    path = model(tmp_path / "repo" / "m", UGLY) / "config.pbtxt"
    os.link(path, tmp_path / "elsewhere.pbtxt")
    status, out = run("fmt", str(path))
    assert status == 2 and "has 2 hard links" in out, out
    assert path.read_text() == UGLY and os.path.samefile(path, tmp_path / "elsewhere.pbtxt")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_fmt_as_root_keeps_owner_and_group(tmp_path: Path) -> None:
    path = model(tmp_path / "repo" / "m", UGLY) / "config.pbtxt"
    os.chown(path, 4321, 8765)
    status, out = run("fmt", str(path))
    assert status == 0 and "reformatted" in out, out
    assert path.read_text() != UGLY
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 8765)


@pytest.mark.parametrize(
    ("command", "status"),
    [(["convert", "--to", "json"], 2), (["fmt"], 2), (["diff"], 2), (["lint"], 1)],
    ids=lambda v: " ".join(v) if isinstance(v, list) else str(v),
)
def test_a_config_over_the_size_limit_is_not_read(
    tmp_path: Path, command: list[str], status: int
) -> None:
    path = model(tmp_path / "repo" / "m") / "config.pbtxt"
    with path.open("r+b") as handle:  # sparse: cheap to make, 64 MiB of NULs if read
        handle.truncate(64 * 1024 * 1024 + 1)
    extra = [str(path)] if command == ["diff"] else []
    got, out = run(*command, str(path), *extra)
    assert got == status and "67,108,865 bytes, over the 64 MiB limit" in out, out


def test_fmt_skips_a_file_edited_while_it_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another program saves the file between fmt's read and its write (deterministically: while
    the real formatter runs): fmt leaves the edit in place and says so."""
    import typer

    from tritoncfg.cli.fmt import fmt_command
    from tritoncfg.text import printer

    path = model(tmp_path / "repo" / "m", UGLY) / "config.pbtxt"
    real_format = printer.format_source

    def format_while_edited(source: str) -> str:
        formatted = real_format(source)
        path.write_text(UGLY + "# saved by an editor meanwhile\n")
        return formatted

    monkeypatch.setattr(printer, "format_source", format_while_edited)
    with pytest.raises(typer.Exit) as exited:
        fmt_command([path])
    assert exited.value.exit_code == 2
    assert "changed since it was read" in capsys.readouterr().err
    assert path.read_text() == UGLY + "# saved by an editor meanwhile\n"


def test_fmt_reads_through_a_link_inside_the_root_as_lint_does(tmp_path: Path) -> None:
    real = model(tmp_path / "repo" / "m", UGLY) / "config.pbtxt"
    alias = tmp_path / "repo" / "alias"
    alias.mkdir()
    (alias / "config.pbtxt").symlink_to(real)
    status, out = run("fmt", "--check", str(alias / "config.pbtxt"))
    assert status == 1 and f"would reformat {alias / 'config.pbtxt'}" in out, out
    status, out = run("fmt", str(alias / "config.pbtxt"))  # never replaced: write its target
    assert status == 2 and "a symbolic link; write the file it points to" in out, out
    assert real.read_text() == UGLY and (alias / "config.pbtxt").is_symlink()
