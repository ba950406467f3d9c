"""`tritoncfg complete`: printing the completed config, `--write`, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

from clikit import run
from google.protobuf import text_format

from tritoncfg.complete.merge import merge_config
from tritoncfg.schema import ModelConfig
from tritoncfg.text import parse


def onnx_model(path: Path, batch: int | str = "N", outputs: tuple[str, ...] = ("y",)) -> None:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], [name]) for name in outputs],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 8])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [batch, 3, 8]) for n in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())


def model(tmp_path: Path, text: str | None, name: str = "m", **onnx: object) -> Path:
    folder = tmp_path / name
    onnx_model(folder / "1" / "model.onnx", **onnx)  # type: ignore[arg-type]
    if text is not None:
        (folder / "config.pbtxt").write_text(text)
    return folder


COMPLETED = """
name: "m" platform: "onnxruntime_onnx" backend: "onnxruntime"
default_model_filename: "model.onnx" version_policy { latest { num_versions: 1 } }
max_batch_size: 4
input { name: "x" data_type: TYPE_FP32 dims: [3, 8] }
output { name: "y" data_type: TYPE_FP32 dims: [3, 8] }
instance_group { name: "m" kind: KIND_GPU count: 1 gpus: [0] }
dynamic_batching { preferred_batch_size: [4] }
optimization { input_pinned_memory { enable: true } output_pinned_memory { enable: true } }
"""


def test_prints_the_completed_config_in_canonical_style(tmp_path: Path) -> None:
    result = run("complete", str(model(tmp_path, None)), "--gpus", "0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('name: "m"\n')
    assert "  dims: [ 3, 8 ]" in result.stdout.replace("    dims", "  dims")
    assert parse(result.stdout).message == text_format.Parse(COMPLETED, ModelConfig())
    assert "autofilled max_batch_size to 4 for model 'm'" in result.stderr


def test_config_file_path_and_default_max_batch_size(tmp_path: Path) -> None:
    folder = model(tmp_path, 'backend: "onnxruntime"\n')
    result = run(
        "complete", str(folder / "config.pbtxt"), "--gpus", "none", "--default-max-batch-size", "1"
    )
    assert result.returncode == 0, result.stderr
    completed = parse(result.stdout).message
    assert completed.max_batch_size == 1 and not completed.HasField("dynamic_batching")
    assert completed.instance_group[0].kind == 2 and completed.instance_group[0].count == 2


def test_json_dims_are_numbers(tmp_path: Path) -> None:
    result = run("complete", str(model(tmp_path, None)), "--gpus", "0", "--format", "json")
    document = json.loads(result.stdout)
    assert document["input"][0]["dims"] == [3, 8]
    assert document["max_batch_size"] == 4
    assert document["instance_group"][0]["gpus"] == [0]
    assert document["dynamic_batching"]["preferred_batch_size"] == [4]


def test_several_models_as_a_json_array(tmp_path: Path) -> None:
    a, b = model(tmp_path, None, "a"), model(tmp_path, None, "b", batch=1)
    result = run("complete", str(a), str(b), "--format", "json")
    assert [d["name"] for d in json.loads(result.stdout)] == ["a", "b"]
    assert "GPUs are unknown" in result.stderr


def test_strict_mode_does_not_read_the_model_file(tmp_path: Path) -> None:
    written = (
        'backend: "onnxruntime"\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 3, 8 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ -1, 3, 8 ] } ]\n'
    )
    folder = model(tmp_path, written)
    result = run("complete", str(folder), "--triton-mode", "strict", "--gpus", "0")
    assert result.returncode == 0, result.stderr
    assert "max_batch_size" not in result.stdout and "dims: [ -1, 3, 8 ]" in result.stdout


def test_strict_mode_refuses_a_config_without_the_model_inputs(tmp_path: Path) -> None:
    # the backend compares the config with the model file even without auto-complete
    folder = model(tmp_path, 'backend: "onnxruntime"\n')
    result = run("complete", str(folder), "--triton-mode", "strict", "--gpus", "0")
    assert result.returncode == 1
    assert "configuration expects 0 inputs, model provides 1" in result.stderr
    assert result.stdout == ""


def test_strict_mode_without_config_fails_the_load(tmp_path: Path) -> None:
    result = run("complete", str(model(tmp_path, None)), "--triton-mode", "strict")
    assert result.returncode == 1
    assert "config.pbtxt:1:1: error: failed to open text file for read" in result.stderr


def test_backend_error_points_at_max_batch_size(tmp_path: Path) -> None:
    folder = model(tmp_path, 'backend: "onnxruntime"\nmax_batch_size: 8\n', batch=1)
    result = run("complete", str(folder), "--gpus", "0")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip().endswith(
        "config.pbtxt:2:1: error: autofill failed for model 'm': model does not support "
        "batching while non-zero max_batch_size is specified"
    )


def test_a_config_that_does_not_parse_is_bad_input(tmp_path: Path) -> None:
    folder = model(tmp_path, "max_batch_size: 8\nfoo: 1\n")
    result = run("complete", str(folder), "--write")
    assert result.returncode == 2
    assert 'config.pbtxt:2:1: error: Message type "inference.ModelConfig" has no field' in (
        result.stderr
    )
    assert "Traceback" not in result.stderr
    assert (folder / "config.pbtxt").read_text() == "max_batch_size: 8\nfoo: 1\n"


def test_missing_path_and_bad_gpus_are_usage_errors(tmp_path: Path) -> None:
    missing = run("complete", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr
    bad = run("complete", str(model(tmp_path, None)), "--gpus", "x")
    assert bad.returncode == 2 and "--gpus expects" in bad.stderr


# ---------------------------------------------------------------------------------------------
# --write

WRITTEN = """# Resnet, exported by hand.
name: "m"  # must match the folder
backend: "onnxruntime"

