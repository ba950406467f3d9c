"""The OpenVINO IR reader, the backend's auto-complete and TC870-TC873, on real IR files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintkit import lint_repo, make_model
from models.irkit import Port, write_ir

from tritoncfg.complete.backend import autocomplete_backend
from tritoncfg.models.io import ModelIO, Unknowable
from tritoncfg.models.openvino import dim_matches, has_batch, read_openvino
from tritoncfg.schema import ModelConfig

X = Port("x,x:0")
Y = Port("y:0,y_alias:0", dims=(1, 4))  # named y:0, the smallest


def _model(tmp_path: Path, config: str, inputs: list[Port], outputs: list[Port]) -> Path:
    root = tmp_path / "repo"
    make_model(root, "m", config, files={})
    write_ir(root / "m" / "1" / "model.xml", inputs, outputs)
    return root


def test_reader_takes_parameters_results_names_types_shapes_and_layouts(tmp_path: Path) -> None:
    path = write_ir(
        tmp_path / "model.xml",
        [Port("b_name,a_name", "i32", (-1, 3), "[N,C]"), Port("z", "f16", (2,), shape="1..8")],
        [Port("out:0,Identity:0", "i32", (-1, 3), "[N,C]")],
    )
    io = read_openvino(path)
    assert isinstance(io, ModelIO) and io.format == "openvino"
    assert [(t.name, t.data_type, t.shape, t.layout) for t in io.inputs] == [
        ("a_name", "TYPE_INT32", (None, 3), "[N,C]"),  # get_any_name(): the smallest name
        ("z", "TYPE_FP16", ("1..8",), None),
    ]
    assert [(t.name, t.data_type, t.shape) for t in io.outputs] == [
        ("Identity:0", "TYPE_INT32", (None, 3))
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [("", "not well-formed XML"), ("<html><body/></html>", "not an OpenVINO IR")],
)
def test_reader_explains_a_file_that_is_not_an_ir(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "model.xml"
    path.write_text(text)
    found = read_openvino(path)
    assert isinstance(found, Unknowable) and why in found.reason


def test_layout_batch_and_dim_matching_follow_openvino() -> None:
    assert has_batch("[N,C,H,W]") and has_batch("NCHW") and has_batch("N...")
    assert not has_batch("[C,H]") and not has_batch(None) and not has_batch("")
    assert dim_matches(4, 4) and not dim_matches(4, 5) and dim_matches(None, 123)
    assert dim_matches("1..8", 4) and not dim_matches("1..8", 8)  # strictly inside (sic)


def _complete(io: ModelIO, config: str = "") -> ModelConfig:
    from google.protobuf import text_format

    parsed = text_format.Parse('name: "m" backend: "openvino" ' + config, ModelConfig())
    done = autocomplete_backend(parsed, io)
    assert done.ok and done.ran, done.errors
    return done.config


def test_autocomplete_batches_when_every_tensor_has_a_batch_layout(tmp_path: Path) -> None:
    io = read_openvino(
        write_ir(
            tmp_path / "model.xml",
            [Port("x", dims=(1, 4), layout="[N,H]")],
            [Port("y", dims=(1, 4), layout="[N,H]")],
        )
    )
    assert isinstance(io, ModelIO)
    config = _complete(io)
    assert config.max_batch_size == 4 and config.HasField("dynamic_batching")
    assert [(t.name, list(t.dims)) for t in (*config.input, *config.output)] == [
        ("x", [4]),
        ("y", [4]),
    ]


def test_autocomplete_without_layout_keeps_the_batch_dim_and_marks_dynamic_shapes(
    tmp_path: Path,
) -> None:
    io = read_openvino(write_ir(tmp_path / "model.xml", [Port("x", dims=(-1, 4))], [Y]))
    assert isinstance(io, ModelIO)
    config = _complete(io)
    assert config.max_batch_size == 0 and not config.HasField("dynamic_batching")
    # a shape with any dynamic dim gets -1 everywhere (`io_shape.is_static()` is per shape)
    assert [list(t.dims) for t in config.input] == [[-1, -1]]
    assert [list(t.dims) for t in config.output] == [[1, 4]]


def test_lint_reports_the_backends_refusals_with_its_messages(tmp_path: Path) -> None:
    config = (
        'name: "m"\nbackend: "openvino"\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 5 ] },\n'
        '        { name: "w" data_type: TYPE_FP32 dims: [ 1, 4 ] } ]\n'
        'output [ { name: "y:0" data_type: TYPE_FP64 dims: [ 1, 4 ] } ]\n'
    )
    found = {d.code: d for d in lint_repo(_model(tmp_path, config, [X, Port("v")], [Y]))}
    assert found["TC871"].triton is not None
    assert found["TC871"].triton.message == (
        "unexpected inference input 'w', allowed inputs are: v, x"
    )
    assert found["TC873"].triton is not None
    assert found["TC873"].triton.message == (
        "model 'm', tensor 'x': the model expects 2 dimensions (shape [1,4]) but the model "
        "configuration specifies 2 dimensions (shape [1,5])"
    )
    assert found["TC872"].triton is not None
    assert found["TC872"].triton.message == (
        "unsupported datatype TYPE_FP64 for output 'y:0' for model 'm'"
    )


def test_input_count_and_batched_dims(tmp_path: Path) -> None:
    config = (
        'name: "m"\nbackend: "openvino"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y:0" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    counted = lint_repo(_model(tmp_path / "a", config, [X, Port("v")], [Y]))
    (count,) = [d for d in counted if d.code == "TC870"]
    assert count.triton is not None and count.triton.message == (
        "unable to load model 'm', configuration expects 1 inputs, model provides 2"
    )
    # batching: the input's batch dim is not compared; the output's is max_batch_size after
    # ov::set_batch, so a [1,4] IR with max_batch_size 8 and dims [4] is accepted
    fine = lint_repo(_model(tmp_path / "b", config, [X], [Y]))
    assert {"TC870", "TC871", "TC872", "TC873"}.isdisjoint(d.code for d in fine)
    assert "TC903" in {d.code for d in fine}  # the config parsed and was checked
    wrong_rank = lint_repo(
        _model(
            tmp_path / "c",
            config.replace("dims: [ 4 ] } ]\nout", "dims: [ 1, 4 ] } ]\nout"),
            [X],
            [Y],
        )
    )
    (dims,) = [d for d in wrong_rank if d.code == "TC873"]
    assert dims.triton is not None and "making complete shape [8,1,4]" in dims.triton.message


def test_locate_reads_the_ir_triton_loads(tmp_path: Path) -> None:
    """`default_model_filename` or `model.xml` in the loaded version; lint then reads it."""
    config = 'name: "m"\nbackend: "openvino"\ndefault_model_filename: "net.xml"\n'
    root = tmp_path / "repo"
    make_model(root, "m", config, files={})
    write_ir(root / "m" / "1" / "net.xml", [X], [Y])
    write_ir(root / "m" / "1" / "model.xml", [X, Port("v")], [Y])  # not the one Triton reads
    from tritoncfg.api import load
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.context import CheckContext

    workspace = load(root)
    ctx = CheckContext(workspace, LintOptions())
    io = ctx.model_io(workspace.models[0])
    assert isinstance(io, ModelIO) and io.path.name == "net.xml"
    assert [t.name for t in io.inputs] == ["x"]


def test_an_unreadable_ir_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_model(root, "m", 'name: "m"\nbackend: "openvino"\n', files={"1/model.xml": "<html>oops"})
    (finding,) = [d for d in lint_repo(root) if d.code == "TC874"]
    assert "1/model.xml is not a readable OpenVINO IR" in finding.message
    assert "not well-formed XML" in finding.message
