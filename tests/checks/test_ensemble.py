"""TC501-TC537: ensembles. VALIDATE on the ensemble's own config (`ValidateEnsembleSchedulingConfig`), DEPS and
XMODEL against its step models (`ensemble_utils.cc:ValidateEnsembleConfig`), on real repositories: an ensemble
plus python-backend step models under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import (
    TRITON_QA,
    materialize_qa_case,
    parametrize_corpus,
    qa_case_dir,
    qa_index,
    qa_setup,
    require_corpus,
)
from lintkit import found, lint_config, lint_repo, make_model

from tritoncfg.diagnostics import Diagnostic


def step_config(
    *,
    mbs: int = 4,
    inputs: str = 'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    outputs: str = 'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    extra: str = "",
) -> str:
    return f'backend: "python"\nmax_batch_size: {mbs}\n{inputs}\n{outputs}\n{extra}'


def add_step(
    root: Path,
    name: str,
    config: str | None = None,
    *,
    versions: tuple[str, ...] = ("1",),
    mbs: int = 4,
    inputs: str = 'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    outputs: str = 'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    extra: str = "",
) -> None:
    """A python-backend step model `name` (`<v>/model.py` per version) with the given config, or
    one built from the keyword arguments (FP32 [16] IN -> OUT, max_batch_size 4)."""
    text = (
        step_config(mbs=mbs, inputs=inputs, outputs=outputs, extra=extra)
        if config is None
        else config
    )
    files = {f"{v}/model.py": "# never executed\n" for v in versions}
    make_model(root, name, text, files=files, versions=versions)


def ensemble(steps: str, *, mbs: int = 4, io: str | None = None, extra: str = "") -> str:
    """An ensemble config: by default input RAW and output RESULT, FP32 [16]."""
    io = io or (
        'input [ { name: "RAW" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
        'output [ { name: "RESULT" data_type: TYPE_FP32 dims: [ 16 ] } ]'
    )
    return (
        f'platform: "ensemble"\nmax_batch_size: {mbs}\n{io}\n'
        f"ensemble_scheduling {{\n  step [\n{steps}\n  ]\n}}\n{extra}"
    )


def step(model: str, inputs: dict[str, str], outputs: dict[str, str], version: int = -1) -> str:
    maps = "".join(f' input_map {{ key: "{k}" value: "{v}" }}' for k, v in inputs.items())
    maps += "".join(f' output_map {{ key: "{k}" value: "{v}" }}' for k, v in outputs.items())
    return f'    {{ model_name: "{model}" model_version: {version}{maps} }}'


ONE_STEP = step("a", {"IN": "RAW"}, {"OUT": "RESULT"})


def lint_ensemble(
    root: Path, config: str, name: str = "pipeline", **options: object
) -> list[Diagnostic]:
    make_model(root, name, config)
    return lint_repo(root, **options)


def codes_of(diagnostics: list[Diagnostic], prefix: str = "TC5") -> set[str]:
    return {d.code for d in diagnostics if d.code.startswith(prefix)}


def test_valid_ensemble_of_python_steps_has_no_ensemble_findings(tmp_path: Path) -> None:
    add_step(tmp_path, "a")
    add_step(
        tmp_path,
        "b",
        mbs=0,
        inputs='input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]',
    )
    steps = ",\n".join(
        [step("a", {"IN": "RAW"}, {"OUT": "MID"}), step("b", {"IN": "MID"}, {"OUT": "RESULT"})]
    )
    assert not codes_of(lint_ensemble(tmp_path, ensemble(steps)))


# --- VALIDATE: the ensemble's own config ---------------------------------------------------


def test_ensemble_scheduling_on_non_ensemble(tmp_path: Path) -> None:
    config = 'backend: "python"\nensemble_scheduling { step [ { model_name: "a" } ] }\n'
    assert found(lint_config(tmp_path, config), "TC501") == [
        (
            "2:1",
            "error",
            "ensemble scheduling cannot be set for model 'm' whose platform is not ensemble",
        )
    ]


def test_ensemble_without_scheduling(tmp_path: Path) -> None:
    assert found(lint_config(tmp_path, 'platform: "ensemble"\n'), "TC502") == [
        (
            "1:11",
            "error",
            "ensemble scheduling must be set for ensemble m whose platform is ensemble",
        )
    ]
    assert not found(lint_config(tmp_path / "x", 'backend: "python"\n'), "TC502")


@pytest.mark.parametrize(
    ("code", "extra", "where", "triton"),
    [
        (
            "TC503",
            "instance_group [ { kind: KIND_CPU } ]",
            "10:1",
            "instance group should not be specified for ensemble 'm'",
        ),
        (
            "TC504",
            "optimization { }",
            "10:1",
            "optimization should not be specified for ensemble 'm'",
        ),
        (
            "TC505",
            'model_warmup [ { name: "w" } ]',
            "10:1",
            "model_warmup can not be specified for ensemble 'm'",
        ),
    ],
)
def test_model_only_settings_on_an_ensemble(
    tmp_path: Path, code: str, extra: str, where: str, triton: str
) -> None:
    assert found(lint_config(tmp_path, ensemble(ONE_STEP, extra=extra)), code) == [
        (where, "error", triton)
    ]
    assert not found(lint_config(tmp_path / "pass", ensemble(ONE_STEP)), code)


def test_model_only_settings_are_fine_on_a_model(tmp_path: Path) -> None:
    config = 'backend: "python"\ninstance_group [ { kind: KIND_CPU } ]\noptimization { }\n'
    assert not codes_of(lint_config(tmp_path, config)) & {"TC503", "TC504", "TC505"}


@pytest.mark.parametrize(
    "scheduling", ["ensemble_scheduling { }", "ensemble_scheduling { step [ ] }"]
)
def test_ensemble_without_steps(tmp_path: Path, scheduling: str) -> None:
    config = f'platform: "ensemble"\n{scheduling}\n'
    assert [(s, t) for _, s, t in found(lint_config(tmp_path, config), "TC506")] == [
        ("error", "must specify 'step' for ensemble 'm'")
    ]


def test_incomplete_steps_each_missing_field(tmp_path: Path) -> None:
    steps = ",\n".join(
        [
            ONE_STEP,
            '    { input_map { key: "IN" value: "RAW" } output_map { key: "OUT" value: "X" } }',
            '    { model_name: "a" output_map { key: "OUT" value: "Y" } }',
            '    { model_name: "a" input_map { key: "IN" value: "RAW" } }',
        ]
    )
    assert found(lint_config(tmp_path, ensemble(steps)), "TC507") == [
        ("8:5", "error", "must specify 'model_name' in step 1 of ensemble 'm'"),
        ("9:5", "error", "must specify 'input_map' in step 2 of ensemble 'm'"),
        ("10:5", "error", "must specify 'output_map' in step 3 of ensemble 'm'"),
    ]


def test_tensor_written_twice_across_and_within_steps(tmp_path: Path) -> None:
    steps = ",\n".join(
        [
            step("a", {"IN": "RAW"}, {"OUT": "RESULT"}),
            step("b", {"IN": "RAW"}, {"O1": "RESULT", "O2": "X", "O3": "X"}),
        ]
    )
    diagnostics = lint_config(tmp_path, ensemble(steps))
    assert [(t) for _, _, t in found(diagnostics, "TC508")] == [
        "ensemble tensor 'RESULT' can appear in an output map only once for ensemble 'm' step 1",
        "ensemble tensor 'X' can appear in an output map only once for ensemble 'm' step 1",
    ]
    assert found(diagnostics, "TC508")[0][0] == "8:108"


def test_unused_input_and_unmapped_output(tmp_path: Path) -> None:
    io = (
        'input [ { name: "RAW" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "EXTRA" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "RESULT" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "MASK" data_type: TYPE_FP32 dims: [ 1 ] } ]'
    )
    diagnostics = lint_config(tmp_path, ensemble(ONE_STEP, io=io))
    assert found(diagnostics, "TC509") == [
        ("3:68", "error", "ensemble input 'EXTRA' for ensemble m' is not used")
    ]
    assert found(diagnostics, "TC510") == [
        ("4:72", "error", "ensemble output 'MASK' for ensemble m' is not used")
    ]


def test_unwritten_output_with_and_without_the_depending_tensor(tmp_path: Path) -> None:
    io = (
        'input [ { name: "RAW" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
        'output [ { name: "RESULT" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "A" data_type: TYPE_FP32 dims: [ 16 ] },'
        ' { name: "B" data_type: TYPE_FP32 dims: [ 16 ] } ]'
    )
    steps = ",\n".join(
        [ONE_STEP, step("a", {"IN": "A"}, {"OUT": "A"}), step("a", {"IN": "NOWHERE"}, {"OUT": "B"})]
    )
    diagnostics = lint_config(tmp_path, ensemble(steps, io=io))
    assert found(diagnostics, "TC511") == [
        ("4:72", "error", "output 'A' for ensemble 'm' is not written"),
        (
            "4:121",
            "error",
            "output 'B' for ensemble 'm' is not written: at least one of its depending tensors, "
            "'NOWHERE', is not connected",
        ),
    ]
    # the tensor that breaks the chain is itself unused
    assert [t for _, _, t in found(diagnostics, "TC512")] == [
        "ensemble tensor 'NOWHERE' is unused in ensemble 'm'"
    ]


def test_every_unused_tensor_is_reported(tmp_path: Path) -> None:
    # QA redundant_tensor_as_input: Triton names X or Y (hash order); both are findings
    steps = ",\n".join(
        [
            ONE_STEP,
            step("a", {"IN": "X"}, {"OUT": "Y"}),
            step("b", {"IN": "RAW"}, {"OUT": "Z", "SCALE": "UNREAD"}),
            step("c", {"IN": "Z"}, {"OUT": "W"}),
        ]
    )
    diagnostics = lint_config(tmp_path, ensemble(steps))
    assert [t for _, _, t in found(diagnostics, "TC512")] == [
        "ensemble tensor 'X' is unused in ensemble 'm'",
        "ensemble tensor 'Y' is unused in ensemble 'm'",
        "ensemble tensor 'UNREAD' is unused in ensemble 'm'",
        "ensemble tensor 'W' is unused in ensemble 'm'",
    ]
    assert found(diagnostics, "TC512")[0][0] == "8:70"


def test_data_flow_is_not_checked_when_a_step_lacks_a_map(tmp_path: Path) -> None:
    steps = ",\n".join(
        [
            step("a", {"IN": "RAW"}, {"OUT": "X"}),
            '    { model_name: "b" input_map { key: "IN" value: "X" } }',
        ]
    )
    assert (
        codes_of(lint_config(tmp_path, ensemble(steps))) & {"TC509", "TC510", "TC511", "TC512"}
        == set()
    )


def test_duplicated_input_map_key_keeps_the_last(tmp_path: Path) -> None:
    # QA tensor_to_input_overmapped: the second `key: "IN"` wins, so X is unused
    steps = ",\n".join(
        [
            step("a", {"IN": "RAW"}, {"OUT": "X"}),
            '    { model_name: "a" input_map { key: "IN" value: "X" } input_map { key: "IN" value: "RAW" }'
            ' output_map { key: "OUT" value: "RESULT" } }',
        ]
    )
    assert [t for _, _, t in found(lint_config(tmp_path, ensemble(steps)), "TC512")] == [
        "ensemble tensor 'X' is unused in ensemble 'm'"
    ]


# --- DEPS: the step models -----------------------------------------------------------------


def test_step_model_not_found(tmp_path: Path) -> None:
    add_step(tmp_path, "a")
    steps = ",\n".join([ONE_STEP, step("missing", {"IN": "RAW"}, {"OUT": "X"})])
    diagnostics = lint_ensemble(tmp_path, ensemble(steps))
    assert found(diagnostics, "TC520") == [
        (
            "8:19",
            "error",
            "ensemble pipeline contains models that are not available or ambiguous: missing",
        )
    ]


def test_step_model_found_when_only_the_ensemble_is_linted(tmp_path: Path) -> None:
    add_step(tmp_path, "a")
    make_model(tmp_path, "pipeline", ensemble(ONE_STEP))
    assert not codes_of(lint_repo(tmp_path / "pipeline"))


def test_self_dependency(tmp_path: Path) -> None:
    steps = step("pipeline", {"RAW": "RAW"}, {"RESULT": "RESULT"})
    assert found(lint_ensemble(tmp_path, ensemble(steps)), "TC521") == [
        (
            "7:19",
            "error",
            "circular dependency between ensembles: pipeline -> ... -> pipeline -> pipeline",
        )
    ]


def test_cycle_between_ensembles_is_reported_on_each(tmp_path: Path) -> None:
    make_model(tmp_path, "first", ensemble(step("second", {"RAW": "RAW"}, {"RESULT": "RESULT"})))
    make_model(tmp_path, "second", ensemble(step("first", {"RAW": "RAW"}, {"RESULT": "RESULT"})))
    diagnostics = lint_repo(tmp_path)
    assert sorted(t or "" for _, _, t in found(diagnostics, "TC521")) == [
        "circular dependency between ensembles: first -> ... -> second -> first",
        "circular dependency between ensembles: second -> ... -> first -> second",
    ]
    assert not found(diagnostics, "TC522")  # the cycle is the reason, said once


def test_nested_ensemble_is_fine(tmp_path: Path) -> None:
    add_step(tmp_path, "a")
    make_model(tmp_path, "inner", ensemble(ONE_STEP))
    outer = ensemble(step("inner", {"RAW": "RAW"}, {"RESULT": "RESULT"}))
    assert not codes_of(lint_ensemble(tmp_path, outer))


def test_step_model_that_does_not_parse_is_never_available(tmp_path: Path) -> None:
    add_step(tmp_path, "a", "max_batch_size 4\n")
    (finding,) = found(lint_ensemble(tmp_path, ensemble(ONE_STEP)), "TC522")
    assert finding == (
        "7:19",
        "error",
        "ensemble pipeline contains models that are not available or ambiguous: a",
    )


def test_step_model_that_fails_to_load(tmp_path: Path) -> None:
    add_step(tmp_path, "a", versions=())
    (finding,) = found(lint_ensemble(tmp_path, ensemble(ONE_STEP)), "TC522")
    assert finding == (
        "7:19",
        "error",
        "ensemble 'pipeline' depends on 'a' which has no loaded version. Model 'a' loading failed "
        "with error: at least one version must be available under the version policy of model 'a'",
    )


def test_step_error_that_triton_meets_first_within_a_phase(tmp_path: Path) -> None:
    """Triton makes an instance's warmup data before it registers the instance with the rate
    limiter (both INSTANCE): the warmup error is the one the ensemble reports."""
    extra = (
        'instance_group [ { kind: KIND_CPU rate_limiter { resources [ { name: "R" count: 4 } ] } } ]\n'
        'model_warmup [ { name: "w" batch_size: 1 inputs { key: "IN" value {\n'
        '  data_type: TYPE_FP32 dims: [ 16 ] input_data_file: "in.bin" } } } ]\n'
    )
    add_step(tmp_path, "a", extra=extra)
    (tmp_path / "a" / "warmup").mkdir()
    (tmp_path / "a" / "warmup" / "in.bin").write_bytes(bytes(8))
    options = {"rate_limit": True, "rate_limit_resources": (("R", 2, None),)}
    diagnostics = lint_ensemble(tmp_path, ensemble(ONE_STEP), **options)
    assert {d.code for d in diagnostics if d.model == "a" and d.severity.value == "error"} == {
        "TC709",
        "TC732",
    }
    (finding,) = found(diagnostics, "TC522")
    assert finding[2] == (
        "ensemble 'pipeline' depends on 'a' which has no loaded version. Model 'a' loading failed "
        "with error: [request id: <id_unknown>] warmup setting expects 64 bytes, but the data "
        "provided from in.binonly has 8 bytes"
    )


def test_step_ensemble_that_fails_its_own_dependencies(tmp_path: Path) -> None:
    make_model(tmp_path, "inner", ensemble(step("gone", {"IN": "RAW"}, {"OUT": "RESULT"})))
    outer = ensemble(step("inner", {"RAW": "RAW"}, {"RESULT": "RESULT"}))
    diagnostics = lint_ensemble(tmp_path, outer)
    assert found([d for d in diagnostics if d.model == "pipeline"], "TC522") == [
        (
            "7:19",
            "error",
            "ensemble 'pipeline' depends on 'inner' which is not valid. Model 'inner' failed with "
            "error: ensemble inner contains models that are not available or ambiguous: gone",
        )
    ]


def test_required_version_not_loaded(tmp_path: Path) -> None:
    add_step(tmp_path, "a", versions=("1", "2"))  # latest { num_versions: 1 } loads only 2
    config = ensemble(step("a", {"IN": "RAW"}, {"OUT": "RESULT"}, version=1))
    assert found(lint_ensemble(tmp_path, config), "TC523") == [
        (
            "7:38",
            "error",
            "ensemble 'pipeline' depends on 'a' whose required version 1 is not loaded.",
        )
    ]


def test_required_version_loaded_by_the_policy(tmp_path: Path) -> None:
    add_step(tmp_path, "a", versions=("1", "2"), extra="version_policy { all { } }")
    config = ensemble(step("a", {"IN": "RAW"}, {"OUT": "RESULT"}, version=1))
    assert not found(lint_ensemble(tmp_path, config), "TC523")


# --- XMODEL: the ensemble against its steps' completed configs -----------------------------


def test_step_batch_size_too_small(tmp_path: Path) -> None:
    add_step(tmp_path, "a", mbs=2)
    assert found(lint_ensemble(tmp_path, ensemble(ONE_STEP, mbs=8)), "TC530") == [
        (
            "7:19",
            "error",
            "ensemble pipeline allows maximum batch size 8, but it contains model a which only "
            "allows maximum batch size to be 2",
        )
    ]


def test_non_batching_step_in_a_batching_ensemble(tmp_path: Path) -> None:
    add_step(
        tmp_path,
        "a",
        mbs=0,
        inputs='input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]',
        outputs='output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]',
    )
    assert not codes_of(lint_ensemble(tmp_path, ensemble(ONE_STEP, mbs=8)))


def test_map_keys_that_the_step_model_lacks(tmp_path: Path) -> None:
    add_step(tmp_path, "a")
    config = ensemble(step("a", {"IN": "RAW", "NOPE": "RAW"}, {"OUT": "RESULT", "GONE": "X"}))
    diagnostics = lint_ensemble(tmp_path, config)
    assert found(diagnostics, "TC531") == [
        (
            "7:95",
            "error",
            "in ensemble pipeline, ensemble tensor RAW is mapping to non-existing input NOPE in model a",
        )
    ]
    assert found(diagnostics, "TC532") == [
        (
            "7:177",
            "error",
            "in ensemble pipeline, ensemble tensor X is mapped from non-existing output GONE in model a",
        )
    ]


def test_unmapped_required_input_and_optional_input(tmp_path: Path) -> None:
    inputs = (
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "SCALE" data_type: TYPE_FP32 dims: [ 1 ] },'
        ' { name: "HINT" data_type: TYPE_FP32 dims: [ 1 ] optional: true } ]'
    )
    add_step(tmp_path, "a", inputs=inputs)
    assert found(lint_ensemble(tmp_path, ensemble(ONE_STEP)), "TC533") == [
        (
            "7:41",
            "error",
            "in ensemble pipeline, input SCALE in model a is not mapped to any ensemble tensors",
        )
    ]


def test_data_type_mismatch_first_definition_wins(tmp_path: Path) -> None:
    add_step(tmp_path, "a", inputs='input [ { name: "IN" data_type: TYPE_INT32 dims: [ 16 ] } ]')
    assert found(lint_ensemble(tmp_path, ensemble(ONE_STEP)), "TC534") == [
        (
            "7:70",
            "error",
            "in ensemble pipeline, ensemble tensor RAW: inconsistent data type: TYPE_FP32 is "
            "inferred from model pipeline while TYPE_INT32 is inferred from model a",
        )
    ]


def test_shape_mismatch_uses_full_dims(tmp_path: Path) -> None:
    add_step(tmp_path, "a")
    add_step(
        tmp_path,
        "b",
        inputs='input [ { name: "IN" data_type: TYPE_FP32 dims: [ 16, 16, 16 ] } ]',
        outputs='output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]',
    )
    steps = ",\n".join(
        [step("a", {"IN": "RAW"}, {"OUT": "MID"}), step("b", {"IN": "MID"}, {"OUT": "RESULT"})]
    )
    assert found(lint_ensemble(tmp_path, ensemble(steps)), "TC535") == [
        (
            "8:70",
            "error",
            "in ensemble pipeline, ensemble tensor MID: inconsistent shape: [-1,16] is inferred "
            "from model a while [-1,16,16,16] is inferred from model b",
        )
    ]


def test_ensemble_io_reshape_is_what_steps_see(tmp_path: Path) -> None:
    add_step(tmp_path, "a", inputs='input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4, 4 ] } ]')
    io = (
        'input [ { name: "RAW" data_type: TYPE_FP32 dims: [ 16 ] reshape { shape: [ 4, 4 ] } } ]\n'
        'output [ { name: "RESULT" data_type: TYPE_FP32 dims: [ 16 ] } ]'
    )
    assert not found(lint_ensemble(tmp_path, ensemble(ONE_STEP, io=io)), "TC535")


def test_python_step_without_io_cannot_be_checked_in_default_mode(tmp_path: Path) -> None:
    add_step(tmp_path, "a", 'backend: "python"\nmax_batch_size: 4\n')
    diagnostics = lint_ensemble(tmp_path, ensemble(ONE_STEP))
    assert [(s, t) for _, s, t in found(diagnostics, "TC531") + found(diagnostics, "TC532")] == [
        ("info", None),
        ("info", None),
    ]
    assert not found(diagnostics, "TC533")
    strict = lint_repo(tmp_path, triton_mode="strict")
    assert [s for _, s, _ in found(strict, "TC531") + found(strict, "TC532")] == ["error", "error"]


def decoupled_repo(root: Path) -> None:
    add_step(root, "a")
    add_step(root, "gen", extra="model_transaction_policy { decoupled: true }")
    add_step(
        root,
        "join",
        inputs='input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "Y" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    )


def test_step_mixing_decoupled_branches(tmp_path: Path) -> None:
    decoupled_repo(tmp_path)
    steps = ",\n".join(
        [
            step("gen", {"IN": "RAW"}, {"OUT": "A"}),
            step("gen", {"IN": "RAW"}, {"OUT": "B"}),
            step("join", {"X": "A", "Y": "B"}, {"OUT": "MID"}),
            step("a", {"IN": "MID"}, {"OUT": "RESULT"}),
        ]
    )
    assert found(lint_ensemble(tmp_path, ensemble(steps)), "TC536") == [
        (
            "9:143",
            "error",
            "in ensemble pipeline, step of model 'join' receives inputs originated from different decoupled models",
        )
    ]


def test_mixed_decoupled_names_the_model_that_first_names_the_tensor(tmp_path: Path) -> None:
    # Triton names the tensor's first definer: here the ensemble output RESULT, so the ensemble
    decoupled_repo(tmp_path)
    steps = ",\n".join(
        [
            step("gen", {"IN": "RAW"}, {"OUT": "A"}),
            step("gen", {"IN": "RAW"}, {"OUT": "B"}),
            step("join", {"X": "A", "Y": "B"}, {"OUT": "RESULT"}),
        ]
    )
    assert [t for _, _, t in found(lint_ensemble(tmp_path, ensemble(steps)), "TC536")] == [
        "in ensemble pipeline, step of model 'pipeline' receives inputs originated from different decoupled models"
    ]


def test_ensemble_outputs_from_different_decoupled_steps(tmp_path: Path) -> None:
    # QA invalid_decoupled_branching_2: the model named is the ensemble itself
    decoupled_repo(tmp_path)
    io = (
        'input [ { name: "RAW" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
        'output [ { name: "A" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "B" data_type: TYPE_FP32 dims: [ 16 ] } ]'
    )
    steps = ",\n".join(
        [step("gen", {"IN": "RAW"}, {"OUT": "A"}), step("gen", {"IN": "RAW"}, {"OUT": "B"})]
    )
    assert found(lint_ensemble(tmp_path, ensemble(steps, io=io)), "TC536") == [
        (
            "4:1",
            "error",
            "in ensemble pipeline, step of model 'pipeline' receives inputs originated from different decoupled models",
        )
    ]


def test_one_decoupled_chain_is_fine(tmp_path: Path) -> None:
    decoupled_repo(tmp_path)
    steps = ",\n".join(
        [
            step("gen", {"IN": "RAW"}, {"OUT": "A"}),
            step("join", {"X": "A", "Y": "A"}, {"OUT": "RESULT"}),
        ]
    )
    assert not codes_of(lint_ensemble(tmp_path, ensemble(steps)))


def test_nested_ensemble_is_decoupled_when_a_step_is(tmp_path: Path) -> None:
    # `ValidateEnsembleConfig`: the inner ensemble's decoupled flag comes from its steps, not its config
    decoupled_repo(tmp_path)
    add_step(tmp_path, "plain")
    make_model(tmp_path, "inner", ensemble(step("gen", {"IN": "RAW"}, {"OUT": "RESULT"})))
    steps = ",\n".join(
        [
            step("inner", {"RAW": "RAW"}, {"RESULT": "A"}),
            step("plain", {"IN": "RAW"}, {"OUT": "B"}),
            step("join", {"X": "A", "Y": "B"}, {"OUT": "MID"}),
            step("a", {"IN": "MID"}, {"OUT": "RESULT"}),
        ]
    )
    assert [t for _, _, t in found(lint_ensemble(tmp_path, ensemble(steps)), "TC536")] == [
        "in ensemble pipeline, step of model 'join' receives inputs originated from different decoupled models"
    ]


def test_decoupled_policy_on_an_ensemble_is_overridden(tmp_path: Path) -> None:
    add_step(tmp_path, "a", extra="")
    config = ensemble(ONE_STEP, extra="model_transaction_policy { decoupled: true }")
    diagnostics = lint_ensemble(tmp_path, config, triton_mode="strict")
    assert found(diagnostics, "TC537") == [("10:39", "warning", None)]
    decoupled_repo(tmp_path / "other")
    other = ensemble(
        step("gen", {"IN": "RAW"}, {"OUT": "RESULT"}),
        extra="model_transaction_policy { decoupled: true }",
    )
    assert not found(lint_ensemble(tmp_path / "other", other, triton_mode="strict"), "TC537")


# --- Triton's own QA cases -----------------------------------------------------------------


def _qa_cases() -> list[dict[str, str]]:
    if not (TRITON_QA / "INDEX.tsv").is_file():
        return []
    return [
        r
        for r in qa_index()
        if "__ensemble__" in r["case_id"] or r["case_id"].endswith("_ensemble")
        if r["source_path_in_repo"].startswith("qa/L0_model_config/")
    ]


def _materialize(row: dict[str, str], tmp_path: Path) -> Path:
    """The case as its test.sh lays it out (tests/corpus.py)."""
    case_dir = qa_case_dir(row["case_id"])
    root = tmp_path / "models"
    target = root if row["layout"] == "repository" else root / case_dir.name
    materialize_qa_case(case_dir, target, qa_setup().get(row["case_id"], []))
    return root


QA_CASES = _qa_cases()


@parametrize_corpus(TRITON_QA, "row", QA_CASES, ids=lambda r: r["case_id"].split("__", 1)[1])
def test_triton_qa_ensemble_case(tmp_path: Path, row: dict[str, str]) -> None:
    require_corpus(TRITON_QA)
    args = row["server_args"]
    strict = "--disable-auto-complete-config" in args or "--strict-model-config=true" in args
    diagnostics = lint_repo(
        _materialize(row, tmp_path), triton_mode="strict" if strict else "default"
    )
    if row["kind"] == "invalid":
        literal = row["expected_message_literal"]
        messages = [d.triton.message for d in diagnostics if d.triton and d.triton.message]
        assert any(literal in m for m in messages), f"{literal!r} not in {messages}"
    else:
        errors = [
            d for d in diagnostics if d.code.startswith("TC5") and d.severity.value == "error"
        ]
        assert not errors, [d.message for d in errors]


def test_qa_ensemble_cases_found() -> None:
    require_corpus(TRITON_QA)
    assert len(QA_CASES) >= 35


def test_findings_do_not_depend_on_map_iteration_order(tmp_path: Path) -> None:
    # A protobuf map iterates in an order that changes from one process to the next (with
    # PYTHONHASHSEED here); the join step has two outputs, and which one TC536 points at once
    # depended on it. The first output_map entry as written is the one reported, in every process.
    decoupled_repo(tmp_path)
    add_step(
        tmp_path,
        "join",
        inputs='input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "Y" data_type: TYPE_FP32 dims: [ 16 ] } ]',
        outputs='output [ { name: "P" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "Q" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    )
    add_step(
        tmp_path,
        "merge",
        inputs='input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "Y" data_type: TYPE_FP32 dims: [ 16 ] } ]',
    )
    steps = ",\n".join(
        [
            step("gen", {"IN": "RAW"}, {"OUT": "A"}),
            step("gen", {"IN": "RAW"}, {"OUT": "B"}),
            step("join", {"X": "A", "Y": "B"}, {"Q": "Q1", "P": "P1"}),
            step("merge", {"X": "Q1", "Y": "P1"}, {"OUT": "RESULT"}),
        ]
    )
    make_model(tmp_path, "pipeline", ensemble(steps))
    reports = set()
    for seed in range(6):
        done = subprocess.run(
            [sys.executable, "-m", "tritoncfg", "lint", "--no-cache", "-f", "json", str(tmp_path)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            check=False,
        )
        assert done.returncode == 1, done.stderr
        reports.add(done.stdout)
    assert len(reports) == 1
    mixed = [d for d in json.loads(reports.pop())["diagnostics"] if d["code"] == "TC536"]
    config = (tmp_path / "pipeline" / "config.pbtxt").read_text(encoding="utf-8")
    line = config.splitlines()[mixed[0]["line"] - 1]
    assert len(mixed) == 1 and line[mixed[0]["column"] - 1 :].startswith('"Q1"'), line
