"""`gen ensemble` reads the repository in place (never follows a link out of it, never copies a
model tree) and a failed --write leaves no half-made model directory."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import run
from gen.genkit import errors, step_model

from tritoncfg.api import lint

STEPS = ["--step", "pre", "--step", "clf"]


def _repository(root: Path) -> Path:
    repo = root / "repo"
    step_model(repo, "pre", [("RAW", ["b", 16])], [("FEATS", ["b", 8])], mbs=8)
    step_model(repo, "clf", [("x", ["b", 8])], [("logits", ["b", 3])], mbs=4)
    return repo


def test_links_in_step_models_are_not_followed(tmp_path: Path) -> None:
    """A step model holding a link to `..` and one to a directory outside the repository (itself
    holding a link to itself): copying the steps' trees followed both (a `shutil.Error`
    traceback); lint in place reports the outside link and follows neither."""
    repo = _repository(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.bin").write_bytes(b"not the repository's")
    (outside / "again").symlink_to(outside)
    (repo / "pre" / "extra").symlink_to(outside)
    (repo / "clf" / "up").symlink_to("..")
    linted = lint(repo)
    assert linted.files == 2 and "TC102" in {d.code for d in linted.diagnostics}
    shown = run("gen", "ensemble", "e", *STEPS, "--repository", str(repo))
    assert shown.returncode == 0, shown.stderr
    assert "Traceback" not in shown.stderr
    assert '+model_name:"clf"' in shown.stdout.replace(" ", "")
    assert not (repo / "e").exists()
    written = run("gen", "ensemble", "e", *STEPS, "--repository", str(repo), "--write")
    assert written.returncode == 0, written.stderr
    assert (repo / "e" / "1").is_dir() and errors(repo / "e") == []


def test_a_step_that_links_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    (repo / "pre").rename(tmp_path / "elsewhere")
    (repo / "pre").symlink_to(tmp_path / "elsewhere")
    done = run("gen", "ensemble", "e", *STEPS, "--repository", str(repo))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{repo / 'pre'}: symlink points outside the repository root" in done.stderr
    assert "not followed" in done.stderr and not (repo / "e").exists()


def test_the_result_is_still_linted_against_the_steps(tmp_path: Path) -> None:
    """In place, the planned ensemble is checked with its steps: a step whose model file is
    missing (TC522 on the ensemble) refuses the ensemble, naming the real path."""
    repo = _repository(tmp_path)
    (repo / "clf" / "1" / "model.onnx").unlink()
    (repo / "clf" / "config.pbtxt").write_text(
        'backend: "onnxruntime"\nmax_batch_size: 4\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 8 ] } ]\n'
        'output [ { name: "logits" data_type: TYPE_FP32 dims: [ 3 ] } ]\n'
    )
    (repo / "clf" / "1" / "model.onnx").mkdir()  # a directory where the model file must be
    done = run("gen", "ensemble", "e", *STEPS, "--repository", str(repo), "--write")
    assert done.returncode == 1, done.stderr
    assert "TC522" in done.stderr and str(repo / "e" / "config.pbtxt") in done.stderr
    assert not (repo / "e").exists()


def _limit_file_size() -> None:
    # a file cannot grow past 256 bytes: the config's write fails as on a full disk (EFBIG;
    # Python ignores SIGXFSZ)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256))


def _with_small_files(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        preexec_fn=_limit_file_size,
        check=False,
    )


@pytest.mark.parametrize("existing", [False, True])
def test_a_failed_write_leaves_no_model_directory_behind(existing: bool, tmp_path: Path) -> None:
    """The config cannot be written (the file size limit, as a full disk): a new ensemble
    directory is not there at all, an existing one is as it was (no `1/` made)."""
    repo = _repository(tmp_path)
    ensemble = repo / "e"
    if existing:
        ensemble.mkdir()
        (ensemble / "config.pbtxt").write_text("# the ensemble, to be generated\n")
    before = sorted(p.name for p in repo.iterdir())
    linted = lint(repo)
    assert linted.files == len(before)
    done = _with_small_files(
        "-m", "tritoncfg", "gen", "ensemble", "e", *STEPS, "--repository", str(repo), "--write"
    )
    assert done.returncode == 2, done.stderr
    assert "cannot write: File too large" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in repo.iterdir()) == before  # no staging directory left either
    if existing:
        assert [p.name for p in ensemble.iterdir()] == ["config.pbtxt"]
        assert (ensemble / "config.pbtxt").read_text() == "# the ensemble, to be generated\n"
    assert lint(repo).diagnostics == linted.diagnostics


WRITE_CHANGE = """
import sys
from pathlib import Path
from tritoncfg.gen.change import write_change
from tritoncfg.gen.ensemble import generate

change = generate(Path(sys.argv[1]), "e", ["pre", "clf"], [], [])
try:
    write_change(change)
except OSError as exc:
    print(exc.strerror)
"""


@pytest.mark.parametrize("existing", [False, True])
def test_write_change_removes_what_it_made(existing: bool, tmp_path: Path) -> None:
    """`write_change` itself (what every `gen --write` runs): the version directory it made is
    gone after the config's write failed, and so is the new model directory."""
    repo = _repository(tmp_path)
    if existing:
        (repo / "e").mkdir()
    done = _with_small_files("-c", WRITE_CHANGE, str(repo))
    assert done.returncode == 0 and done.stdout == "File too large\n", done.stderr
    assert sorted(p.name for p in repo.iterdir()) == ["clf", *(["e"] if existing else []), "pre"]
    assert not (repo / "e" / "1").exists()
