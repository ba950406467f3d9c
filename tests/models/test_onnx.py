"""tritoncfg.models.onnx: reading real ONNX files (written with onnx.helper), compared with what
ONNX Runtime itself reports where it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest
from models.onnxkit import (
    BFLOAT16,
    BOOL,
    DOUBLE,
    FLOAT,
    FLOAT16,
    INT8,
    INT32,
    INT64,
    STRING,
    make_external,
    make_onnx,
    make_runnable,
)

from tritoncfg.models import ModelIO, TensorInfo, Unknowable
from tritoncfg.models.onnx import merge_shapes, read_onnx


def read(path: Path) -> ModelIO:
    found = read_onnx(path)
    assert isinstance(found, ModelIO), found
    return found


def test_dynamic_batch_model(tmp_path: Path) -> None:
    io = read(
        make_onnx(
            tmp_path / "m.onnx",
            [("x", FLOAT, ["batch", 3, 224, 224])],
            [("y", FLOAT, ["batch", 1000])],
            opset=13,
        )
    )
    assert io.format == "onnx"
    assert io.inputs == (TensorInfo("x", "TYPE_FP32", "float", ("batch", 3, 224, 224)),)
    assert io.outputs == (TensorInfo("y", "TYPE_FP32", "float", ("batch", 1000)),)
    assert io.inputs[0].dynamic_first_dim and io.inputs[0].wildcard_shape == (-1, 3, 224, 224)
    assert (io.opset, io.ir_version, io.external_data, io.initializers) == (13, 8, False, ())


def test_static_batch_and_unknown_dims(tmp_path: Path) -> None:
    io = read(make_onnx(tmp_path / "m.onnx", [("x", FLOAT, [1, None, 8])], [("y", FLOAT, [1])]))
    assert io.inputs[0].shape == (1, None, 8)
    assert not io.inputs[0].dynamic_first_dim
    assert io.inputs[0].wildcard_shape == (1, -1, 8)


@pytest.mark.parametrize(
    ("elem", "triton", "name"),
    [
        (FLOAT, "TYPE_FP32", "float"),
        (FLOAT16, "TYPE_FP16", "float16"),
        (BFLOAT16, "TYPE_BF16", "bfloat16"),
        (DOUBLE, "TYPE_FP64", "double"),
        (INT8, "TYPE_INT8", "int8"),
        (INT32, "TYPE_INT32", "int32"),
        (INT64, "TYPE_INT64", "int64"),
        (BOOL, "TYPE_BOOL", "bool"),
        (STRING, "TYPE_STRING", "string"),
        (14, None, "complex64"),
    ],
)
def test_data_types(tmp_path: Path, elem: int, triton: str | None, name: str) -> None:
    io = read(make_onnx(tmp_path / "m.onnx", [("x", elem, [4])], [("y", FLOAT, [4])]))
    assert (io.inputs[0].data_type, io.inputs[0].source_type) == (triton, name)


def test_several_outputs_and_a_scalar(tmp_path: Path) -> None:
    io = read(
        make_onnx(
            tmp_path / "m.onnx",
            [("x", FLOAT, ["n", 4]), ("scale", FLOAT, [])],
            [("a", FLOAT16, ["n", 4]), ("b", INT64, ["n"]), ("c", FLOAT, None)],
        )
    )
    assert [t.name for t in io.outputs] == ["a", "b", "c"]
    assert io.inputs[1].shape == ()  # a scalar: rank 0, known
    assert io.outputs[2].shape is None  # no shape declared (nor inferable from the opaque op)


def test_initializer_listed_as_input_is_overridable_not_required(tmp_path: Path) -> None:
    path = make_onnx(
        tmp_path / "m.onnx",
        [("x", FLOAT, ["n", 4])],
        [("y", FLOAT, ["n", 4])],
        initializers=[("w", FLOAT, [4])],
    )
    io = read(path)
    assert [t.name for t in io.inputs] == ["x"]
    assert io.initializers == (TensorInfo("w", "TYPE_FP32", "float", (4,)),)


def test_initializer_input_below_ir4_is_a_constant(tmp_path: Path) -> None:
    path = make_onnx(
        tmp_path / "m.onnx",
        [("x", FLOAT, [4])],
        [("y", FLOAT, [4])],
        initializers=[("w", FLOAT, [4])],
        ir_version=3,
        opset=8,
    )
    io = read(path)
    assert [t.name for t in io.inputs] == ["x"] and io.initializers == ()
    assert any("treats it as a constant" in n for n in io.notes)


def test_external_data_is_reported_not_loaded(tmp_path: Path) -> None:
    path = make_external(tmp_path / "m" / "model.onnx")
    assert (tmp_path / "m" / "weights.bin").stat().st_size == 4096
    io = read(path)
    assert io.external_data and not io.notes
    (tmp_path / "m" / "weights.bin").unlink()
    io = read(path)  # still readable: the weights are never loaded
    assert io.external_data
    assert io.notes == (
        "external data file 'weights.bin' is not beside the model (ONNX Runtime cannot load it)",
    )


def test_output_shapes_are_what_shape_inference_makes_of_them(tmp_path: Path) -> None:
    io = read(make_runnable(tmp_path / "m.onnx", input_shape=["N", 4], output_shape=["N", None]))
    assert io.outputs[0].shape == ("N", 4)
    assert any("after shape inference" in n for n in io.notes)


@pytest.mark.parametrize(
    ("declared", "inferred", "merged"),
    [
        (None, ("N", 4), ("N", 4)),
        (("M", "K"), ("N", 4), ("M", 4)),
        ((None, None), ("N", 4), ("N", 4)),
        (("N", 5), ("N", 4), ("N", None)),  # a conflict: ORT's "lenient merge"
        ((3, 4), (3, 4), (3, 4)),
        ((None,), ("N", 4), None),  # ranks differ
        (("N", 4), None, ("N", 4)),
    ],
)
def test_merge_shapes(
    declared: tuple[int | str | None, ...] | None,
    inferred: tuple[int | str | None, ...] | None,
    merged: tuple[int | str | None, ...] | None,
) -> None:
    assert merge_shapes(declared, inferred) == merged


@pytest.mark.parametrize(
    "output_shape", [["M", "K"], [None, None], [3, 4], ["M", 4], None], ids=str
)
def test_reader_agrees_with_onnxruntime(tmp_path: Path, output_shape: list[object] | None) -> None:
    ort = pytest.importorskip("onnxruntime")
    path = make_runnable(tmp_path / "m.onnx", input_shape=["N", 4], output_shape=output_shape)  # type: ignore[arg-type]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    io = read(path)

    def ort_view(shape: list[object]) -> tuple[object, ...]:
        return tuple(d if isinstance(d, int) else None for d in shape)

    def mine(info: TensorInfo) -> tuple[object, ...]:
        return tuple(d if isinstance(d, int) else None for d in info.shape or ())

    assert [i.name for i in session.get_inputs()] == [t.name for t in io.inputs]
    assert ort_view(session.get_outputs()[0].shape) == mine(io.outputs[0])
    assert ort_view(session.get_inputs()[0].shape) == mine(io.inputs[0])


def test_overridable_initializers_agree_with_onnxruntime(tmp_path: Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    x = helper.make_tensor_value_info("x", FLOAT, ["N", 4])
    w = helper.make_tensor_value_info("w", FLOAT, [4])
    y = helper.make_tensor_value_info("y", FLOAT, ["N", 4])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [x, w],
        [y],
        [helper.make_tensor("w", FLOAT, [4], [1.0, 2.0, 3.0, 4.0])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save_model(model, str(tmp_path / "m.onnx"))
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    io = read(tmp_path / "m.onnx")
    assert [i.name for i in session.get_inputs()] == [t.name for t in io.inputs] == ["x"]
    assert [i.name for i in session.get_overridable_initializers()] == ["w"]
    assert [t.name for t in io.initializers] == ["w"]


@pytest.mark.parametrize(
    ("content", "cause", "reason"),
    [
        (b"", "empty", "m.onnx is empty (0 bytes), not an ONNX model"),
        (b"garbage\n", "unreadable", "m.onnx is not a readable ONNX model: Error parsing message"),
        (b"\x08\x07", "unreadable", "m.onnx is not an ONNX model (no graph or no IR version)"),
    ],
)
def test_corrupt_files_are_unknowable_with_the_reason(
    tmp_path: Path, content: bytes, cause: str, reason: str
) -> None:
    (tmp_path / "m.onnx").write_bytes(content)
    found = read_onnx(tmp_path / "m.onnx")
    assert isinstance(found, Unknowable)
    assert found.cause == cause and found.reason.startswith(reason), found.reason


def test_missing_file_is_unknowable(tmp_path: Path) -> None:
    found = read_onnx(tmp_path / "nothing.onnx")
    assert isinstance(found, Unknowable) and found.cause == "unreadable"
    assert found.reason.startswith("cannot read nothing.onnx")
