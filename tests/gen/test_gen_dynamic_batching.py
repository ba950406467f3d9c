"""`gen dynamic-batching`: round trips on corpus models, and what Triton refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from gen.genkit import ONNX_MODEL, PYTHON_MODEL, corpus_model, errors, round_trip

from tritoncfg.gen.change import GenError
from tritoncfg.gen.dynamic_batching import BatchingRequest, QueuePolicy, build
from tritoncfg.text import parse


@pytest.mark.parametrize("rel", [PYTHON_MODEL, ONNX_MODEL])
def test_round_trip_on_corpus_models(rel: str, tmp_path: Path) -> None:
    model = corpus_model(rel, tmp_path / "repo")
    args = ("dynamic-batching", "--preferred", "4,8", "--max-queue-delay-us", "100")
    before, after = round_trip(model, *args)
    batching = parse(after).message.dynamic_batching
    assert list(batching.preferred_batch_size) == [4, 8]
    assert batching.max_queue_delay_microseconds == 100
    # the fields outside dynamic_batching mean the same as before
    old, new = parse(before).message, parse(after).message
    old.ClearField("dynamic_batching")
    new.ClearField("dynamic_batching")
    assert old == new


def test_a_written_block_is_updated_in_place(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    config = model / "config.pbtxt"
    config.write_text(
        config.read_text().replace("dynamic_batching { }", "# tuned\ndynamic_batching { }  # keep")
    )
    before = config.read_text()
    done = run("gen", "dynamic-batching", str(model), "--priority-levels", "2", "--write")
    assert done.returncode == 0, done.stderr
    after = config.read_text()
    head = before.index("dynamic_batching")
    assert after[:head] == before[:head]  # everything before it byte for byte, "# tuned" too
    assert "}  # keep\n" in after
    assert parse(after).message.dynamic_batching.default_priority_level == 2
    assert errors(model) == []


def _refused(model: Path, *args: str) -> str:
    config = model / "config.pbtxt"
    before = config.read_text()
    done = run("gen", "dynamic-batching", str(model), *args, "--write")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert config.read_text() == before
    return done.stderr


def test_refuses_a_preferred_size_above_max_batch_size(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    message = _refused(model, "--preferred", "4,16")
    assert "preferred batch size 16 is above max_batch_size 8" in message


def test_refuses_a_model_that_does_not_batch(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    config = model / "config.pbtxt"
    config.write_text(config.read_text().replace("max_batch_size: 64", "max_batch_size: 0"))
    assert "max_batch_size 0" in _refused(model)


def test_refuses_a_sequence_model(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    config = model / "config.pbtxt"
    config.write_text(config.read_text() + "sequence_batching { }\n")
    assert "sequence_batching" in _refused(model)


def test_refuses_preserve_ordering_with_two_levels(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    message = _refused(model, "--preserve-ordering", "--priority-levels", "2")
    assert "Only one priority level is allowed when 'preserve_ordering' is true" in message


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    done = run("gen", "dynamic-batching", str(tmp_path / "missing"))
    assert done.returncode == 2 and "no such file" in done.stderr
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    done = run("gen", "dynamic-batching", str(model), "--preferred", "4,x")
    assert done.returncode == 2 and "--preferred" in done.stderr


def test_build_checks_what_triton_checks() -> None:
    with pytest.raises(GenError, match=r"range \[1, 2\]"):
        build(BatchingRequest(priority_levels=2, default_priority_level=3), 8, "m")
    delayed = QueuePolicy(timeout_action="DELAY", default_timeout_us=10)
    with pytest.raises(GenError, match="DELAY as timeout action"):
        build(BatchingRequest(preserve_ordering=True, queue_policy=delayed), 8, "m")
    block = build(
        BatchingRequest(preferred=(8, 4, 4), queue_policy=QueuePolicy(max_queue_size=16)), 8, "m"
    )
    assert list(block.preferred_batch_size) == [4, 8]
    assert block.default_queue_policy.max_queue_size == 16
    assert not block.HasField("default_queue_policy") or block.default_queue_policy.max_queue_size
    assert build(BatchingRequest(priority_levels=3), 8, "m").default_priority_level == 3


def test_a_model_with_errors_already_is_refused_with_its_findings(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    (model / "1" / "model.py").unlink()
    (model / "1").rmdir()
    assert any(e.startswith("TC105") for e in errors(model))
    message = _refused(model)
    assert "TC105" in message and "has errors already" in message


def test_options_not_given_keep_the_values_of_the_block(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    config = model / "config.pbtxt"
    tuned = (
        "dynamic_batching {\n  preferred_batch_size: [ 4 ]\n  max_queue_delay_microseconds: 300\n}"
    )
    config.write_text(config.read_text().replace("dynamic_batching { }", tuned))
    assert (
        run("gen", "dynamic-batching", str(model), "--max-queue-size", "64", "--write").returncode
        == 0
    )
    block = parse(config.read_text()).message.dynamic_batching
    assert list(block.preferred_batch_size) == [4]
    assert block.max_queue_delay_microseconds == 300
    assert block.default_queue_policy.max_queue_size == 64
    cleared = run("gen", "dynamic-batching", str(model), "--preferred", "", "--write")
    assert cleared.returncode == 0, cleared.stderr
    assert list(parse(config.read_text()).message.dynamic_batching.preferred_batch_size) == []


def test_the_warnings_of_the_result_are_shown_and_do_not_block(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    args = ("--max-queue-size", "2", "--preferred", "4")
    shown = run("gen", "dynamic-batching", str(model), *args)
    assert shown.returncode == 0 and shown.stdout.startswith("--- "), shown.stderr
    assert "warning: TC912 preferred batch size 4 can never form" in shown.stderr
    written = run("gen", "dynamic-batching", str(model), *args, "--write")
    assert written.returncode == 0 and "warning: TC912" in written.stderr
    assert parse((model / "config.pbtxt").read_text()).message.dynamic_batching.HasField(
        "default_queue_policy"
    )


def test_warnings_block_under_warnings_as_errors_and_the_refusal_says_so(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    (tmp_path / "tritoncfg.toml").write_text("warnings-as-errors = true\n")
    message = _refused(model, "--max-queue-size", "2", "--preferred", "4")
    assert "warning: TC912" in message
    last = message.splitlines()[-1]
    assert "warnings fail the lint under warnings-as-errors (" in last and "TC912" in last
