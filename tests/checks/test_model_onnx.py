"""TC801-TC812: the ONNX Runtime backend's checks against real model.onnx files (written with
onnx.helper under tmp_path), and the triton_qa corpus's ONNX cases (Triton's own verdicts).

Run with `-s` to see the corpus agreement table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from corpus import TRITON_QA, copy_tree, read_tsv, require_corpus
from lintkit import found, lint_repo, make_model
from models.onnxkit import BOOL, FLOAT, FLOAT16, INT32, INT64, STRING, Spec, make_onnx

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Diagnostic, Severity


def messages(diagnostics: list[Diagnostic], code: str) -> list[str]:
    return [d.message for d in diagnostics if d.code == code]


def lint_onnx(
    tmp_path: Path,
    config: str | None,
    inputs: Sequence[Spec],
    outputs: Sequence[Spec],
    *,
    strict: bool = False,
    **model: object,
) -> list[Diagnostic]:
    """Lint model `m` (backend onnxruntime) whose 1/model.onnx has these inputs and outputs."""
    make_model(tmp_path / "repo", "m", config, files={})
    make_onnx(tmp_path / "repo" / "m" / "1" / "model.onnx", inputs, outputs, **model)  # type: ignore[arg-type]
    mode = "strict" if strict else "default"
    return lint_repo(tmp_path / "repo", triton_mode=mode, gpus=(0,))


ORT = 'backend: "onnxruntime"\n'
X16 = [("x", FLOAT, ["batch", 16])]
Y16 = [("y", FLOAT, ["batch", 16])]


def io(kind: str, name: str, data_type: str, dims: str, extra: str = "") -> str:
    return f'{kind} [ {{ name: "{name}" data_type: {data_type} dims: [ {dims} ]{extra} }} ]\n'


def both(
    mbs: int, x: str = "16", y: str = "16", xt: str = "TYPE_FP32", yt: str = "TYPE_FP32"
) -> str:
    return ORT + f"max_batch_size: {mbs}\n" + io("input", "x", xt, x) + io("output", "y", yt, y)


# --- TC801 -----------------------------------------------------------------------------------


def test_unreadable_model_is_a_warning(tmp_path: Path) -> None:
    make_model(tmp_path, "m", ORT, files={"1/model.onnx": "not a model\n"})
    diagnostics = lint_repo(tmp_path)
    assert found(diagnostics, "TC801") == [("1:1", "warning", None)]
    assert messages(diagnostics, "TC801")[0].startswith(
        "1/model.onnx is not a readable ONNX model (model.onnx is not a readable ONNX model: "
    )


def test_empty_model_is_a_note(tmp_path: Path) -> None:
    make_model(tmp_path, "m", ORT, files={"1/model.onnx": ""})
    diagnostics = lint_repo(tmp_path)
    assert found(diagnostics, "TC801") == [("1:1", "info", None)]
    assert messages(diagnostics, "TC801") == [
        "1/model.onnx was not checked against the config: model.onnx is empty (0 bytes), not an "
        "ONNX model"
    ]


def test_readable_model_passes_tc801(tmp_path: Path) -> None:
    assert not found(lint_onnx(tmp_path, both(8), X16, Y16), "TC801")


# --- TC802 -----------------------------------------------------------------------------------

STATIC = [("x", FLOAT, [16])]
STATIC_Y = [("y", FLOAT, [16])]
NO_BATCH = (
    "autofill failed for model 'm': model does not support batching while non-zero "
    "max_batch_size is specified"
)


def test_batching_config_for_a_model_that_cannot_batch(tmp_path: Path) -> None:
    config = ORT + "max_batch_size: 8\n" + io("input", "x", "TYPE_FP32", "16")  # no outputs
    diagnostics = lint_onnx(tmp_path, config, STATIC, STATIC_Y)
    assert found(diagnostics, "TC802") == [("2:17", "error", NO_BATCH)]
    assert messages(diagnostics, "TC802")[0].startswith(
        "max_batch_size is 8 but the model cannot batch: its input 'x' has a fixed first "
        "dimension 16 (shape [16])"
    )
    assert not found(diagnostics, "TC808")  # the same mistake, reported once


def test_batching_unsupported_passes_without_batching_or_auto_complete(tmp_path: Path) -> None:
    no_batching = ORT + "max_batch_size: 0\n" + io("input", "x", "TYPE_FP32", "16")
    assert not found(lint_onnx(tmp_path / "a", no_batching, STATIC, STATIC_Y), "TC802")
    # inputs and outputs listed: no auto-complete, the per-tensor check TC808 reports it
    diagnostics = lint_onnx(tmp_path / "b", both(8), STATIC, STATIC_Y)
    assert not found(diagnostics, "TC802") and len(found(diagnostics, "TC808")) == 2
    config = ORT + "max_batch_size: 8\n" + io("input", "x", "TYPE_FP32", "16")
    assert not found(lint_onnx(tmp_path / "c", config, STATIC, STATIC_Y, strict=True), "TC802")


# --- TC803 -----------------------------------------------------------------------------------

TWO_IN = [("a", FLOAT, ["n", 4]), ("b", FLOAT, ["n", 4])]


def test_too_few_inputs(tmp_path: Path) -> None:
    config = (
        ORT
        + "max_batch_size: 4\n"
        + io("input", "b", "TYPE_FP32", "4")
        + io("output", "y", "TYPE_FP32", "4")
    )
    diagnostics = lint_onnx(tmp_path, config, TWO_IN, [("y", FLOAT, ["n", 4])])
    assert found(diagnostics, "TC803") == [
        (
            "3:1",
            "error",
            "unable to load model 'm', configuration expects 1 inputs, model provides 2",
        )
    ]
    assert messages(diagnostics, "TC803") == [
        "the config feeds the model 1 input but it has 2 (a, b); not fed: a"
    ]


def test_input_count_discounts_optional_and_adds_batch_inputs_and_controls(tmp_path: Path) -> None:
    config = (
        ORT
        + "max_batch_size: 0\n"
        + io("input", "a", "TYPE_FP32", "-1, 4")
        + 'input [ { name: "w" data_type: TYPE_FP32 dims: [ 4 ] optional: true } ]\n'
        + io("output", "y", "TYPE_FP32", "-1, 4")
        + 'sequence_batching { control_input [ { name: "b" control [ { kind: '
        "CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] } ] }\n"
    )
    outputs = [("y", FLOAT, ["n", 4])]
    inputs = [("a", FLOAT, ["n", 4]), ("b", FLOAT, [1])]
    passing = lint_onnx(tmp_path / "a", config, inputs, outputs, initializers=[("w", FLOAT, [4])])
    assert not found(passing, "TC803") and not found(passing, "TC804")
    required = config.replace(" optional: true", "")
    failing = lint_onnx(tmp_path / "b", required, inputs, outputs, initializers=[("w", FLOAT, [4])])
    assert [f[2] for f in found(failing, "TC803")] == [
        "unable to load model 'm', configuration expects 3 inputs, model provides 2"
    ]
    assert messages(failing, "TC803") == [
        "the config feeds the model 3 inputs (2 input entries + 1 sequence control) but it has 2 "
        "(a, b); initializers counted as required inputs (mark them optional: true): w"
    ]


def test_auto_completed_inputs_pass_but_count_sequence_controls_again(tmp_path: Path) -> None:
    assert not found(lint_onnx(tmp_path / "a", ORT, TWO_IN, Y16), "TC803")  # filled from the model
    controls = ORT + (
        'sequence_batching { control_input [ { name: "b" control [ { kind: '
        "CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] } ] }\n"
    )
    inputs = [("a", FLOAT, ["n", 4]), ("b", FLOAT, ["n", 1])]
    diagnostics = lint_onnx(tmp_path / "b", controls, inputs, Y16)
    assert [f[2] for f in found(diagnostics, "TC803")] == [
        "unable to load model 'm', configuration expects 3 inputs, model provides 2"
    ]


# --- TC804 / TC805 ---------------------------------------------------------------------------


def test_unknown_input(tmp_path: Path) -> None:
    config = both(8).replace('name: "x"', 'name: "X"')
    diagnostics = lint_onnx(tmp_path, config, X16, Y16)
    assert found(diagnostics, "TC804") == [
        ("3:17", "error", "unexpected inference input 'X', allowed inputs are: x")
    ]
    assert messages(diagnostics, "TC804") == [
        "input 'X' is not an input of the model (did you mean 'x'?); its inputs are: x"
    ]


def test_overridable_initializer_is_an_allowed_input(tmp_path: Path) -> None:
    config = both(0, x="-1, 16", y="-1, 16") + io(
        "input", "w", "TYPE_FP32", "16", " optional: true"
    )
    diagnostics = lint_onnx(tmp_path, config, X16, Y16, initializers=[("w", FLOAT, [16])])
    assert not found(diagnostics, "TC804") and not found(diagnostics, "TC803")


def test_unknown_output(tmp_path: Path) -> None:
    diagnostics = lint_onnx(tmp_path, both(8).replace('"y"', '"probs"'), X16, Y16)
    assert found(diagnostics, "TC805") == [
        ("4:18", "error", "unexpected inference output 'probs', allowed outputs are: y")
    ]


def test_a_subset_of_the_outputs_is_fine(tmp_path: Path) -> None:
    outputs = [("y", FLOAT, ["batch", 16]), ("z", FLOAT, ["batch", 2])]
    diagnostics = lint_onnx(tmp_path, both(8), X16, outputs)
    assert not found(diagnostics, "TC805") and not [
        d for d in diagnostics if d.code >= "TC801" and d.code <= "TC812"
    ]


# --- TC806 -----------------------------------------------------------------------------------


def test_fp16_model_with_an_fp32_config(tmp_path: Path) -> None:
    diagnostics = lint_onnx(tmp_path, both(8), [("x", FLOAT16, ["batch", 16])], Y16)
    assert found(diagnostics, "TC806") == [
        (
            "3:32",
            "error",
            "unable to load model 'm', configuration expects datatype TYPE_FP32 for input 'x', "
            "model provides TYPE_FP16",
        )
    ]
    assert messages(diagnostics, "TC806") == [
        "the model's input 'x' is FP16 (float16) but the config says TYPE_FP32; set data_type: "
        "TYPE_FP16"
    ]


def test_datatype_of_outputs_and_strings(tmp_path: Path) -> None:
    config = both(8, yt="TYPE_INT32")
    diagnostics = lint_onnx(tmp_path / "a", config, X16, [("y", INT64, ["batch", 16])])
    assert [f[2] for f in found(diagnostics, "TC806")] == [
        "unable to load model 'm', configuration expects datatype TYPE_INT32 for output 'y', "
        "model provides TYPE_INT64"
    ]
    strings = both(8, xt="TYPE_STRING")
    assert not found(lint_onnx(tmp_path / "b", strings, [("x", STRING, ["b", 16])], Y16), "TC806")
    diagnostics = lint_onnx(
        tmp_path / "c", both(8, xt="TYPE_INT8"), [("x", STRING, ["b", 16])], Y16
    )
    assert found(diagnostics, "TC806")[0][2].endswith("model provides TYPE_BYTES")  # type: ignore[union-attr]


def test_matching_datatypes_pass(tmp_path: Path) -> None:
    assert not found(lint_onnx(tmp_path, both(8), X16, Y16), "TC806")


# --- TC807 -----------------------------------------------------------------------------------


def dims_error(tensor: str, model: str, count: int, full: str) -> str:
    return (
        f"model 'm', tensor '{tensor}': the model expects {model.count(',') + 1} dimensions (shape "
        f"{model}) but the model configuration specifies {count} dimensions (an initial batch "
        "dimension because max_batch_size > 0 followed by the explicit tensor shape, making "
        f"complete shape {full})"
    )


def test_batch_dimension_written_in_dims(tmp_path: Path) -> None:
    diagnostics = lint_onnx(tmp_path, both(8, x="8, 16"), X16, Y16)
    assert found(diagnostics, "TC807") == [
        ("3:42", "error", dims_error("x", "[-1,16]", 3, "[-1,8,16]"))
    ]
    assert messages(diagnostics, "TC807") == [
        "the model's input 'x' has shape [batch, 16]; max_batch_size > 0 adds the batch "
        "dimension, so dims [8,16] make [-1,8,16]: 3 dimensions against the model's 2; write "
        "dims: [ 16 ]"
    ]


def test_input_wildcards_against_fixed_and_variable_model_dims(tmp_path: Path) -> None:
    # a config -1 against the model's fixed 16 fails; the model's variable dim takes any size
    diagnostics = lint_onnx(tmp_path / "a", both(8, x="-1"), X16, Y16)
    assert [f[2] for f in found(diagnostics, "TC807")] == [dims_error("x", "[-1,16]", 2, "[-1,-1]")]
    assert "variable (-1) in the config but 16 in the model" in messages(diagnostics, "TC807")[0]
    variable = [("x", FLOAT, ["batch", "length"])]
    assert not found(lint_onnx(tmp_path / "b", both(8, x="16"), variable, Y16), "TC807")


def test_outputs_compare_exactly(tmp_path: Path) -> None:
    outputs = [("y", FLOAT, ["batch", "length"])]
    diagnostics = lint_onnx(tmp_path / "a", both(8, y="16"), X16, outputs)
    assert [f[2] for f in found(diagnostics, "TC807")] == [dims_error("y", "[-1,-1]", 2, "[-1,16]")]
    assert "variable in the model but 16 in the config" in messages(diagnostics, "TC807")[0]
    assert not found(lint_onnx(tmp_path / "b", both(8, y="-1"), X16, outputs), "TC807")


def test_dims_without_batching_and_with_reshape(tmp_path: Path) -> None:
    model = [("x", FLOAT, [2, 8])]
    diagnostics = lint_onnx(tmp_path / "a", both(0, x="16", y="16"), model, [("y", FLOAT, [16])])
    assert [f[2] for f in found(diagnostics, "TC807")] == [
        "model 'm', tensor 'x': the model expects 2 dimensions (shape [2,8]) but the model "
        "configuration specifies 1 dimensions (shape [16])"
    ]
    reshaped = both(0, x="16", y="16").replace(
        "dims: [ 16 ] }", "dims: [ 16 ] reshape: { shape: [ 2, 8 ] } }", 1
    )
    assert not found(lint_onnx(tmp_path / "b", reshaped, model, [("y", FLOAT, [16])]), "TC807")


# --- TC808 / TC809 ---------------------------------------------------------------------------


def test_fixed_batch_dimension(tmp_path: Path) -> None:
    model = [("x", FLOAT, [1, 16])]
    diagnostics = lint_onnx(tmp_path, both(8), model, Y16, strict=True)
    assert found(diagnostics, "TC808") == [
        (
            "3:42",
            "error",
            "model 'm', tensor 'x': for the model to support batching the shape should have at "
            "least 1 dimension and the first dimension must be -1; but shape expected by the model "
            "is [1,16]",
        )
    ]
    assert not found(lint_onnx(tmp_path / "b", both(0, x="1, 16", y="-1, 16"), model, Y16), "TC808")


def test_scalar_tensors(tmp_path: Path) -> None:
    model = [("x", FLOAT, [])]
    diagnostics = lint_onnx(tmp_path / "a", both(0, x="4", y="-1, 16"), model, Y16)
    assert found(diagnostics, "TC809") == [
        (
            "3:42",
            "error",
            "unable to load model 'm', scalar tensor 'x', should only provide 1 in the model "
            "configuration when the model doesn't support batching. Model configuration "
            "provided: [4].",
        )
    ]
    assert not found(lint_onnx(tmp_path / "b", both(0, x="1", y="-1, 16"), model, Y16), "TC809")


# --- TC810 / TC811 ---------------------------------------------------------------------------


def test_optional_input_with_batching(tmp_path: Path) -> None:
    config = both(8) + io("input", "w", "TYPE_FP32", "16", " optional: true")
    diagnostics = lint_onnx(tmp_path / "a", config, X16, Y16, initializers=[("w", FLOAT, [16])])
    assert [f[2] for f in found(diagnostics, "TC810")] == [
        "unable to load model 'm', optional input 'w' is not supported for models that support "
        "batching"
    ]
    # auto-complete turns max_batch_size 0 into 4 for a model that can batch
    autofilled = (
        ORT
        + io("input", "x", "TYPE_FP32", "16")
        + io("input", "w", "TYPE_FP32", "16", " optional: true")
    )
    diagnostics = lint_onnx(tmp_path / "b", autofilled, X16, Y16, initializers=[("w", FLOAT, [16])])
    assert "auto-complete set max_batch_size to 4" in messages(diagnostics, "TC810")[0]
    strict = autofilled + io("output", "y", "TYPE_FP32", "-1, 16")
    passing = lint_onnx(tmp_path / "c", strict, X16, Y16, initializers=[("w", FLOAT, [16])])
    assert not found(passing, "TC810")


def test_ragged_input_needs_a_1d_model_input(tmp_path: Path) -> None:
    config = both(8, x="-1").replace("dims: [ -1 ] }", "dims: [ -1 ] allow_ragged_batch: true }")
    diagnostics = lint_onnx(tmp_path / "a", config, X16, Y16)
    assert [f[2] for f in found(diagnostics, "TC811")] == [
        "unable to load model 'm', configuration expects model provides input with shape [-1]  "
        "for ragged input 'x', model provides [-1,16]"
    ]
    assert not found(lint_onnx(tmp_path / "b", config, [("x", FLOAT, ["n"])], Y16), "TC811")


# --- TC812 -----------------------------------------------------------------------------------

SEQ = (
    ORT
    + "max_batch_size: 8\n"
    + io("input", "x", "TYPE_FP32", "16")
    + io("output", "y", "TYPE_FP32", "16")
    + 'sequence_batching { control_input [ { name: "START" control [ { kind: '
    "CONTROL_SEQUENCE_START {values} }} ] }} ] }}\n"
)


def seq(values: str) -> str:
    return SEQ.replace("{values}", values).replace("}}", "}")


def test_sequence_control_is_checked_against_the_model(tmp_path: Path) -> None:
    inputs = [*X16, ("START", BOOL, ["batch", 1])]
    good = seq("bool_false_true: [ false, true ]")
    assert not found(lint_onnx(tmp_path / "a", good, inputs, Y16), "TC812")
    diagnostics = lint_onnx(tmp_path / "b", seq("int32_false_true: [ 0, 1 ]"), inputs, Y16)
    assert [f[2] for f in found(diagnostics, "TC812")] == [
        "unable to load model 'm', sequence control 'START', the model expects data-type BOOL but "
        "the model configuration specifies data-type TYPE_INT32"
    ]
    wide = [*X16, ("START", BOOL, ["batch", 2])]
    diagnostics = lint_onnx(tmp_path / "c", good, wide, Y16)
    assert [f[2] for f in found(diagnostics, "TC812")] == [
        "unable to load model 'm', sequence control 'START' in model has dims [2] but dims [1] is "
        "expected"
    ]
    diagnostics = lint_onnx(tmp_path / "d", good, X16, Y16)
    assert [f[2] for f in found(diagnostics, "TC812")] == [
        "configuration specified sequence control 'START', but model does not provide that input"
    ]


def test_int32_control(tmp_path: Path) -> None:
    inputs = [*X16, ("START", INT32, ["batch", 1])]
    assert not found(lint_onnx(tmp_path, seq("int32_false_true: [ 0, 1 ]"), inputs, Y16), "TC812")


# --- Triton's QA corpus ----------------------------------------------------------------------

QA_FOLDERS = ("autofill_noplatform/onnx/", "autofill_noplatform_success/onnx/")


def onnx_cases() -> list[dict[str, str]]:
    if not (TRITON_QA / "INDEX.tsv").is_file():
        return []
    return [
        row
        for row in read_tsv(TRITON_QA / "INDEX.tsv")
        if any(f"L0_model_config/{f}" in row["source_path_in_repo"] for f in QA_FOLDERS)
        and row["model_files_status"].startswith("included:")
    ]


def run_qa_case(row: dict[str, str], work: Path) -> tuple[str, str]:
    """(agree | disagree, what tritoncfg said) for one single-model QA case, in Triton's mode."""
    source = TRITON_QA / row["source_path_in_repo"].removeprefix("qa/")
    target = work / "models" / source.name
    copy_tree(source, target, skip=lambda rel: rel.name.startswith("expected"))
    strict = bool(re.search(r"--strict-model-config=(true|1)\b", row["server_args"])) or (
        "--disable-auto-complete-config" in row["server_args"]
    )
    options = LintOptions(triton_mode="strict" if strict else "default", gpus=(0,))
    errors = [d for d in lint(target, options).diagnostics if d.severity is Severity.ERROR]
    said = " | ".join(f"{d.code} {d.triton.message if d.triton else d.message}" for d in errors)
    if row["kind"] == "invalid":
        wanted = row["expected_message_literal"]
        agree = any(d.triton and wanted in (d.triton.message or "") for d in errors)
    else:
        agree = not errors
    return ("agree" if agree else "disagree"), said or "no error"


