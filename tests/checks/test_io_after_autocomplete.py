"""In default mode the I/O checks see the config after the backend's auto-complete, as Triton's
Model::Init does; in strict mode they see the config as written."""

from __future__ import annotations

from pathlib import Path

from lintkit import make_model
from models.onnxkit import FLOAT, FLOAT16, make_onnx

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions

NO_IO = 'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 8\ndynamic_batching { }\n'


def _repo(tmp_path: Path, config: str) -> Path:
    model = make_model(tmp_path / "repo", "m", config, files={})
    make_onnx(
        model / "1" / "model.onnx",
        inputs=[("x", FLOAT, ["batch", 16])],
        outputs=[("y", FLOAT, ["batch", 4])],
    )
    return tmp_path / "repo"


def test_tensors_added_by_the_backend_are_checked_in_default_mode(tmp_path: Path) -> None:
    repo = _repo(tmp_path, NO_IO)  # no inputs or outputs: ONNX Runtime adds them from the model
    assert not [d for d in lint(repo).diagnostics if d.severity.value == "error"]
    strict = [d.code for d in lint(repo, LintOptions(triton_mode="strict")).diagnostics]
    assert "TC303" not in strict  # there is no tensor to lack dims...
    assert "TC803" in strict  # ...but the model has an input the config does not list


def test_dims_the_backend_does_not_fill_are_an_error_once_the_model_is_read(tmp_path: Path) -> None:
    # ONNX Runtime adds missing tensors, not the dims of a tensor the config lists
    repo = _repo(tmp_path, NO_IO + 'input [ { name: "x" data_type: TYPE_FP32 } ]\n')
    (finding,) = [d for d in lint(repo).diagnostics if d.code == "TC303"]
    assert finding.severity.value == "error"


def test_fp16_model_against_fp32_config_names_the_model_value(tmp_path: Path) -> None:
    model = make_model(
        tmp_path / "repo",
        "m",
        NO_IO
        + 'input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
        files={},
    )
    make_onnx(
        model / "1" / "model.onnx",
        inputs=[("x", FLOAT16, ["batch", 16])],
        outputs=[("y", FLOAT, ["batch", 4])],
    )
    (finding,) = [d for d in lint(tmp_path / "repo").diagnostics if d.code == "TC806"]
    assert finding.span.line == 5  # the config line of the input
    assert "FP16" in finding.message
    assert finding.triton is not None and "model provides TYPE_FP16" in finding.triton.message
