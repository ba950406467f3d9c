"""TC3xx: inputs, outputs, batch inputs/outputs (`model_config_utils.cc:ValidateModelIOConfig`) and
label files (`backend_model.cc`), in strict mode (VALIDATE_IO at load) and default mode (MODEL_INIT)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from corpus import TRITON_QA, parametrize_corpus, read_tsv, require_corpus
from lintkit import found_at, lint_config, lint_repo, make_model, only

from tritoncfg.checks import RULES, LintOptions
from tritoncfg.checks.core.context import CheckContext
from tritoncfg.checks.core.registry import ModelRule
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import load

PY = 'backend: "python"\n'


# --- TC301-TC303: name, data_type, dims ---------------------------------------------------


def test_missing_name(tmp_path: Path) -> None:
    config = PY + "input [ { data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput { dims: [ 1 ] }\n"
    assert found_at(lint_config(tmp_path, config), "TC301") == [
        ("2:9", "model input must specify 'name' for m"),
        ("3:1", "model output must specify 'name' for m"),
    ]


def test_named_tensors_pass(tmp_path: Path) -> None:
    config = PY + 'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    diagnostics = lint_config(tmp_path, config)
    assert not [d for d in diagnostics if d.code.startswith("TC3")]


def test_missing_data_type(tmp_path: Path) -> None:
    config = (
        PY
        + 'input [ { name: "x" dims: [ 4 ] } ]\noutput { name: "y" data_type: TYPE_INVALID dims: [ 1 ] }\n'
    )
    diagnostics = lint_config(tmp_path, config)
    assert found_at(diagnostics, "TC302") == [
        ("2:9", "model input 'x' must specify 'data_type' for m"),
        ("3:31", "model output 'y' must specify 'data_type' for m"),
    ]
    assert all(d.severity is Severity.ERROR for d in diagnostics if d.code == "TC302")


def test_missing_dims(tmp_path: Path) -> None:
    config = PY + 'input [ { name: "x" data_type: TYPE_FP32 } ]\n'
    diagnostic = only(lint_config(tmp_path, config), "TC303")
    assert (str(diagnostic.span), diagnostic.severity) == ("2:9", Severity.ERROR)
    assert diagnostic.triton is not None
    assert diagnostic.triton.message == "model input 'x' must specify 'dims' for m"


@pytest.mark.parametrize("backend", ["onnxruntime", "tensorrt", "tensorflow", "openvino", "dali"])
def test_auto_completing_backend_may_fill_dims_and_type(tmp_path: Path, backend: str) -> None:
    config = f'backend: "{backend}"\ninput [ {{ name: "x" }} ]\n'
    diagnostics = lint_config(tmp_path, config, files={})
    for code, what in (("TC302", "data_type"), ("TC303", "dims")):
        diagnostic = only(diagnostics, code)
        assert diagnostic.severity is Severity.WARNING and diagnostic.triton is None
        assert f"has no {what}: the {backend} backend must fill it in" in diagnostic.message


def test_auto_completing_backend_in_strict_mode_is_an_error(tmp_path: Path) -> None:
    config = 'backend: "onnxruntime"\ninput [ { name: "x" } ]\n'
    diagnostics = lint_config(tmp_path, config, files={}, triton_mode="strict")
    assert found_at(diagnostics, "TC302") == [
        ("2:9", "model input 'x' must specify 'data_type' for m")
    ]
    assert found_at(diagnostics, "TC303") == [("2:9", "model input 'x' must specify 'dims' for m")]
    assert only(diagnostics, "TC303").severity is Severity.ERROR


def test_undetermined_backend_may_fill_dims(tmp_path: Path) -> None:
    # no model file: Triton fails at AUTOFILL (`Could not determine backend`), so whether the backend would fill dims is unknown
    diagnostics = lint_config(tmp_path, 'input [ { name: "x" } ]\n', files={})
    assert only(diagnostics, "TC303").severity is Severity.WARNING


def test_ensemble_without_dims_is_an_error(tmp_path: Path) -> None:
    config = (
        'platform: "ensemble"\ninput [ { name: "x" data_type: TYPE_FP32 } ]\n'
        'ensemble_scheduling { step [ { model_name: "a" input_map { key: "i" value: "x" } '
        'output_map { key: "o" value: "y" } } ] }\n'
    )
    diagnostic = only(lint_config(tmp_path, config, files={}), "TC303")
    assert diagnostic.severity is Severity.ERROR


def test_phase_follows_the_mode(tmp_path: Path) -> None:
    make_model(
        tmp_path / "repo",
        "m",
        PY + 'input [ { name: "x" data_type: TYPE_FP32 } ]\n',
        files={"1/model.py": ""},
    )
    workspace = load([tmp_path / "repo"])
    for mode, phase in (("strict", "VALIDATE_IO"), ("default", "MODEL_INIT")):
        ctx = CheckContext(workspace, LintOptions(triton_mode=mode))  # type: ignore[arg-type]
        rule = RULES["TC303"]
        assert isinstance(rule, ModelRule)
        findings = list(rule.check(workspace.models[0], ctx))
        assert [f.phase for f in findings] == [phase]


def test_every_problem_of_one_tensor_is_reported(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, PY + "input [ { dims: [ 0 ] } ]\n")
    assert [d.code for d in diagnostics if d.code.startswith("TC3")] == ["TC301", "TC302", "TC305"]


# --- TC304-TC307: dims values and reshape ------------------------------------------------


def test_empty_reshape_in_non_batching_model(tmp_path: Path) -> None:
    config = (
        PY + 'output [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] } } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC304") == [
        (
            "2:55",
            "model output 'y' cannot have empty reshape for non-batching model as scalar tensors "
            "are not supported for m",
        )
    ]


def test_empty_reshape_of_one_element_in_batching_model_passes(tmp_path: Path) -> None:
    config = (
        PY
        + 'max_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape { } } ]\n'
    )
    diagnostics = lint_config(tmp_path, config)
    assert not [d for d in diagnostics if d.code.startswith("TC3")]


def test_empty_reshape_of_more_elements_fails(tmp_path: Path) -> None:
    config = (
        PY
        + 'max_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 2 ] reshape { } } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC307") == [
        ("3:54", "model input 'x' has different size for dims and reshape for m")
    ]


def test_invalid_dimensions(tmp_path: Path) -> None:
    config = PY + (
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 0, 28, -2 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] reshape { shape: [ 2, 0 ] } } ]\n'
    )
    rule = "must be integer >= 1, or -1 to indicate a variable-size dimension for m"
    assert found_at(lint_config(tmp_path, config), "TC305") == [
        ("2:50", f"model input 'x' dimension {rule}"),
        ("2:57", f"model input 'x' dimension {rule}"),
        ("3:77", f"model output 'y' reshape dimensions {rule}"),
    ]


def test_variable_dimension_passes(tmp_path: Path) -> None:
    config = PY + 'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 28 ] } ]\n'
    assert not found_at(lint_config(tmp_path, config), "TC305")


def test_element_count_overflow(tmp_path: Path) -> None:
    config = PY + (
        'max_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 '
        "dims: [ 4294967296, 4294967296 ] reshape { shape: [ 1 ] } } ]\n"
    )
    diagnostics = lint_config(tmp_path, config)
    assert found_at(diagnostics, "TC306") == [
        (
            "3:42",
            "element count for tensor 'x dims' exceeds maximum size of 9223372036854775807 for m",
        )
    ]
    assert not found_at(diagnostics, "TC307")  # an overflowing count is not compared


@pytest.mark.parametrize(
    "dims",
    [
        "[ 4294967296, 4294967296 ]",  # counted only for reshaped tensors
        "[ -1, 4294967296, 4294967296 ] reshape { shape: [ -1, 4294967296, 4294967296 ] }",
    ],
)
def test_element_count_not_overflowing(tmp_path: Path, dims: str) -> None:
    config = PY + f'input [ {{ name: "x" data_type: TYPE_FP32 dims: {dims} }} ]\n'
    diagnostics = lint_config(tmp_path, config)
    assert not found_at(diagnostics, "TC306") and not found_at(diagnostics, "TC307")


@pytest.mark.parametrize(
    ("dims", "shape", "problem"),
    [
        ("1, 3, 2", "5", "different size for dims and reshape"),
        ("2, -1", "2, 2", "different size for dims and reshape"),
        ("2, -1", "-1, 2", "different size for dims and reshape"),
        ("2, -1", "2, -1, -1", "different number of variable-size dimensions for dims and reshape"),
    ],
)
def test_reshape_size_mismatch(tmp_path: Path, dims: str, shape: str, problem: str) -> None:
    config = PY + (
        f'output [ {{ name: "y" data_type: TYPE_FP32 dims: [ {dims} ] '
        f"reshape {{ shape: [ {shape} ] }} }} ]\n"
    )
    (diagnostic,) = found_at(lint_config(tmp_path, config), "TC307")
    assert diagnostic[1] == f"model output 'y' has {problem} for m"


@pytest.mark.parametrize(
    ("dims", "shape"), [("2, 4, -1, 6", "8, -1, 1, 6"), ("15", "3, 5"), ("-1", "-1, 1")]
)
def test_reshape_of_same_size_passes(tmp_path: Path, dims: str, shape: str) -> None:
    config = PY + (
        f'input [ {{ name: "x" data_type: TYPE_FP32 dims: [ {dims} ] '
        f"reshape {{ shape: [ {shape} ] }} }} ]\n"
    )
    assert not found_at(lint_config(tmp_path, config), "TC307")


# --- TC308-TC312: format, shape tensors, non-linear IO, duplicate names --------------------


def test_format_needs_three_dims(tmp_path: Path) -> None:
    config = (
        PY + 'input [ { name: "x" data_type: TYPE_FP32 format: FORMAT_NHWC dims: [ 4, 4 ] } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC308") == [
        ("2:50", "model input NHWC/NCHW require 3 dims for m")
    ]


@pytest.mark.parametrize("dims", ["dims: [ 3, 4, 4 ]", ""])
def test_format_with_three_or_missing_dims_passes(tmp_path: Path, dims: str) -> None:
    config = PY + f'input [ {{ name: "x" data_type: TYPE_FP32 format: FORMAT_NCHW {dims} }} ]\n'
    assert not found_at(lint_config(tmp_path, config), "TC308")


def test_shape_tensor_outside_tensorrt(tmp_path: Path) -> None:
    config = PY + (
        'input [ { name: "x" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]\n'
        'output [ { name: "y" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]\n'
    )
    message = "shape tensors are only supported for TensorRT platform for m"
    assert found_at(lint_config(tmp_path, config), "TC309") == [
        ("2:72", message),
        ("3:73", message),
    ]


def test_shape_tensor_on_tensorrt_passes(tmp_path: Path) -> None:
    # backend "tensorrt" gets platform tensorrt_plan at AUTOFILL
    config = 'backend: "tensorrt"\ninput [ { name: "x" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]\n'
    assert not found_at(lint_config(tmp_path, config, files={}), "TC309")


def test_non_linear_io_outside_tensorrt(tmp_path: Path) -> None:
    config = (
        PY
        + 'output [ { name: "y" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] is_non_linear_format_io: true } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC310") == [
        ("2:86", "Non-linear IO format is only supported for the TensorRT platform for m")
    ]


def test_non_linear_io_needs_three_dims(tmp_path: Path) -> None:
    config = 'platform: "tensorrt_plan"\n' + (
        'input [ { name: "x" data_type: TYPE_FP16 dims: [ 64 ] is_non_linear_format_io: true } ]\n'
        'output [ { name: "y" data_type: TYPE_FP16 dims: [ 8, 8 ] is_non_linear_format_io: true } ]\n'
    )
    diagnostics = lint_config(tmp_path, config, files={})
    assert found_at(diagnostics, "TC311") == [
        ("2:42", "Non-linear IO format input requires 3 dims for m"),
        ("3:43", "Non-linear IO format output requires 3 dims for m"),
    ]
    assert not found_at(diagnostics, "TC310")


def test_non_linear_io_on_tensorrt_with_three_dims_passes(tmp_path: Path) -> None:
    config = 'platform: "tensorrt_plan"\ninput [ { name: "x" data_type: TYPE_FP16 dims: [ 4, 4, 4 ] is_non_linear_format_io: true } ]\n'
    diagnostics = lint_config(tmp_path, config, files={})
    assert not found_at(diagnostics, "TC310") and not found_at(diagnostics, "TC311")


def test_duplicate_tensor_names(tmp_path: Path) -> None:
    config = PY + (
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "x" data_type: TYPE_FP32 dims: [ 8 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    diagnostics = [d for d in lint_config(tmp_path, config) if d.code == "TC312"]
    # Triton 2.51 loads the model (no check compares names), so lint's gate must pass it
    assert [(str(d.span), d.severity) for d in diagnostics] == [
        ("2:65", Severity.WARNING),
        ("3:66", Severity.WARNING),
    ]
    assert "input 'x' is declared again (first as input #0)" in diagnostics[0].message
    assert "Triton loads the model and keeps only the first" in diagnostics[0].message
    assert "every request fails" in diagnostics[0].message
    assert diagnostics[0].triton is not None
    assert diagnostics[0].triton.message == "expected 2 inputs but got 1 inputs for model 'm'"
    assert "every request fails" not in diagnostics[1].message


def test_duplicate_input_does_not_fail_lint(tmp_path: Path) -> None:
    """Issue 23 item 10: the config Triton 2.51 loaded; lint warns and exits 0."""
    from clikit import run

    config = PY + (
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    make_model(tmp_path / "repo", "m", config, files={"1/model.py": ""})
    done = run("lint", str(tmp_path / "repo"), "--no-cache")
    assert done.returncode == 0, done.stdout
    assert "TC312 warning" in done.stdout
    gated = run("lint", str(tmp_path / "repo"), "--no-cache", "--severity-override", "TC312=error")
    assert gated.returncode == 1 and "TC312 error" in gated.stdout


def test_duplicate_optional_input_is_a_warning(tmp_path: Path) -> None:
    """Triton counts only non-optional inputs as required: a request with 'x' and 'z' passes."""
    config = PY + (
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] optional: true },'
        ' { name: "x" data_type: TYPE_FP32 dims: [ 8 ] optional: true },'
        ' { name: "z" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    (d,) = [d for d in lint_config(tmp_path, config) if d.code == "TC312"]
    assert d.severity is Severity.WARNING and "requests still work" in d.message


def test_input_and_output_may_share_a_name(tmp_path: Path) -> None:
    config = PY + (
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    assert not found_at(lint_config(tmp_path, config), "TC312")


# --- TC320-TC325: batch_input / batch_output ---------------------------------------------

BATCH = (
    PY
    + 'max_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
)


def test_batch_io_source_count(tmp_path: Path) -> None:
    config = BATCH + (
        'batch_input [ { kind: BATCH_ITEM_SHAPE target_name: "s" data_type: TYPE_INT32 } ]\n'
        'batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y" source_input: [ "x", "x" ] } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC320") == [
        ("5:15", "batch input kind 'BATCH_ITEM_SHAPE' expects 1 source input, got 0 for m"),
        (
            "6:72",
            "batch output kind 'BATCH_SCATTER_WITH_INPUT_SHAPE' expects 1 source input, got 2 for m",
        ),
    ]


def test_batch_io_unknown_kind(tmp_path: Path) -> None:
    config = BATCH + (
        'batch_input [ { kind: 6 target_name: "s" data_type: TYPE_INT32 source_input: "x" } ]\n'
        'batch_output [ { kind: 1 target_name: "y" source_input: "x" } ]\n'
    )
    diagnostics = lint_config(tmp_path, config)
    assert found_at(diagnostics, "TC321") == [
        ("5:23", "unknown batch input kind '' for m"),
        ("6:24", "unknown batch output kind '' for m"),
    ]
    assert not found_at(diagnostics, "TC320")


def test_batch_input_data_type(tmp_path: Path) -> None:
    config = BATCH + (
        'batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "a" data_type: TYPE_INT64 source_input: "x" },\n'
        '  { kind: BATCH_ELEMENT_COUNT target_name: "b" source_input: "x" } ]\n'
    )
    message = "batch input data type must be TYPE_INT32 or TYPE_FP32 for m"
    assert found_at(lint_config(tmp_path, config), "TC322") == [("5:71", message), ("6:3", message)]


def test_valid_batch_io_passes(tmp_path: Path) -> None:
    config = BATCH + (
        'batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_FP32 source_input: "x" } ]\n'
        'batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y" source_input: "x" } ]\n'
    )
    assert not [d for d in lint_config(tmp_path, config) if d.code.startswith("TC3")]


def test_batch_io_unknown_source_input(tmp_path: Path) -> None:
    config = BATCH + (
        'batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_FP32 source_input: "X" } ]\n'
        'batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y" source_input: "z" } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC323") == [
        ("5:95", "unknown source input name 'X' for m"),
        ("6:86", "unknown source input name 'z' for m"),
    ]


def test_unknown_names_may_be_added_by_auto_complete(tmp_path: Path) -> None:
    config = BATCH.replace(PY, 'backend: "onnxruntime"\n') + (
        'batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "Y" source_input: "X" } ]\n'
    )
    diagnostics = lint_config(tmp_path, config, files={})
    for code in ("TC323", "TC324"):
        diagnostic = only(diagnostics, code)
        assert diagnostic.severity is Severity.WARNING and diagnostic.triton is None
        assert "unless the onnxruntime backend adds it" in diagnostic.message
    strict = lint_config(tmp_path / "strict", config, files={}, triton_mode="strict")
    assert found_at(strict, "TC324") == [("5:68", "unknown target output name 'Y' for m")]


def test_batch_output_unknown_target(tmp_path: Path) -> None:
    config = (
        BATCH
        + 'batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: [ "y", "Y" ] source_input: "x" } ]\n'
    )
    assert found_at(lint_config(tmp_path, config), "TC324") == [
        ("5:75", "unknown target output name 'Y' for m")
    ]


def test_batch_output_duplicate_target(tmp_path: Path) -> None:
    config = (
        BATCH
        + 'batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: [ "y", "y" ] source_input: "x" } ]\n'
    )
    diagnostics = lint_config(tmp_path, config)
    assert found_at(diagnostics, "TC325") == [
        ("5:75", "target output name 'y' can only be specified once for m")
    ]
    assert not found_at(diagnostics, "TC324")


# --- TC330-TC332: label files -------------------------------------------------------------


def _labelled(label: str, name: str = "y") -> str:
    return (
        PY
        + f'output [ {{ name: "{name}" data_type: TYPE_FP32 dims: [ 2 ] label_filename: "{label}" }} ]\n'
    )


def test_label_file_outside_model_directory(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, _labelled("../labels.txt"))
    model_dir = tmp_path / "repo" / "m"
    assert found_at(diagnostics, "TC330") == [
        (
            "2:71",
            f"label file path '{model_dir}/../labels.txt' for output 'y' in model 'm' is outside "
            "model directory",
        )
    ]
    assert not found_at(diagnostics, "TC331")


def test_label_file_symlink_leaving_the_model_directory(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "elsewhere.txt").write_text("a\nb\n")
    make_model(tmp_path / "repo", "m", _labelled("labels.txt"), files={"1/model.py": ""})
    os.symlink(tmp_path / "repo" / "elsewhere.txt", tmp_path / "repo" / "m" / "labels.txt")
    assert [span for span, _ in found_at(lint_repo(tmp_path / "repo"), "TC330")] == ["2:71"]


def test_label_file_missing(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, _labelled("labels.txt"))
    path = tmp_path / "repo" / "m" / "labels.txt"
    assert found_at(diagnostics, "TC331") == [
        ("2:71", f"failed to open text file for read {path}: No such file or directory")
    ]
    assert only(diagnostics, "TC331").severity is Severity.ERROR


def test_label_file_in_version_directory_is_not_found(tmp_path: Path) -> None:
    # the path is relative to the model directory, not the version directory
    diagnostics = lint_config(
        tmp_path, _labelled("labels.txt"), files={"1/model.py": "", "1/labels.txt": "a\n"}
    )
    assert len(found_at(diagnostics, "TC331")) == 1
    assert "not in the version directory" in only(diagnostics, "TC331").message


# a leading "/" joins to the model directory; below the first level discovery lists no entries,
# so nothing is claimed there
@pytest.mark.parametrize(
    "label", ["labels.txt", "/labels.txt", "1/labels.txt", "deep/er/labels.txt"]
)
def test_label_file_present_passes(tmp_path: Path, label: str) -> None:
    files = {"1/model.py": "", label.lstrip("/"): "a\nb\n"}
    diagnostics = lint_config(tmp_path, _labelled(label), files=files)
    assert not found_at(diagnostics, "TC330") and not found_at(diagnostics, "TC331")


def test_label_file_that_is_a_directory(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, _labelled("1"))
    diagnostic = only(diagnostics, "TC331")
    assert diagnostic.triton is None and "is a directory" in diagnostic.message


def test_multiple_label_files(tmp_path: Path) -> None:
    config = PY + (
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] label_filename: "a.txt" },\n'
        '  { name: "y" data_type: TYPE_FP32 dims: [ 2 ] label_filename: "b.txt" } ]\n'
    )
    files = {"1/model.py": "", "a.txt": "a\n", "b.txt": "b\n"}
    diagnostics = lint_config(tmp_path, config, files=files)
    assert found_at(diagnostics, "TC332") == [("3:64", "multiple label files for 'y'")]


def test_one_label_file_per_output_passes(tmp_path: Path) -> None:
    config = PY + (
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] label_filename: "a.txt" },\n'
        '  { name: "z" data_type: TYPE_FP32 dims: [ 2 ] label_filename: "a.txt" } ]\n'
    )
    diagnostics = lint_config(tmp_path, config, files={"1/model.py": "", "a.txt": "a\n"})
    assert not [d for d in diagnostics if d.code.startswith("TC33")]


# --- Triton's QA corpus -------------------------------------------------------------------

IO_MESSAGES = (
    "model input",
    "model output",
    "batch input",
    "batch output",
    "source input",
    "target output",
)


def _io_variants() -> list[dict[str, str]]:
    if not (TRITON_QA / "VARIANTS.tsv").is_file():
        return []
    rows = read_tsv(TRITON_QA / "VARIANTS.tsv")
    return [r for r in rows if any(m in r["expected_message"] for m in IO_MESSAGES)]


VARIANTS = _io_variants()


@parametrize_corpus(TRITON_QA, "row", VARIANTS, ids=lambda r: r["variant_id"])
def test_triton_qa_noautofill_case(tmp_path: Path, row: dict[str, str]) -> None:
    source = require_corpus(TRITON_QA) / row["path"]
    model = tmp_path / "repo" / source.name
    (model / "1").mkdir(parents=True)
    shutil.copyfile(source / "config.pbtxt", model / "config.pbtxt")
    expected = row["expected_message"].replace("\\[", "[").replace("\\]", "]")
    diagnostics = lint_repo(tmp_path / "repo", triton_mode="strict")
    messages = [
        d.triton.message or ""
        for d in diagnostics
        if d.code.startswith("TC3") and d.severity is Severity.ERROR and d.triton
    ]
    assert any(expected in m for m in messages), (expected, messages)


def test_qa_io_variants_found() -> None:
    if VARIANTS:
        assert len(VARIANTS) == 3 * 41
        print(f"\ntriton_qa noautofill_platform: {len(VARIANTS)} I/O variants checked")