instance_group [ { kind: KIND_CPU } ]  # CPU only for now

# end of file
"""


def test_write_adds_the_backend_fields_keeps_comments_and_is_idempotent(tmp_path: Path) -> None:
    folder = model(tmp_path, WRITTEN)
    first = run("complete", str(folder), "--write", "--gpus", "0")
    assert first.returncode == 0, first.stderr
    assert "added: max_batch_size, input, output, dynamic_batching" in first.stderr
    text = (folder / "config.pbtxt").read_text()
    head = WRITTEN.split("\n# end of file\n")[0]
    assert text.startswith(head) and text.endswith("\n# end of file\n")
    assert "max_batch_size: 4\ninput [\n  {\n" in text
    assert "dynamic_batching { }\n" in text  # Triton's own default, not preferred_batch_size
    assert "version_policy" not in text and "pinned" not in text and "gpus" not in text
    second = run("complete", str(folder), "--write", "--gpus", "0")
    assert second.returncode == 0 and "nothing to add" in second.stderr
    assert (folder / "config.pbtxt").read_text() == text
    # the written file completes to what the original completed to
    again = run("complete", str(folder), "--gpus", "0")
    original = model(tmp_path / "orig", WRITTEN)
    assert again.stdout == run("complete", str(original), "--gpus", "0").stdout


def test_write_creates_a_missing_config(tmp_path: Path) -> None:
    folder = model(tmp_path, None, outputs=("y", "z"))
    result = run("complete", str(folder / "config.pbtxt"), "--write")
    assert result.returncode == 0, result.stderr
    assert "created" in result.stderr
    text = (folder / "config.pbtxt").read_text()
    assert text.startswith('name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 4\n')
    assert [o.name for o in parse(text).message.output] == ["y", "z"]


def test_write_replaces_a_written_zero_max_batch_size(tmp_path: Path) -> None:
    folder = model(tmp_path, "max_batch_size: 0  # batching?")
    run("complete", str(folder), "--write")
    text = (folder / "config.pbtxt").read_text()
    assert text.startswith("max_batch_size: 4  # batching?\ninput [")


def test_write_does_nothing_for_a_backend_error(tmp_path: Path) -> None:
    folder = model(tmp_path, "max_batch_size: 8\n", batch=1)
    result = run("complete", str(folder), "--write")
    assert result.returncode == 1
    assert (folder / "config.pbtxt").read_text() == "max_batch_size: 8\n"


def test_merge_completes_tensors_the_file_names() -> None:
    """What the TensorRT backend fills in inside written tensors (FixIO) lands in their blocks."""
    source = 'input [ { name: "a" } ]\noutput [\n  {\n    name: "b"  # kept\n  }\n]\n'
    wanted = text_format.Parse(
        'input { name: "a" data_type: TYPE_FP32 dims: [16] } '
        'output { name: "b" data_type: TYPE_FP16 dims: [1] reshape { } }',
        ModelConfig(),
    )
    merged = merge_config(parse(source), wanted)
    assert merged.added == [
        "input[0].data_type",
        "input[0].dims",
        "output[0].data_type",
        "output[0].dims",
        "output[0].reshape",
    ]
    assert merged.text == (
        'input [ { name: "a" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
        "output [\n"
        "  {\n"
        '    name: "b"  # kept\n'
        "    data_type: TYPE_FP16\n"
        "    dims: [ 1 ]\n"
        "    reshape { }\n"
        "  }\n"
        "]\n"
    )


def test_merge_into_a_file_without_final_newline() -> None:
    wanted = text_format.Parse("max_batch_size: 2 dynamic_batching { }", ModelConfig())
    merged = merge_config(parse('name: "m"'), wanted)
    assert merged.text == 'name: "m"\nmax_batch_size: 2\ndynamic_batching { }\n'
    assert merge_config(parse("sequence_batching { }\n"), wanted).added == ["max_batch_size"]


REFUSED = [
    (
        "preferred-size",
        "max_batch_size: 4\ndynamic_batching { preferred_batch_size: [ 8 ] }\n",
        "m",
        ("--gpus", "0"),
        "dynamic batching preferred size must be <= max batch size for m",
    ),
    (
        "name",
        'name: "other"\n',
        "m",
        ("--gpus", "0"),
        "unexpected directory name 'm' for model 'other', directory name must equal model name",
    ),
    (
        "kind-gpu",
        "instance_group [ { kind: KIND_GPU } ]\n",
        "m",
        ("--gpus", "none"),
        "has kind KIND_GPU but no GPUs are available",
    ),
    (
        "onnx-dims",
        'max_batch_size: 4\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 3, 9 ] } ]\n',
        "m",
        ("--gpus", "0"),
        "model 'm', tensor 'x': the model expects",
    ),
]


def test_models_triton_refuses_exit_1_with_the_refusal(tmp_path: Path) -> None:
    for case, text, name, args, refusal in REFUSED:
        folder = model(tmp_path / case, text, name)
        result = run("complete", str(folder), *args)
        assert result.returncode == 1, (case, result.stdout, result.stderr)
        assert refusal in result.stderr, (case, result.stderr)
        assert "error:" in result.stderr and result.stdout == "", case


def test_a_refused_model_does_not_stop_the_others(tmp_path: Path) -> None:
    good = model(tmp_path, None, "good")
    bad = model(tmp_path, 'name: "other"\n', "bad")
    result = run("complete", str(good), str(bad), "--gpus", "0")
    assert result.returncode == 1
    assert 'name: "good"' in result.stdout and "other" not in result.stdout
    assert "directory name must equal model name" in result.stderr


def test_the_projects_settings_decide_a_refusal_as_for_lint(tmp_path: Path) -> None:
    """`backends` in the settings: a backend the host has is not a refusal (TC120), as in lint."""
    folder = tmp_path / "models" / "m"
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.so").write_bytes(b"")
    (folder / "config.pbtxt").write_text('backend: "mybackend"\nmax_batch_size: 0\n')
    refused = run("complete", str(folder))
    assert refused.returncode == 1 and "TC120" in refused.stderr, refused.stderr
    (tmp_path / "tritoncfg.toml").write_text('backends = ["mybackend"]\ngpus = "none"\n')
    served = run("complete", str(folder))
    assert served.returncode == 0, served.stderr
    assert 'backend: "mybackend"' in served.stdout and "GPUs are unknown" not in served.stderr
    assert run("complete", str(folder), "--gpus", "bad").returncode == 2  # the option's value


def test_paths_are_shown_as_lint_shows_them_relative_to_the_working_directory(
    tmp_path: Path,
) -> None:
    model(tmp_path / "repo", 'name: "m"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n')
    model(tmp_path / "repo", 'name: "n"\nplatform: "onnxruntime_onnx"\n', name="n")
    given = str(tmp_path / "repo")  # absolute, as a path below the working directory
    printed = run("complete", given, "--gpus", "none", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert "# repo/m/config.pbtxt\n" in printed.stdout
    assert "repo/n/config.pbtxt: note: " in printed.stderr and str(tmp_path) not in printed.stderr
    written = run("complete", given, "--gpus", "none", "--write", cwd=tmp_path)
    assert "completed repo/m/config.pbtxt (added: " in written.stderr, written.stderr
