"""TC6xx: sequence batching controls, strategies (`model_config_utils.cc:ValidateModelConfig`) and
implicit state (`sequence_batch_scheduler.cc`, `sequence_state.cc`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus import TRITON_QA, parametrize_corpus, read_tsv, require_corpus
from lintkit import found_at, lint_config, lint_repo

from tritoncfg.diagnostics import Severity

PY = 'backend: "python"\n'


def controls(*entries: str) -> str:
    """A config whose sequence_batching has these control_input entries, one per line (line 3+)."""
    return PY + "sequence_batching {\n control_input [\n" + ",\n".join(entries) + "\n ]\n}\n"


def entry(name: str | None, *controls: str) -> str:
    named = "" if name is None else f'name: "{name}" '
    return "  { " + named + "control [ " + ", ".join(controls) + " ] }"


START = "{ kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] }"
READY = "{ kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] }"
END = "{ kind: CONTROL_SEQUENCE_END fp32_false_true: [ 0, 1 ] }"
CORRID = "{ kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 }"
GOOD = controls(entry("START", START), entry("READY", READY), entry("END", END), entry("C", CORRID))


@pytest.mark.parametrize(
    "config",
    [
        GOOD,
        controls(entry("S", START, READY)),  # one tensor, two kinds: accepted
        controls(entry("S", "{ kind: 7 }")),  # an unknown kind is ignored by every pass
        controls(entry("S", "{ kind: CONTROL_SEQUENCE_START bool_false_true: [ false, true ] }")),
        PY + "sequence_batching { }\n",
    ],
)
def test_valid_controls_pass(tmp_path: Path, config: str) -> None:
    assert not [d for d in lint_config(tmp_path, config) if d.code.startswith("TC6")]


def test_control_input_without_name(tmp_path: Path) -> None:
    config = controls(entry("START", START), entry(None, READY))
    assert found_at(lint_config(tmp_path, config), "TC601") == [
        ("5:3", "sequence batching control tensor must have a name for m")
    ]


def test_duplicate_control_tensor(tmp_path: Path) -> None:
    config = controls(entry("START", START), entry("START", READY), entry("START", END))
    message = (
        "sequence batching control tensor 'START' is specified for multiple control kinds for m"
    )
    assert found_at(lint_config(tmp_path, config), "TC602") == [
        ("5:11", message),
        ("6:11", message),
    ]


def test_duplicate_control_kind(tmp_path: Path) -> None:
    config = controls(entry("START", START), entry("READY", READY), entry("BEGIN", START, START))
    message = "sequence batching specifies multiple CONTROL_SEQUENCE_START tensors for m"
    diagnostics = lint_config(tmp_path, config)
    assert found_at(diagnostics, "TC603") == [("6:37", message), ("6:98", message)]
    first = next(d for d in diagnostics if d.code == "TC603")
    assert "already given by control tensor 'START'" in first.message


def test_control_without_false_true(tmp_path: Path) -> None:
    config = controls(entry("READY", "{ kind: CONTROL_SEQUENCE_READY }"))
    assert found_at(lint_config(tmp_path, config), "TC604") == [
        (
            "4:37",
            "sequence batching must specify either 'int32_false_true', 'fp32_false_true' or "
            "'bool_false_true' for CONTROL_SEQUENCE_READY for m",
        )
    ]


def test_control_with_several_false_true(tmp_path: Path) -> None:
    control = "{ kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] bool_false_true: [ 0, 1 ] }"
    diagnostics = lint_config(tmp_path, controls(entry("END", control)))
    assert found_at(diagnostics, "TC605") == [
        (
            "4:100",
            "sequence batching specifies more than one from 'int32_false_true', "
            "'fp32_false_true' and 'bool_false_true' for CONTROL_SEQUENCE_END for m",
        )
    ]
    assert not found_at(diagnostics, "TC606")  # which array stays is the user's choice


@pytest.mark.parametrize(
    ("array", "values"),
    [("int32_false_true", "0, 1, 2"), ("fp32_false_true", "1"), ("bool_false_true", "0, 1, 1")],
)
def test_false_true_length(tmp_path: Path, array: str, values: str) -> None:
    control = f"{{ kind: CONTROL_SEQUENCE_START {array}: [ {values} ] }}"
    column = 1 + len('  { name: "S" control [ { kind: CONTROL_SEQUENCE_START ') + len(array) + 2
    assert found_at(lint_config(tmp_path, controls(entry("S", control))), "TC606") == [
        (
            f"4:{column}",
            f"sequence batching control '{array}' must have exactly 2 entries for "
            "CONTROL_SEQUENCE_START for m",
        )
    ]


def test_corrid_with_false_true(tmp_path: Path) -> None:
    control = "{ kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 fp32_false_true: [ 0, 1 ] }"
    diagnostics = lint_config(tmp_path, controls(entry("C", control)))
    assert found_at(diagnostics, "TC607") == [
        (
            "4:97",
            "sequence batching must not specify either 'int32_false_true', 'fp32_false_true' or "
            "'bool_false_true' for CONTROL_SEQUENCE_CORRID for m",
        )
    ]
    assert not found_at(diagnostics, "TC604")  # the boolean passes ignore CORRID controls


CORRID_TYPE = (
    "unexpected data type for control CONTROL_SEQUENCE_CORRID for m. Allowed data types are "
    "TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and TYPE_STRING"
)


def test_corrid_without_data_type(tmp_path: Path) -> None:
    config = controls(entry("C", "{ kind: CONTROL_SEQUENCE_CORRID }"))
    assert found_at(lint_config(tmp_path, config), "TC608") == [("4:25", CORRID_TYPE)]


def test_corrid_with_float_data_type(tmp_path: Path) -> None:
    config = controls(entry("C", "{ kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_FP32 }"))
    diagnostics = [d for d in lint_config(tmp_path, config) if d.code == "TC608"]
    assert [(str(d.span), d.triton.message if d.triton else None) for d in diagnostics] == [
        ("4:68", CORRID_TYPE)
    ]
    assert "is TYPE_FP32" in diagnostics[0].message


@pytest.mark.parametrize("data_type", ["TYPE_INT64", "TYPE_UINT32", "TYPE_INT32", "TYPE_STRING"])
def test_corrid_data_types_pass(tmp_path: Path, data_type: str) -> None:
    config = controls(entry("C", f"{{ kind: CONTROL_SEQUENCE_CORRID data_type: {data_type} }}"))
    assert not found_at(lint_config(tmp_path, config), "TC608")


def test_boolean_control_data_type_is_ignored(tmp_path: Path) -> None:
    control = "{ kind: CONTROL_SEQUENCE_START data_type: TYPE_FP64 int32_false_true: [ 0, 1 ] }"
    assert not [
        d for d in lint_config(tmp_path, controls(entry("S", control))) if d.code.startswith("TC6")
    ]


# -- strategies ---------------------------------------------------------------------------------
def test_oldest_preferred_batch_size_not_positive(tmp_path: Path) -> None:
    config = (
        PY + "max_batch_size: 8\nsequence_batching { oldest { preferred_batch_size: [ 0, 4 ] } }\n"
    )
    assert found_at(lint_config(tmp_path, config), "TC609") == [
        ("3:54", "sequence batching preferred batch size must be positive for m")
    ]


def test_oldest_preferred_batch_size_exceeds_max(tmp_path: Path) -> None:
    config = (
        PY + "max_batch_size: 2\nsequence_batching { oldest { preferred_batch_size: [ 2, 4 ] } }\n"
    )
    assert found_at(lint_config(tmp_path, config), "TC610") == [
        ("3:57", "sequence batching preferred batch size must be <= max batch size for m")
    ]


def test_oldest_preferred_batch_size_without_batching(tmp_path: Path) -> None:
    config = PY + "sequence_batching { oldest { preferred_batch_size: [ 1 ] } }\n"
    diagnostics = [d for d in lint_config(tmp_path, config) if d.code == "TC610"]
    assert [str(d.span) for d in diagnostics] == ["2:54"]
    assert "max_batch_size 0 (the model does not batch)" in diagnostics[0].message


def test_oldest_preferred_batch_size_filled_from_max_batch_size_passes(tmp_path: Path) -> None:
    config = PY + "max_batch_size: 8\nsequence_batching { oldest { } }\n"
    assert not [d for d in lint_config(tmp_path, config) if d.code in ("TC609", "TC610")]


@pytest.mark.parametrize("value", ["1.5", "-0.1", "1.0000001"])
def test_minimum_slot_utilization_out_of_range(tmp_path: Path, value: str) -> None:
    config = PY + f"sequence_batching {{ direct {{ minimum_slot_utilization: {value} }} }}\n"
    assert found_at(lint_config(tmp_path, config), "TC611") == [
        ("2:56", "sequence batching minimum slot utilization must be in range (0.0, 1.0] for m")
    ]


@pytest.mark.parametrize("value", ["0.0", "1.0", "nan", "0.5", "1.00000001"])
def test_minimum_slot_utilization_passes(tmp_path: Path, value: str) -> None:
    # 0.0 and nan pass Triton's `< 0 || > 1` check; 1.00000001 is 1.0 as a float32
    config = PY + f"sequence_batching {{ direct {{ minimum_slot_utilization: {value} }} }}\n"
    assert not found_at(lint_config(tmp_path, config), "TC611")


# -- Triton's own QA cases (strict mode, the platform line injected as its test does) ----------
QA_CASES = {
    "control_kind_end_multiple",
    "control_kind_ready_multiple",
    "control_kind_start_multiple",
    "control_tensor_multiple",
    "control_tensor_no_value",
}
VARIANTS = (
    [r for r in read_tsv(TRITON_QA / "VARIANTS.tsv") if Path(r["path"]).name in QA_CASES]
    if (TRITON_QA / "VARIANTS.tsv").is_file()
    else []
)


@parametrize_corpus(TRITON_QA, "row", VARIANTS, ids=lambda r: r["variant_id"])
def test_triton_qa_case(tmp_path: Path, row: dict[str, str]) -> None:
    source = require_corpus(TRITON_QA) / row["path"]
    model = tmp_path / "repo" / source.name
    (model / "1").mkdir(parents=True)
    shutil.copyfile(source / "config.pbtxt", model / "config.pbtxt")
    diagnostics = lint_repo(tmp_path / "repo", triton_mode="strict")
    messages = [
        d.triton.message or "" for d in diagnostics if d.code.startswith("TC6") and d.triton
    ]
    assert any(row["expected_message"] in m for m in messages), (row["expected_message"], messages)


def test_qa_variants_found() -> None:
    if VARIANTS:
        assert len(VARIANTS) == 3 * len(QA_CASES)


# -- implicit state -----------------------------------------------------------------------------
def states(*entries: str) -> str:
    """A config whose sequence_batching has these state entries, one per line (line 4+)."""
    return PY + "sequence_batching {\n state [\n" + ",\n".join(entries) + "\n ]\n}\n"


def state(
    initial: str | None = "zero_data: true",
    *,
    name: str = "S",
    output: str = "S_OUT",
    dims: str = "2, 3",
    initial_dims: str | None = None,
    data_type: str = "TYPE_INT32",
    extra: str = "",
) -> str:
    init = (
        ""
        if initial is None
        else f' initial_state [ {{ name: "i" data_type: TYPE_INT32 '
        f"dims: [ {initial_dims or dims} ] {initial} }} ]"
    )
    return (
        f'  {{ input_name: "{name}" output_name: "{output}" data_type: {data_type} '
        f"dims: [ {dims} ]{extra}{init} }}"
    )


@pytest.mark.parametrize(
    "config",
    [
        states(state()),
        states(state(None), state(None, name="T", output="T_OUT")),
        states(state(dims="-1, 3", initial_dims="5, 3")),  # a variable state dim takes any size
        states(state('data_file: "init.bin"')),
        states(state(extra=" use_same_buffer_for_input_output: true use_growable_memory: true")),
    ],
)
def test_valid_states_pass(tmp_path: Path, config: str) -> None:
    files = {"1/model.py": "", "initial_state/init.bin": "x" * 24}
    config = config.replace(
        "sequence_batching {", "instance_group [ { kind: KIND_GPU } ]\nsequence_batching {"
    )
    assert not [
        d for d in lint_config(tmp_path, config, files=files, gpus=(0,)) if d.code.startswith("TC6")
    ]


def test_multiple_initial_state(tmp_path: Path) -> None:
    two = 'zero_data: true }, { name: "j" data_type: TYPE_INT32 dims: [ 2, 3 ] zero_data: true'
    diagnostics = lint_config(tmp_path, states(state(two)))
    assert found_at(diagnostics, "TC620") == [
        (
            "4:163",
            "initial_state field for state input 'S' must contain exactly one or zero element. "
            "Found '2' elements.",
        )
    ]
    assert not found_at(diagnostics, "TC623")


def test_initial_state_data_type_mismatch(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(data_type="TYPE_FP32")))
    assert found_at(diagnostics, "TC621") == [
        (
            "4:117",
            "The data type used for 'initial_state' field of state 'S' does not match the state "
            "data type.",
        )
    ]


def test_initial_state_without_name(tmp_path: Path) -> None:
    config = states(state()).replace('name: "i" ', "")
    assert found_at(lint_config(tmp_path, config), "TC622") == [
        ("4:95", "Field 'name' must be set when using initial_state for state input 'S'.")
    ]


def test_duplicate_initial_state_input(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(), state(output="S_OUT2")))
    assert found_at(diagnostics, "TC623") == [
        ("5:17", "State input name 'S' specified more than once.")
    ]
    assert not found_at(diagnostics, "TC632")  # the load fails first


def test_initial_state_dims_count_mismatch(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(initial_dims="6")))
    assert found_at(diagnostics, "TC624") == [
        (
            "4:135",
            "Number of dimensions in 'initial_state' doesn't match the size of 'state' dimensions "
            "for state input 'S'. 1 != 2",
        )
    ]
    assert not found_at(diagnostics, "TC626")


def test_initial_state_variable_dims(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(dims="-1, 3", initial_dims="2, -1")))
    assert found_at(diagnostics, "TC625") == [
        ("4:141", "'initial_state' field for state input name 'S' contains variable dimensions.")
    ]


def test_initial_state_dim_mismatch(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(initial_dims="4, 5")))
    assert found_at(diagnostics, "TC626") == [
        (
            "4:137",
            "'initial_state' dim for input name 'S' doesn't match 'state' dim description. 4 != 2",
        ),
        (
            "4:140",
            "'initial_state' dim for input name 'S' doesn't match 'state' dim description. 5 != 3",
        ),
    ]


def test_initial_state_without_data(tmp_path: Path) -> None:
    assert found_at(lint_config(tmp_path, states(state(""))), "TC627") == [
        ("4:95", "initial_state setting expects state'S' to have state_data set")
    ]


@pytest.mark.parametrize("data_file", ["init.bin", "/init.bin"])
def test_initial_state_data_file_missing(tmp_path: Path, data_file: str) -> None:
    diagnostics = lint_config(tmp_path, states(state(f'data_file: "{data_file}"')))
    model = tmp_path / "repo" / "m"
    assert found_at(diagnostics, "TC628") == [
        (
            "4:155",
            f"failed to open text file for read {model}/initial_state/init.bin: "
            "No such file or directory",
        )
    ]


@pytest.mark.parametrize(("size", "expected"), [(20, True), (24, False), (30, False)])
def test_initial_state_data_file_too_small(tmp_path: Path, size: int, expected: bool) -> None:
    config = states(state('data_file: "init.bin"'))  # INT32 [2, 3]: 24 bytes
    files = {"1/model.py": "", "initial_state/init.bin": "\0" * size}
    diagnostics = lint_config(tmp_path, config, files=files)
    assert not found_at(diagnostics, "TC628")
    message = (
        f"initial_state setting expects 24 bytes, but the data provided from init.binonly has "
        f"{size} bytes."
    )
    assert found_at(diagnostics, "TC633") == ([("4:155", message)] if expected else [])


def test_initial_state_string_data_file_takes_the_whole_file(tmp_path: Path) -> None:
    string_state = state('data_file: "init.bin"', data_type="TYPE_STRING")
    config = states(string_state.replace("TYPE_INT32", "TYPE_STRING"))
    files = {"1/model.py": "", "initial_state/init.bin": "x"}
    assert not found_at(lint_config(tmp_path, config, files=files), "TC633")


def test_initial_state_data_file_not_checked_in_a_subfolder(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state('data_file: "sub/init.bin"')))
    assert not found_at(diagnostics, "TC628")


@pytest.mark.parametrize(
    ("data_type", "dims", "message"),
    [
        ("TYPE_INT32", "-2, 3", "tensor 'S' contains an invalid dimension [-2,3]"),
        ("TYPE_STRING", "-2, 3", "tensor 'S' contains an invalid dimension in shape [-2,3]"),
        (
            "TYPE_INT32",
            "4294967296, 4294967296",
            "byte size for tensor 'S' exceeds maximum size of 9223372036854775807",
        ),
        (
            "TYPE_INT8",
            "4294967296, 4294967296",
            "byte size for tensor 'S' exceeds maximum size of 9223372036854775807",
        ),
        (
            "TYPE_STRING",
            "4294967296, 4294967296",
            "element count for tensor 'S' exceeds maximum size of 9223372036854775807",
        ),
        (
            "TYPE_STRING",
            "4294967296, 1073741824",
            "byte size for tensor 'S' exceeds maximum size of 9223372036854775807",
        ),
    ],
)
def test_initial_state_size_invalid(
    tmp_path: Path, data_type: str, dims: str, message: str
) -> None:
    config = states(state(dims="-1, -1", initial_dims=dims)).replace("TYPE_INT32", data_type)
    assert [m for _, m in found_at(lint_config(tmp_path, config), "TC629")] == [message]


def test_initial_state_size_unknown_type_passes(tmp_path: Path) -> None:
    config = states(state(dims="-1", initial_dims="-2")).replace("TYPE_INT32", "TYPE_INVALID")
    assert not found_at(lint_config(tmp_path, config), "TC629")


GROWABLE = " use_growable_memory: true"


def test_growable_memory_without_single_buffer(tmp_path: Path) -> None:
    diagnostics = [
        d for d in lint_config(tmp_path, states(state(None, extra=GROWABLE))) if d.code == "TC630"
    ]
    assert [
        (str(d.span), d.severity, d.triton.message if d.triton else None) for d in diagnostics
    ] == [
        (
            "4:100",
            Severity.WARNING,
            "In order to 'use_growable_memory', you must also enable 'use_single_buffer' for "
            "state input name 'S'.",
        )
    ]
    assert diagnostics[0].triton and diagnostics[0].triton.phase == "RUNTIME"


GPU_ONLY = (
    "'use_growable_memory' can only work with KIND_GPU model instances right now. Please either "
    "change the instance type to KIND_GPU or set 'use_growable_memory' to false for state input 'S'."
)
SINGLE = " use_same_buffer_for_input_output: true" + GROWABLE


@pytest.mark.parametrize(
    ("groups", "gpus", "severity"),
    [
        ("instance_group [ { kind: KIND_CPU } ]\n", None, Severity.WARNING),
        ("instance_group [ { kind: KIND_GPU }, { kind: KIND_MODEL } ]\n", (0,), Severity.WARNING),
        ("", (), Severity.WARNING),  # the default KIND_AUTO group on a host without GPUs
        ("", None, Severity.INFO),  # unknown host
    ],
)
def test_growable_memory_needs_gpu_instances(
    tmp_path: Path, groups: str, gpus: tuple[int, ...] | None, severity: Severity
) -> None:
    config = groups + states(state(None, extra=SINGLE))
    diagnostics = [d for d in lint_config(tmp_path, config, gpus=gpus) if d.code == "TC631"]
    assert [(d.severity, d.triton.message if d.triton else None) for d in diagnostics] == [
        (severity, GPU_ONLY)
    ]


@pytest.mark.parametrize(
    ("groups", "gpus"),
    [
        ("instance_group [ { kind: KIND_GPU } ]\n", None),
        ("", (0,)),
        ("instance_group [ { kind: KIND_GPU }, { kind: KIND_CPU passive: true } ]\n", None),
    ],
)
def test_growable_memory_on_gpu_passes(
    tmp_path: Path, groups: str, gpus: tuple[int, ...] | None
) -> None:
    config = groups + states(state(None, extra=SINGLE))
    assert not found_at(lint_config(tmp_path, config, gpus=gpus), "TC631")


def test_duplicate_state_input_name(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(None), state(output="S_OUT2")))
    assert found_at(diagnostics, "TC632") == [
        (
            "5:17",
            "Detected duplicate 'input_name' in the state configuration: 'S.' This state "
            "configuration will be ignored.",
        )
    ]


def test_duplicate_state_output_name(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, states(state(None), state(None, name="T")))
    assert found_at(diagnostics, "TC632") == [("5:34", None)]
