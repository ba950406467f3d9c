"""TC701-TC708: model warmup samples (`backend_model_instance.cc:GenerateWarmupData`)."""

from __future__ import annotations

from pathlib import Path

from lintkit import lint_config

from tritoncfg.diagnostics import Diagnostic, Severity

IO = """backend: "python"
max_batch_size: {mbs}
input [ {{ name: "X" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "Y" data_type: TYPE_FP32 dims: [ 4 ] }} ]
"""
MODEL_PY = {"1/model.py": "# never executed\n"}


def warmup(body: str, *, mbs: int = 0, extra: str = "") -> str:
    """A config whose line 5 is `model_warmup [ {` and line 6 onwards is `body`."""
    return IO.format(mbs=mbs) + extra + "model_warmup [ {\n" + body + "\n} ]\n"


def findings(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def one(diagnostics: list[Diagnostic], code: str) -> Diagnostic:
    found = findings(diagnostics, code)
    assert len(found) == 1, [(d.code, d.message) for d in diagnostics]
    return found[0]


def triton(d: Diagnostic) -> str | None:
    return d.triton.message if d.triton else None


SAMPLE_OK = """  name: "w"
  batch_size: 1
  inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }"""


def test_valid_warmup_has_no_warmup_findings(tmp_path: Path) -> None:
    found = lint_config(tmp_path, warmup(SAMPLE_OK))
    assert not [d for d in found if d.code.startswith("TC70")]


# TC701 warmup-sample-skipped
def test_batch_size_zero_is_reported_and_hides_the_sample(tmp_path: Path) -> None:
    found = lint_config(
        tmp_path, warmup('  name: "w"\n  inputs { key: "X" value { dims: [ -1 ] } }')
    )
    d = one(found, "TC701")
    assert d.severity is Severity.WARNING
    assert str(d.span) == "5:16"  # the sample: batch_size is not written
    assert d.triton is None
    assert "batch_size 0" in d.message
    # Triton never looks at a skipped sample, so its other mistakes are not reported
    assert not findings(found, "TC702") and not findings(found, "TC704")


def test_explicit_batch_size_zero_points_at_it(tmp_path: Path) -> None:
    found = lint_config(tmp_path, warmup(SAMPLE_OK.replace("batch_size: 1", "batch_size: 0")))
    assert str(one(found, "TC701").span) == "7:15"


def test_only_passive_instances_run_no_warmup(tmp_path: Path) -> None:
    config = warmup(
        '  name: "w"\n  inputs { key: "X" value { dims: [ -1 ] } }',
        extra="instance_group [ { kind: KIND_CPU passive: true } ]\n",
    )
    assert not [d for d in lint_config(tmp_path, config) if d.code.startswith("TC70")]


def test_batch_size_one_passes(tmp_path: Path) -> None:
    assert not findings(lint_config(tmp_path, warmup(SAMPLE_OK)), "TC701")


# TC702 warmup-input-variable-size
def test_wildcard_dim(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ 2, -1 ]")
    d = one(lint_config(tmp_path, warmup(body)), "TC702")
    assert str(d.span) == "8:61"
    assert triton(d) == (
        "warmup setting expects all variable-size dimensions are specified for input 'X'"
    )


def test_unset_data_type_reads_as_variable_size(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("data_type: TYPE_FP32 ", "")
    found = lint_config(tmp_path, warmup(body))
    d = one(found, "TC702")
    assert str(d.span) == "8:21"
    assert "no data_type" in d.message
    assert triton(d) == (
        "warmup setting expects all variable-size dimensions are specified for input 'X'"
    )
    assert not findings(found, "TC706")  # the type check would be meaningless


def test_every_sample_and_input_is_reported(tmp_path: Path) -> None:
    config = IO.format(mbs=0) + (
        "model_warmup [\n"
        '  { name: "a" batch_size: 1 inputs [ { key: "X" value { dims: [ -1 ] zero_data: true } },\n'
        '    { key: "Z" value { data_type: TYPE_INT32 dims: [ -1 ] zero_data: true } } ] },\n'
        '  { name: "b" batch_size: 2 inputs { key: "X" value { dims: [ 4 ] zero_data: true } } } ]\n'
    )
    spans = sorted(str(d.span) for d in findings(lint_config(tmp_path, config), "TC702"))
    assert spans == ["6:49", "7:54", "8:47"]


# TC703 warmup-input-invalid-dims
def test_negative_dim(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ 2, -4 ]")
    d = one(lint_config(tmp_path, warmup(body)), "TC703")
    assert str(d.span) == "8:61"
    assert triton(d) == "tensor 'X' contains an invalid dimension [2,-4]"


def test_negative_dim_of_a_string(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("TYPE_FP32 dims: [ 4 ]", "TYPE_STRING dims: [ -3 ]")
    d = one(lint_config(tmp_path, warmup(body)), "TC703")
    assert triton(d) == "tensor 'X' contains an invalid dimension in shape [-3]"


def test_size_overflow(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ 4611686018427387904, 2 ]")
    d = one(lint_config(tmp_path, warmup(body)), "TC703")
    assert str(d.span) == "8:56"
    assert triton(d) == "byte size for tensor 'X' exceeds maximum size of 9223372036854775807"


def test_first_negative_dim_decides(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ -1, -4 ]")
    found = lint_config(tmp_path, warmup(body))
    assert findings(found, "TC702") and not findings(found, "TC703")


def test_positive_dims_pass(tmp_path: Path) -> None:
    assert not findings(lint_config(tmp_path, warmup(SAMPLE_OK)), "TC703")


# TC704 warmup-input-no-data
def test_no_input_data(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace(" zero_data: true", "")
    d = one(lint_config(tmp_path, warmup(body)), "TC704")
    assert str(d.span) == "8:21"
    assert triton(d) == (
        "[request id: <id_unknown>] warmup setting expects input 'X' to have input_data_type set"
    )


def test_random_data_passes(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("zero_data", "random_data")
    assert not findings(lint_config(tmp_path, warmup(body)), "TC704")


# TC705 warmup-data-file-missing
def file_sample(name: str) -> str:
    return SAMPLE_OK.replace("zero_data: true", f'input_data_file: "{name}"')


def test_missing_data_file(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, warmup(file_sample("x.bin"))), "TC705")
    assert str(d.span) == "8:79"
    model_dir = tmp_path / "repo" / "m"
    assert triton(d) == (
        f"failed to open text file for read {model_dir}/warmup/x.bin: No such file or directory"
    )


def test_data_file_in_version_dir_is_not_found(tmp_path: Path) -> None:
    files = {**MODEL_PY, "1/x.bin": "0123456789abcdef"}
    found = lint_config(tmp_path, warmup(file_sample("x.bin")), files=files)
    assert one(found, "TC705").severity is Severity.ERROR


def test_present_data_files_pass(tmp_path: Path) -> None:
    files = {**MODEL_PY, "warmup/x.bin": "0123456789abcdef", "warmup/sub/y.bin": "0" * 16}
    assert not findings(lint_config(tmp_path, warmup(file_sample("x.bin")), files=files), "TC705")
    nested = lint_config(tmp_path / "n", warmup(file_sample("sub/y.bin")), files=files)
    assert not findings(nested, "TC705")


def test_missing_nested_data_file(tmp_path: Path) -> None:
    files = {**MODEL_PY, "warmup/sub/y.bin": "0" * 16}
    d = one(lint_config(tmp_path, warmup(file_sample("sub/z.bin")), files=files), "TC705")
    assert triton(d).endswith("/m/warmup/sub/z.bin: No such file or directory")  # type: ignore[union-attr]


def test_data_file_outside_the_model_is_only_noted(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, warmup(file_sample("../../elsewhere.bin"))), "TC705")
    assert d.severity is Severity.INFO and d.triton is None


# TC706 warmup-data-type-mismatch
def test_data_type_mismatch_uses_protocol_names(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("TYPE_FP32", "TYPE_INT32")
    d = one(lint_config(tmp_path, warmup(body)), "TC706")
    assert str(d.span) == "8:40"
    assert triton(d) == (
        "[request id: <id_unknown>] inference input 'X' data-type is 'INT32', but model 'm' "
        "expects 'FP32'"
    )


def test_string_is_bytes(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("TYPE_FP32", "TYPE_STRING")
    d = one(lint_config(tmp_path, warmup(body)), "TC706")
    assert "data-type is 'BYTES'" in triton(d)  # type: ignore[operator]


def test_override_inputs_are_not_type_checked(tmp_path: Path) -> None:
    body = (
        SAMPLE_OK
        + '\n  inputs { key: "START" value { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } }'
    )
    found = lint_config(tmp_path, warmup(body))
    assert not findings(found, "TC706") and not findings(found, "TC708")


# TC707 warmup-shape-mismatch
def test_batch_dim_written_in_warmup_dims(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ 1, 4 ]")
    d = one(lint_config(tmp_path, warmup(body, mbs=8)), "TC707")
    assert str(d.span) == "8:56"
    assert "leave the batch dimension out" in d.message
    assert triton(d) == (
        "[request id: <id_unknown>] unexpected shape for input 'X' for model 'm'. "
        "Expected [-1,4], got [1,1,4]. NOTE: Setting a non-zero max_batch_size in the model "
        "config requires a batch dimension to be prepended to each input shape. If you want to "
        "specify the full shape including the batch dim in your input dims config, try setting "
        "max_batch_size to zero. See the model configuration docs for more info on "
        "max_batch_size."
    )


def test_shape_mismatch_without_batching_has_no_note(tmp_path: Path) -> None:
    body = SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ 3 ]")
    d = one(lint_config(tmp_path, warmup(body)), "TC707")
    assert triton(d) == (
        "[request id: <id_unknown>] unexpected shape for input 'X' for model 'm'. "
        "Expected [4], got [3]. "
    )


def test_config_wildcard_matches_any_size(tmp_path: Path) -> None:
    config = warmup(SAMPLE_OK.replace("dims: [ 4 ]", "dims: [ 7 ]"), mbs=2).replace(
        'name: "X" data_type: TYPE_FP32 dims: [ 4 ]', 'name: "X" data_type: TYPE_FP32 dims: [ -1 ]'
    )
    assert not findings(lint_config(tmp_path, config), "TC707")


def test_matching_shape_with_batching_passes(tmp_path: Path) -> None:
    assert not findings(lint_config(tmp_path, warmup(SAMPLE_OK, mbs=8)), "TC707")


# TC708 warmup-missing-required-inputs
def two_inputs(b_optional: bool, warmup_inputs: str) -> str:
    optional = " optional: true" if b_optional else ""
    return (
        'backend: "python"\n'
        "max_batch_size: 0\n"
        'input [ { name: "B" data_type: TYPE_FP32 dims: [ 4 ] },\n'
        f'        {{ name: "A" data_type: TYPE_FP32 dims: [ 4 ]{optional} }} ]\n'
        'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'model_warmup [ { name: "w" batch_size: 1\n'
        + "".join(
            f'  inputs {{ key: "{n}" value {{ data_type: TYPE_FP32 dims: [ 4 ] zero_data: true }} }}\n'
            for n in warmup_inputs
        )
        + "} ]\n"
    )


def test_missing_required_input(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, two_inputs(False, "A")), "TC708")
    assert str(d.span) == "6:24"
    assert triton(d) == (
        "[request id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'm'. "
        "Got input(s) ['A'], but missing required input(s) ['B']. Please provide all required "
        "input(s)."
    )


def test_missing_required_input_with_optional_ones(tmp_path: Path) -> None:
    # "C" is not a config input: it is sent as an override input and does not count
    d = one(lint_config(tmp_path, two_inputs(True, "C")), "TC708")
    assert triton(d) == (
        "[request id: <id_unknown>] expected number of inputs between 1 and 2 but got 0 inputs "
        "for model 'm'. Got input(s) [], but missing required input(s) ['B']. Please provide "
        "all required input(s)."
    )


def test_optional_input_may_stand_in_for_the_count(tmp_path: Path) -> None:
    # Triton compares counts: the optional input given satisfies the one required input
    assert not findings(lint_config(tmp_path, two_inputs(True, "A")), "TC708")


def test_all_inputs_given_pass(tmp_path: Path) -> None:
    assert not findings(lint_config(tmp_path, two_inputs(False, "AB")), "TC708")


def test_inputs_unknown_before_backend_autocomplete(tmp_path: Path) -> None:
    config = 'backend: "python"\nmodel_warmup [ { name: "w" batch_size: 1 } ]\n'
    assert not findings(lint_config(tmp_path, config), "TC708")


# TC709 warmup-data-file-too-small

FILE_SAMPLE = """  name: "w"
  batch_size: 1
  inputs {{ key: "X" value {{ data_type: {dtype} dims: [ 4 ] input_data_file: "{file}" }} }}"""


def _with_file(
    tmp_path: Path, size: int, *, dtype: str = "TYPE_FP32", file: str = "x.bin"
) -> list[Diagnostic]:
    files = {**MODEL_PY, "warmup/x.bin": "\0" * size}
    return lint_config(tmp_path, warmup(FILE_SAMPLE.format(dtype=dtype, file=file)), files=files)


def test_warmup_file_smaller_than_the_input(tmp_path: Path) -> None:
    d = one(_with_file(tmp_path, 8), "TC709")
    assert (str(d.span), d.severity) == ("8:79", Severity.ERROR)
    assert triton(d) == (
        "[request id: <id_unknown>] warmup setting expects 16 bytes, but the data provided "
        "from x.binonly has 8 bytes"
    )
    assert "has 8 bytes, but TYPE_FP32 dims [4] need 16" in d.message


def test_warmup_file_of_the_right_size_or_larger_passes(tmp_path: Path) -> None:
    assert not findings(_with_file(tmp_path / "exact", 16), "TC709")
    assert not findings(_with_file(tmp_path / "larger", 20), "TC709")  # Triton reads what it needs


def test_string_warmup_input_takes_the_whole_file(tmp_path: Path) -> None:
    assert not findings(_with_file(tmp_path, 1, dtype="TYPE_STRING"), "TC709")


def test_missing_warmup_file_is_tc705_not_tc709(tmp_path: Path) -> None:
    found = _with_file(tmp_path, 8, file="other.bin")
    assert findings(found, "TC705") and not findings(found, "TC709")


# TC715 warmup-sequence-tensors-missing
SEQUENCE = """sequence_batching {
  control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ]
  state [ { input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_FP32 dims: [ 2 ] } ]
}
"""
START = '{ key: "START" value { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } }'
STATE = '{ key: "INPUT_STATE" value { data_type: TYPE_FP32 dims: [ 2 ] zero_data: true } }'


def sequence_warmup(backend: str, *extra: str) -> str:
    inputs = ", ".join(
        ['{ key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }', *extra]
    )
    return warmup(f'  name: "w"\n  batch_size: 1\n  inputs [ {inputs} ]', extra=SEQUENCE).replace(
        'backend: "python"', f'backend: "{backend}"'
    )


def test_a_sequence_warmup_without_its_tensors_fails_a_graph_backend(tmp_path: Path) -> None:
    found = lint_config(tmp_path, sequence_warmup("onnxruntime"))
    d = one(found, "TC715")
    assert d.severity is Severity.ERROR
    assert str(d.span).startswith("9:")  # the sample (line 9: `model_warmup [ {`)
    assert "'START' (control)" in d.message and "'INPUT_STATE' (implicit state)" in d.message
    assert "load" in d.message


def test_a_python_model_gets_a_warning(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, sequence_warmup("python", START), files=MODEL_PY), "TC715")
    assert d.severity is Severity.WARNING
    assert "'INPUT_STATE'" in d.message and "'START'" not in d.message


def test_a_sample_that_gives_every_sequence_tensor_passes(tmp_path: Path) -> None:
    found = lint_config(tmp_path, sequence_warmup("python", START, STATE), files=MODEL_PY)
    assert any(d.code == "TC715" for d in lint_config(tmp_path / "b", sequence_warmup("python")))
    assert not findings(found, "TC715")
    assert not [d for d in found if d.severity is Severity.ERROR], found


def test_a_model_without_sequence_batching_is_not_asked_for_tensors(tmp_path: Path) -> None:
    found = lint_config(tmp_path, warmup(SAMPLE_OK), files=MODEL_PY)
    assert found is not None and not findings(found, "TC715")
    assert one(lint_config(tmp_path / "b", sequence_warmup("onnxruntime")), "TC715")
