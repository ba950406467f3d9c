"""tritoncfg.models.locate: which file Triton loads for a model, and which reader reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintkit import make_model
from models.onnxkit import FLOAT, make_onnx

from tritoncfg.complete import complete_core
from tritoncfg.models import ModelIO, Unknowable
from tritoncfg.models.locate import loaded_version, model_file, read_model_io
from tritoncfg.repository import ModelDir, discover
from tritoncfg.text import parse


def model_dir(root: Path, name: str = "m") -> ModelDir:
    found = discover(root).model(name)
    assert found is not None
    return found


def completed(model: ModelDir):  # type: ignore[no-untyped-def]
    text = model.read_config() if model.config_exists else ""
    return complete_core(parse(text).message, model).config


def onnx_at(path: Path) -> Path:
    return make_onnx(path, [("x", FLOAT, ["n", 4])], [("y", FLOAT, ["n", 4])])


def test_default_file_of_the_highest_selected_version(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "onnxruntime"\n', versions=("1", "3"))
    onnx_at(tmp_path / "m" / "1" / "model.onnx")
    onnx_at(tmp_path / "m" / "3" / "model.onnx")
    model = model_dir(tmp_path)
    version = loaded_version(model, completed(model))
    assert version is not None and version.number == 3
    assert model_file(version, "model.onnx", onnx=True) == tmp_path / "m" / "3" / "model.onnx"
    found = read_model_io(model, completed(model))
    assert isinstance(found, ModelIO) and found.path == tmp_path / "m" / "3" / "model.onnx"


def test_version_policy_decides_the_version(tmp_path: Path) -> None:
    config = 'backend: "onnxruntime"\nversion_policy { specific { versions: [ 1 ] } }\n'
    make_model(tmp_path, "m", config, versions=("1", "3"))
    model = model_dir(tmp_path)
    version = loaded_version(model, completed(model))
    assert version is not None and version.number == 1


def test_default_model_filename_and_a_model_onnx_directory(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "onnxruntime"\ndefault_model_filename: "net.onnx"\n')
    (tmp_path / "m" / "1" / "net.onnx").mkdir()
    version = model_dir(tmp_path).version(1)
    assert version is not None
    # a directory stands for <dir>/model.onnx (the ONNX Runtime backend), not for a plan
    assert model_file(version, "net.onnx", onnx=True) == tmp_path / "m/1/net.onnx/model.onnx"
    assert model_file(version, "net.onnx", onnx=False) is None
    assert model_file(version, "other.onnx", onnx=True) is None
    model = model_dir(tmp_path)
    assert read_model_io(model, completed(model)) is None  # the directory holds no model.onnx
    onnx_at(tmp_path / "m" / "1" / "net.onnx" / "model.onnx")
    assert isinstance(read_model_io(model, completed(model)), ModelIO)


def test_a_non_canonical_version_directory_is_not_where_triton_reads(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "onnxruntime"\n', versions=("1abc",))
    onnx_at(tmp_path / "m" / "1abc" / "model.onnx")
    version = model_dir(tmp_path).version(1)
    assert version is not None and model_file(version, "model.onnx", onnx=True) is None


def test_a_symlink_out_of_the_model_directory_is_not_followed(tmp_path: Path) -> None:
    onnx_at(tmp_path / "elsewhere" / "model.onnx")
    make_model(tmp_path / "repo", "m", 'backend: "onnxruntime"\n')
    (tmp_path / "repo" / "m" / "1" / "model.onnx").symlink_to(tmp_path / "elsewhere" / "model.onnx")
    model = model_dir(tmp_path / "repo")
    assert read_model_io(model, completed(model)) is None


def test_no_model_file_and_no_version(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "onnxruntime"\n')
    make_model(tmp_path, "n", 'backend: "onnxruntime"\n', versions=())
    for name in ("m", "n"):
        model = model_dir(tmp_path, name)
        assert read_model_io(model, completed(model)) is None


@pytest.mark.parametrize(
    ("config", "filename", "says"),
    [
        ('backend: "pytorch"\n', "model.pt", "TorchScript"),
        ('backend: "python"\n', "model.py", "auto_complete_config"),
        ('platform: "tensorflow_savedmodel"\n', "model.savedmodel", "TensorFlow"),
    ],
)
def test_frameworks_whose_files_do_not_say(
    tmp_path: Path, config: str, filename: str, says: str
) -> None:
    make_model(tmp_path, "m", config, files={f"1/{filename}": "never read\n"})
    model = model_dir(tmp_path)
    found = read_model_io(model, completed(model))
    assert isinstance(found, Unknowable) and found.cause == "opaque" and says in found.reason
    (tmp_path / "m" / "1" / filename).unlink()
    model = model_dir(tmp_path)  # discovery is a snapshot
    assert read_model_io(model, completed(model)) is None


def test_custom_backends_have_no_model_io(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "identity"\n', files={"1/model.identity": ""})
    model = model_dir(tmp_path)
    assert read_model_io(model, completed(model)) is None


def test_a_plan_goes_to_the_tensorrt_reader(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'platform: "tensorrt_plan"\n', files={"1/model.plan": ""})
    model = model_dir(tmp_path)
    found = read_model_io(model, completed(model))
    assert isinstance(found, Unknowable) and found.cause == "empty"
