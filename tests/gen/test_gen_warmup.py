"""`gen warmup`: samples per batch size, data files as Triton reads them, strings, optional inputs."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest
from clikit import run
from gen.genkit import ONNX_MODEL, PYTHON_MODEL, corpus_model, errors, round_trip

from tritoncfg.gen.warmup import element_bytes
from tritoncfg.text import parse


def test_round_trip_zero_data_per_batch_size(tmp_path: Path) -> None:
    model = corpus_model(ONNX_MODEL, tmp_path / "repo")
    config = model / "config.pbtxt"
    config.write_text(
        config.read_text().replace(
            "dynamic_batching { }", "dynamic_batching { preferred_batch_size: [ 4 ] }"
        )
    )
    run("fmt", str(config))
    _, after = round_trip(model, "warmup")
    samples = parse(after).message.model_warmup
    assert [(s.name, s.batch_size) for s in samples] == [
        ("batch_1", 1),
        ("batch_4", 4),
        ("batch_8", 8),
    ]
    entry = samples[0].inputs["input.1"]
    assert entry.zero_data and list(entry.dims) == [1, 32, 100]


def test_round_trip_data_files(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    _, after = round_trip(model, "warmup", "--dim", "INPUT0=16", "--data", "random", "--data-dir")
    samples = parse(after).message.model_warmup
    assert [s.batch_size for s in samples] == [1, 64]
    assert samples[1].inputs["INPUT0"].input_data_file == "INPUT0.bin"
    data = (model / "warmup" / "INPUT0.bin").read_bytes()
    values = struct.unpack("<16f", data)  # 16 FP32 values of one request, no batch dim
    assert all(0.0 <= v < 1.0 for v in values) and len(set(values)) > 1


def _string_model(repo: Path, optional: bool = False) -> Path:
    model = repo / "tok"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("# never imported\n")
    extra = (
        '  { name: "MASK" data_type: TYPE_INT32 dims: [ -1 ] optional: true }\n' if optional else ""
    )
    (model / "config.pbtxt").write_text(
        '# tokenizer\nbackend: "python"\nmax_batch_size: 4\n'
        f'input [\n  {{ name: "TEXT" data_type: TYPE_STRING dims: [ 2 ] }}{"," if optional else ""}\n{extra}]\n'
        'output [ { name: "IDS" data_type: TYPE_INT64 dims: [ 8 ] } ]\n'
    )
    run("fmt", str(model))
    assert errors(model) == []
    return model


@pytest.mark.parametrize(("data", "expected"), [("zero", [b"", b""]), ("random", None)])
def test_string_files_are_length_prefixed(
    data: str, expected: list[bytes] | None, tmp_path: Path
) -> None:
    model = _string_model(tmp_path / "repo")
    round_trip(model, "warmup", "--data", data, "--data-dir")
    raw = (model / "warmup" / "TEXT.bin").read_bytes()
    items, at = [], 0
    while at < len(raw):
        (length,) = struct.unpack_from("<I", raw, at)
        items.append(raw[at + 4 : at + 4 + length])
        at += 4 + length
    assert at == len(raw) and len(items) == 2
    if expected is not None:
        assert items == expected
    else:
        assert all(len(item) == 8 and item.isalpha() for item in items)


def test_optional_input_with_a_variable_dim_is_left_out(tmp_path: Path) -> None:
    model = _string_model(tmp_path / "repo", optional=True)
    done = run("gen", "warmup", str(model))
    assert done.returncode == 0, done.stderr
    assert "optional input 'MASK'" in done.stderr and '"MASK"' not in done.stdout
    _, after = round_trip(model, "warmup", "--dim", "MASK=3")
    assert list(parse(after).message.model_warmup[0].inputs["MASK"].dims) == [3]


def test_refuses_a_variable_dim_without_dim(tmp_path: Path) -> None:
    model = corpus_model(PYTHON_MODEL, tmp_path / "repo")
    done = run("gen", "warmup", str(model), "--write")
    assert done.returncode == 2  # a usage error: the option the model needs is missing
    assert "give --dim INPUT0=SIZE" in done.stderr and "Traceback" not in done.stderr
    bad = run("gen", "warmup", str(model), "--dim", "NOPE=3")
    assert (
        bad.returncode == 2 and "--dim names no input of model 'identity_fp32': NOPE" in bad.stderr
    )
    for value in ("INPUT0=0", "INPUT0=x", "=3"):
        malformed = run("gen", "warmup", str(model), "--dim", value)
        assert malformed.returncode == 2 and "--dim expects NAME=SIZE" in malformed.stderr
    zero = run("gen", "warmup", str(model), "--dim", "INPUT0=3", "--count", "0")
    assert zero.returncode == 2 and "--count" in zero.stderr


def test_element_bytes_sizes() -> None:
    rng = random.Random(0)
    assert len(element_bytes("TYPE_FP16", 3, "random", rng)) == 6
    assert len(element_bytes("TYPE_BF16", 3, "random", rng)) == 6
    assert element_bytes("TYPE_INT64", 2, "zero", rng) == bytes(16)
    assert element_bytes("TYPE_STRING", 1, "zero", rng) == b"\x00\x00\x00\x00"


def test_inputs_come_from_the_model_file_when_the_config_has_none(tmp_path: Path) -> None:
    from models.onnxkit import FLOAT, INT64, make_onnx

    model = tmp_path / "repo" / "det"
    make_onnx(
        model / "1" / "model.onnx",
        [("pixels", FLOAT, ["b", 3, 4, 4]), ("ids", INT64, ["b", 2])],
        [("boxes", FLOAT, ["b", 5])],
    )
    (model / "config.pbtxt").write_text('# detector\nbackend: "onnxruntime"\nmax_batch_size: 2\n')
    assert errors(model) == []
    _, after = round_trip(model, "warmup", "--data-dir")
    sample = parse(after).message.model_warmup[-1]
    assert sample.batch_size == 2
    assert sorted(sample.inputs) == ["ids", "pixels"]
    assert list(sample.inputs["pixels"].dims) == [3, 4, 4]
    assert (model / "warmup" / "pixels.bin").read_bytes() == bytes(3 * 4 * 4 * 4)
    assert (model / "warmup" / "ids.bin").read_bytes() == bytes(2 * 8)


SEQUENCE_CONTROLS = """\
sequence_batching {
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] },
    { name: "END" control [ { kind: CONTROL_SEQUENCE_END bool_false_true: [ false, true ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_STRING } ] }
  ]
}
"""
# control tensor -> (data type, the bytes of a one-request sequence: true, or correlation id 1)
CONTROLS = {
    "START": ("TYPE_FP32", struct.pack("<f", 1.0)),
    "END": ("TYPE_BOOL", b"\x01"),
    "READY": ("TYPE_INT32", struct.pack("<i", 1)),
    "CORRID": ("TYPE_STRING", b"\x01\x00\x00\x00" + b"1"),
}


def _sequence_model(repo: Path) -> Path:
    """A python model (model.py never imported) whose sequence batcher declares one control
    tensor of each kind, each typed differently."""
    model = repo / "seq"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("# never imported\n")
    (model / "config.pbtxt").write_text(
        '# a stateful model\nbackend: "python"\nmax_batch_size: 2\n'
        'input [ { name: "X" data_type: TYPE_FP32 dims: [ 3 ] } ]\n'
        'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 3 ] } ]\n' + SEQUENCE_CONTROLS
    )
    assert run("fmt", str(model)).returncode == 0
    assert errors(repo) == []  # it parsed, and the control inputs are valid
    return model


def test_sequence_control_tensors_are_given_by_each_sample(tmp_path: Path) -> None:
    """Triton's warmup bypasses the sequence batcher, which would add the control tensors: each
    sample gives them itself, dims [1], typed per control kind."""
    from tritoncfg.schema import DataType

    model = _sequence_model(tmp_path / "repo")
    _, after = round_trip(model, "warmup")
    samples = parse(after).message.model_warmup
    assert [s.batch_size for s in samples] == [1, 2]
    for sample in samples:
        assert set(sample.inputs) == {"X", *CONTROLS}
        for name, (data_type, _) in CONTROLS.items():
            entry = sample.inputs[name]
            assert DataType.Name(entry.data_type) == data_type, name
            assert list(entry.dims) == [1] and entry.zero_data
    again = run("gen", "warmup", str(model))
    assert again.returncode == 0 and "nothing to change" in again.stderr


def test_sequence_control_files_hold_a_one_request_sequence(tmp_path: Path) -> None:
    model = _sequence_model(tmp_path / "repo")
    shown = run("gen", "warmup", str(model), "--data-dir")
    assert "START true, END true, READY true, CORRID 1" in shown.stderr
    _, after = round_trip(model, "warmup", "--data-dir")
    sample = parse(after).message.model_warmup[0]
    for name, (_, data) in CONTROLS.items():
        assert sample.inputs[name].input_data_file == f"{name}.bin"
        assert (model / "warmup" / f"{name}.bin").read_bytes() == data, name
    assert (model / "warmup" / "X.bin").read_bytes() == bytes(3 * 4)


def test_zero_data_says_what_each_control_reads_as(tmp_path: Path) -> None:
    model = _sequence_model(tmp_path / "repo")
    done = run("gen", "warmup", str(model))
    assert done.returncode == 0, done.stderr
    assert "zero_data: START false, END false, READY false, CORRID 0" in done.stderr


def test_implicit_state_is_given_by_each_sample(tmp_path: Path) -> None:
    """Warmup requests carry no sequence, so Triton loads no implicit state into them: each
    sample gives the state inputs, zeros; a state with a -1 dim takes --dim or is left out."""
    from tritoncfg.schema import DataType

    repo = tmp_path / "repo"
    model = _sequence_model(repo)
    config = model / "config.pbtxt"
    config.write_text(
        config.read_text().replace(
            "sequence_batching {",
            "sequence_batching {\n  state [\n"
            '    { input_name: "STATE_IN" output_name: "STATE_OUT" data_type: TYPE_INT64 dims: [ 4 ] },\n'
            '    { input_name: "CACHE_IN" output_name: "CACHE_OUT" data_type: TYPE_FP16 dims: [ -1, 2 ] }\n'
            "  ]",
        )
    )
    assert run("fmt", str(model)).returncode == 0 and errors(repo) == []
    shown = run("gen", "warmup", str(model))
    assert "state 'CACHE_IN' has a -1 dim: left out of the samples (give --dim)" in shown.stderr
    assert '"CACHE_IN"' not in shown.stdout
    _, after = round_trip(model, "warmup", "--data-dir", "--dim", "CACHE_IN=3")
    sample = parse(after).message.model_warmup[0]
    state = sample.inputs["STATE_IN"]
    assert DataType.Name(state.data_type) == "TYPE_INT64" and list(state.dims) == [4]
    assert list(sample.inputs["CACHE_IN"].dims) == [3, 2]
    assert (model / "warmup" / "STATE_IN.bin").read_bytes() == bytes(4 * 8)
    assert (model / "warmup" / "CACHE_IN.bin").read_bytes() == bytes(3 * 2 * 2)
    assert set(sample.inputs) == {"X", *CONTROLS, "STATE_IN", "CACHE_IN"}
