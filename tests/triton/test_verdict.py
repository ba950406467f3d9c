"""Judging Triton's verdict beside tritoncfg's, and placing TC000 in the file (no server needed:
the load outcomes are written out as Triton 2.51 gave them)."""

from __future__ import annotations

from pathlib import Path

from lintkit import make_model

from tritoncfg.api import lint, load
from tritoncfg.checks import RULES, LintOptions
from tritoncfg.text import parse
from tritoncfg.triton.load import LoadOutcome, TritonError
from tritoncfg.triton.verdict import (
    Context,
    ModelVerdict,
    errors_by_model,
    judge,
    missing_backend,
    version_difference,
)
from tritoncfg.triton.where import field_span, locate, same_message

PY = {"1/model.py": "# never executed\n"}
BAD_BATCH = (
    'backend: "python"\nmax_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 16 ] }\n'
)


def outcome(model: str, *errors: TritonError) -> LoadOutcome:
    return LoadOutcome(model, not errors, errors, "failed" if errors else None, (), 0.1)


def verdicts(root: Path, outcomes: list[LoadOutcome], backends: Path) -> dict[str, ModelVerdict]:
    result = lint(root, LintOptions(gpus=()))
    models = load(root).models
    by_name = {o.model: o for o in outcomes}
    findings = errors_by_model(result.diagnostics, models)
    rejects = frozenset(n for n, ds in findings.items() if any(d.severity.rank == 0 for d in ds))
    ctx = Context(by_name, rejects, backends, (2, 51))
    return {m.name: judge(m, by_name[m.name], findings[m.name], ctx) for m in models}


def test_tc000_is_a_registered_rule_that_lint_never_reports(tmp_path: Path) -> None:
    rule = RULES["TC000"]
    assert (rule.name, rule.severity.value) == ("triton-rejected", "error")
    make_model(tmp_path, "m", BAD_BATCH, files=PY)
    assert "TC000" not in {d.code for d in lint(tmp_path).diagnostics}


def test_rejected_and_lint_agrees_tc000_on_the_same_token(tmp_path: Path) -> None:
    make_model(tmp_path, "m", BAD_BATCH, files=PY)
    error = TritonError("POLL", "dynamic batching preferred size must be <= max batch size for m")
    verdict = verdicts(tmp_path, [outcome("m", error)], tmp_path)["m"]
    assert (verdict.triton_state, verdict.agree, verdict.verified) == ("REJECTED", True, True)
    (tc000,) = verdict.diagnostics
    assert tc000.code == "TC000" and tc000.triton is not None
    assert tc000.triton.message == error.message
    tc203 = next(d for d in verdict.tritoncfg_errors if d.code == "TC203")
    assert tc000.span == tc203.span  # found through the lint finding with the same message


def test_loaded_but_lint_says_error_is_a_disagreement(tmp_path: Path) -> None:
    make_model(tmp_path, "m", BAD_BATCH, files=PY)
    verdict = verdicts(tmp_path, [outcome("m")], tmp_path)["m"]
    assert (verdict.triton_state, verdict.agree) == ("READY", False)
    assert verdict.diagnostics == []


