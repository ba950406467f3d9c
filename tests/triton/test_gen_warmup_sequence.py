"""`gen warmup` on a sequence model, against a real Triton: warmup requests go straight to the
model instance, so the sequence batcher adds no control tensors to them. A sample without them
reaches the model without them (here, the model refuses it and the load fails); the samples gen
writes give them, and the model loads."""

from __future__ import annotations

import json
from pathlib import Path

from clikit import run
from conftest import TritonEnv
from lintkit import make_model

# fails a request that lacks the START control tensor, or whose START is not `wanted`
NEEDS_START = """\
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            start = pb_utils.get_input_tensor_by_name(request, "START")
            if start is None:
                error = pb_utils.TritonError("no START control tensor in the request")
                responses.append(pb_utils.InferenceResponse([], error=error))
                continue
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


def test_a_sample_without_control_tensors_reaches_the_model_without_them(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    make_model(
        tmp_path / "repo", "seq", CONFIG + WITHOUT_CONTROLS, files={"1/model.py": NEEDS_START}
    )
    model = _state(triton_env, tmp_path)
    assert model["triton_state"] == "REJECTED", model
    assert "no START control tensor in the request" in json.dumps(model["triton_errors"])


def test_the_samples_gen_writes_give_the_control_tensors_and_the_model_loads(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    for extra in ((), ("--data-dir",)):
        repo = tmp_path / "".join(extra or ("zero",)) / "repo"
        model = make_model(repo, "seq", CONFIG, files={"1/model.py": NEEDS_START})
        written = run("gen", "warmup", str(model), *extra, "--write")
        assert written.returncode == 0, written.stderr
        assert '"START"' in (model / "config.pbtxt").read_text()
        state = _state(triton_env, repo.parent)
        assert state["triton_state"] == "READY", state
