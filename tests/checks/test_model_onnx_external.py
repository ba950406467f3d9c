"""TC813: ONNX external data outside the model file's folder, built with onnx.helper and
`save_as_external_data`, each case checked against real ONNX Runtime: what it refuses is what
the rule reports, what it loads passes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from clikit import run
from lintkit import lint_repo, make_model
from models.onnxkit import make_external

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.models.io import ModelIO
from tritoncfg.models.onnx import read_onnx

ORT = 'backend: "onnxruntime"\nmax_batch_size: 4\n'


def _relocate(model: Path, location: str) -> None:
    """Point every external initializer of `model` at `location`."""
    import onnx

    proto = onnx.load(str(model), load_external_data=False)
    for tensor in proto.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = location
    onnx.save(proto, str(model))


def _symlink_outside(version: Path, outside: Path) -> str:
    shutil.move(version / "weights.bin", outside / "weights.bin")
    (version / "weights.bin").symlink_to(outside / "weights.bin")
    return "weights.bin"


def _dot_dot(version: Path, outside: Path) -> str:
    shutil.move(version / "weights.bin", version.parent / "weights.bin")
    _relocate(version / "model.onnx", "../weights.bin")
    return "../weights.bin"


def _absolute(version: Path, outside: Path) -> str:
    shutil.move(version / "weights.bin", outside / "weights.bin")
    location = str(outside / "weights.bin")
    _relocate(version / "model.onnx", location)
    return location


def _beside(version: Path, outside: Path) -> str:
    return "weights.bin"


def _symlink_inside(version: Path, outside: Path) -> str:
    (version / "shared").mkdir()
    shutil.move(version / "weights.bin", version / "shared" / "weights.bin")
    (version / "weights.bin").symlink_to(os.path.join("shared", "weights.bin"))
    return "weights.bin"


def _model(tmp_path: Path, place: Callable[[Path, Path], str]) -> tuple[Path, str]:
    """Repository `repo` with model `m` (1/model.onnx, weights external), placed by `place`."""
    repo = tmp_path / "repo"
    make_model(repo, "m", ORT, files={})
    outside = tmp_path / "outside"
    outside.mkdir()
    make_external(repo / "m" / "1" / "model.onnx")
    return repo, place(repo / "m" / "1", outside)


def _ort_refusal(model: Path) -> str | None:
    """ONNX Runtime's error creating a session from the file, or None when it loads."""
    import onnxruntime

    try:
        onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    except Exception as error:
        return str(error)
    return None


def _tc813(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == "TC813"]


@pytest.mark.parametrize(
    ("place", "runtime_says"),
    [
        (_symlink_outside, "External data path escapes model directory"),
        (_dot_dot, "External data path escapes model directory"),
        (_absolute, "Absolute path not allowed for external data location"),
    ],
)
def test_external_data_outside_the_folder_is_an_error(
    tmp_path: Path, place: Callable[[Path, Path], str], runtime_says: str
) -> None:
    repo, location = _model(tmp_path, place)
    model = repo / "m" / "1" / "model.onnx"
    refusal = _ort_refusal(model)
    assert refusal is not None and runtime_says in refusal
    (finding,) = _tc813(lint_repo(repo))
    assert finding.severity.value == "error" and finding.path == str(model)
    assert f"external data file '{location}'" in finding.message
    assert "ONNX Runtime refuses external data outside the model file's folder" in finding.message
    linted = run("lint", str(repo))
    assert linted.returncode == 1 and "TC813" in linted.stdout


@pytest.mark.parametrize("place", [_beside, _symlink_inside])
def test_external_data_inside_the_folder_passes(
    tmp_path: Path, place: Callable[[Path, Path], str]
) -> None:
    """ONNX Runtime loads these; the rule runs on the model's external files and says nothing."""
    repo, _ = _model(tmp_path, place)
    model = repo / "m" / "1" / "model.onnx"
    assert _ort_refusal(model) is None
    read = read_onnx(model)
    assert isinstance(read, ModelIO) and read.external_files == ("weights.bin",)
    diagnostics = lint_repo(repo)
    assert not [d for d in diagnostics if d.code == "TC801"]  # the file was read and checked
    assert _tc813(diagnostics) == []