def test_rejected_but_lint_finds_nothing_is_a_disagreement(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "python"\n', files=PY)
    verdict = verdicts(tmp_path, [outcome("m", TritonError("LOAD", "something new"))], tmp_path)
    assert verdict["m"].agree is False
    assert verdict["m"].diagnostics[0].message == "Triton refused the model: something new"


def test_missing_backend_is_not_a_config_error(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "c", 'platform: "onnxruntime_onnx"\n', files={"1/model.onnx": ""})
    message = "unable to find backend library for backend 'onnxruntime', try specifying runtime on the model configuration."
    verdict = verdicts(tmp_path / "repo", [outcome("c", TritonError("LOAD", message))], tmp_path)[
        "c"
    ]
    assert verdict.triton_state == "BACKEND_UNAVAILABLE"
    assert (verdict.agree, verdict.verified, verdict.diagnostics) == (True, False, [])
    assert verdict.note is not None and "backend not available on this server" in verdict.note


def test_missing_backend_only_when_the_library_is_really_absent(tmp_path: Path) -> None:
    message = "unable to find backend library for backend 'onnxruntime'"
    assert missing_backend(message, tmp_path) == "onnxruntime"
    (tmp_path / "onnxruntime").mkdir()
    (tmp_path / "onnxruntime" / "libtriton_onnxruntime.so").touch()
    assert missing_backend(message, tmp_path) is None
    assert missing_backend("other text", tmp_path) is None


def test_ensemble_of_an_unavailable_backend_is_not_verified(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_model(
        repo,
        "c",
        'platform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
        files={"1/model.onnx": ""},
    )
    make_model(
        repo,
        "e",
        'platform: "ensemble"\nmax_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\nensemble_scheduling { step [ { model_name: "c" model_version: -1 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ] }\n',
        files={},
    )
    missing = TritonError("LOAD", "unable to find backend library for backend 'onnxruntime'")
    step = TritonError(
        "LOAD",
        "ensemble 'e' depends on 'c' which has no loaded version. Model 'c' loading failed with "
        "error: version 1 is at UNAVAILABLE state: Invalid argument: unable to find backend "
        "library for backend 'onnxruntime'",
        dependency="c",
    )
    found = verdicts(repo, [outcome("c", missing), outcome("e", step)], tmp_path)
    assert found["e"].triton_state == "DEPENDENCY_FAILED"
    assert (found["e"].verified, found["e"].agree) == (False, True)


def test_ensemble_refused_for_a_step_agrees_with_lint_on_the_step(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_model(
        repo,
        "s",
        BAD_BATCH.replace("[ 16 ]", "[ 16 ]")
        + 'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n',
        files=PY,
    )
    make_model(
        repo,
        "e",
        'platform: "ensemble"\nmax_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\nensemble_scheduling { step [ { model_name: "s" model_version: -1 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ] }\n',
        files={},
    )
    step = TritonError(
        "LOAD", "ensemble 'e' depends on 's' which has no loaded version.", dependency="s"
    )
    bad = TritonError("POLL", "dynamic batching preferred size must be <= max batch size for s")
    found = verdicts(repo, [outcome("s", bad), outcome("e", step)], tmp_path)
    assert found["e"].triton_state == "DEPENDENCY_FAILED"
    assert (found["e"].verified, found["e"].agree) == (True, True)
    assert found["e"].note == "Triton did not load its step model 's'"


def test_known_version_difference_is_named() -> None:
    error = TritonError(
        "PARSE", 'Message type "inference.ModelConfig" has no field named "model_metrics".', 3, 14
    )
    assert "2.51" in (version_difference(error, (2, 51)) or "")
    assert version_difference(error, (2, 60)) is None
    assert version_difference(TritonError("POLL", "model_metrics"), (2, 51)) is None


def test_parse_error_lands_on_the_lint_finding_of_that_line(tmp_path: Path) -> None:
    text = 'backend: "python"\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] bogus: 1 } ]\n'
    make_model(tmp_path, "m", text, files=PY)
    result = lint(tmp_path)
    (model,) = load(tmp_path).models
    error = TritonError("PARSE", 'no field named "bogus"', line=2, column=59)
    span, matched = locate(error, model.config, result.diagnostics)
    assert matched is not None and matched.code == "TC002"
    assert span == matched.span
    # without a lint finding there, Triton's own line:column
    span, matched = locate(error, model.config, [])
    assert (span.line, span.column, matched) == (2, 59, None)


def test_field_span_from_the_words_of_the_message() -> None:
    config = parse(
        'name: "m"\nmax_batch_size: 8\ninput [ { name: "a" data_type: TYPE_FP32 dims: [ 1 ] },\n'
        '        { name: "b" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        "instance_group [ { kind: KIND_CPU }, { kind: KIND_GPU } ]\n"
    )
    assert field_span(config, "model input 'b' has something wrong").line == 4
    assert field_span(config, "instance group m_1 of model m has kind KIND_GPU").column == 38
    assert field_span(config, "max batch size is off").line == 2
    assert field_span(config, "nothing to see").line == 1
    assert field_span(None, "input 'a'").line == 1


def test_same_message_is_loose_about_case_and_end_marks() -> None:
    assert same_message(
        "Dynamic batching preferred size must be <= max batch size for m.",
        "dynamic batching preferred size must be <= max batch size for m",
    )
    assert same_message("a b", "x a b y")
    assert not same_message("", "anything")
    assert not same_message("one thing", "another")


def test_version_differences_come_from_the_release_table() -> None:
    """Any field newer than the server, not only a hand-kept list (use_growable_memory: 23.11)."""
    error = TritonError(
        "PARSE",
        'Message type "inference.ModelSequenceBatching.State" has no field named '
        '"use_growable_memory".',
        5,
        3,
    )
    assert "added in Triton 2.40 (23.11)" in (version_difference(error, (2, 39)) or "")
    assert version_difference(error, (2, 40)) is None
    unknown = TritonError("PARSE", 'Message type "inference.ModelConfig" has no field named "x".')
    assert version_difference(unknown, (2, 39)) is None
