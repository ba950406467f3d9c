"""`gen warmup` on a sequence model, against a real Triton: warmup requests go straight to the
model instance, so the sequence batcher adds no control tensors to them. The model below records
the START tensor of each request it executes (None when the request has none): a sample without
the controls reaches it without START (what TC715 reports); the samples gen writes give START.

The model records rather than fails such a request: Triton 2.51 now and then hangs, then dies,
unloading a python model whose warmup failed (seen in CI), which is Triton's problem, not the
behaviour under test."""

from __future__ import annotations

import json
from pathlib import Path

from clikit import run
from conftest import TritonEnv
from lintkit import make_model

# appends the START tensor of each request (or null) to the file RECORD names, one JSON line each
RECORDS_START = """\
import json

import triton_python_backend_utils as pb_utils

RECORD = {record!r}


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            start = pb_utils.get_input_tensor_by_name(request, "START")
            with open(RECORD, "a") as handle:
                seen = None if start is None else start.as_numpy().tolist()
                handle.write(json.dumps(seen) + "\\n")
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]))
        return responses
"""
CONFIG = """\
backend: "python"
max_batch_size: 2
input [ { name: "X" data_type: TYPE_FP32 dims: [ 3 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 3 ] } ]
sequence_batching {
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
  ]
}
"""
WITHOUT_CONTROLS = """\
model_warmup [ { name: "plain" batch_size: 1 inputs [
  { key: "X" value { data_type: TYPE_FP32 dims: [ 3 ] zero_data: true } } ] } ]
"""


def _state(triton_env: TritonEnv, cwd: Path) -> dict[str, object]:
    done = triton_env.run_cli(
        "verify", "repo", "--format", "json", *triton_env.server_args, cwd=cwd
    )
    assert done.stdout, done.stderr
    (model,) = json.loads(done.stdout)["verify"]["models"]
    return dict(model)


def _seen(record: Path) -> list[object]:
    """The START tensor of each request the model executed, in order."""
    assert record.is_file(), "the model executed no request"
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_a_sample_without_control_tensors_reaches_the_model_without_them(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    record = tmp_path / "seen.jsonl"
    model_py = RECORDS_START.format(record=str(record))
    make_model(tmp_path / "repo", "seq", CONFIG + WITHOUT_CONTROLS, files={"1/model.py": model_py})
    model = _state(triton_env, tmp_path)
    assert model["triton_state"] == "READY", model
    assert _seen(record) == [None]  # the warmup request, without START
    linted = run("lint", str(tmp_path / "repo"))  # what lint says of it: TC715, a warning here
    assert "TC715" in linted.stdout and "'START' (control)" in linted.stdout, linted.stdout


def test_the_samples_gen_writes_give_the_control_tensors_and_the_model_loads(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    for extra in ((), ("--data-dir",)):
        repo = tmp_path / "".join(extra or ("zero",)) / "repo"
        record = repo.parent / "seen.jsonl"
        model_py = RECORDS_START.format(record=str(record))
        model = make_model(repo, "seq", CONFIG, files={"1/model.py": model_py})
        written = run("gen", "warmup", str(model), *extra, "--write")
        assert written.returncode == 0, written.stderr
        assert '"START"' in (model / "config.pbtxt").read_text()
        state = _state(triton_env, repo.parent)
        assert state["triton_state"] == "READY", state
        seen = _seen(record)
        assert seen and None not in seen, seen  # every warmup request gave START