def test_triton_qa_onnx_cases(tmp_path: Path) -> None:
    require_corpus(TRITON_QA)
    rows = onnx_cases()
    assert len(rows) == 10, [r["case_id"] for r in rows]
    results = [(row, *run_qa_case(row, tmp_path / f"case{i}")) for i, row in enumerate(rows)]
    width = max(len(r["case_id"]) for r in rows)
    print("\nTriton QA, ONNX cases with model files (default mode, as the QA ran them)")
    print(f"{'case':<{width}}  {'kind':<8} status    tritoncfg")
    for row, status, said in results:
        print(f"{row['case_id']:<{width}}  {row['kind']:<8} {status:<9} {said}")
    agreed = sum(status == "agree" for _, status, _ in results)
    print(f"{agreed}/{len(results)} agree")
    assert [r["case_id"] for r, status, _ in results if status != "agree"] == []


@pytest.mark.parametrize("strict", [False, True])
def test_qa_models_in_both_modes_stay_consistent(tmp_path: Path, strict: bool) -> None:
    """The QA's too_few_inputs model in strict mode: the same count error (no auto-complete)."""
    require_corpus(TRITON_QA)
    source = TRITON_QA / "L0_model_config" / "autofill_noplatform" / "onnx" / "too_few_inputs"
    copy_tree(source, tmp_path / "too_few_inputs", skip=lambda rel: rel.name.startswith("expected"))
    mode = "strict" if strict else "default"
    diagnostics = lint(tmp_path / "too_few_inputs", LintOptions(triton_mode=mode, gpus=(0,)))
    assert [f[2] for f in found(diagnostics.diagnostics, "TC803")] == [
        "unable to load model 'too_few_inputs', configuration expects 1 inputs, model provides 2"
    ]
