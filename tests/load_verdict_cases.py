"""Configs where lint and a real Triton 2.51 disagreed (issue 23, items 10-11), as one repository:
each model with the verdict Triton gave it and the error rule lint must give (None: no error).

Shared by the CPU test (tests/checks/test_load_verdicts.py: lint alone) and the test that runs
`tritoncfg verify` on the same repository (tests/triton/test_verify_load_verdicts.py)."""

from __future__ import annotations

from pathlib import Path

from lintkit import make_model

ECHO = (
    "import triton_python_backend_utils as pb_utils\n"
    "class TritonPythonModel:\n"
    "    def execute(self, requests):\n"
    "        return [pb_utils.InferenceResponse([]) for _ in requests]\n"
)
IO = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)
TWICE = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] }, '
    '{ name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def _strategy(path: str) -> str:
    return (
        f'parameters {{ key: "TRITON_BATCH_STRATEGY_PATH" value {{ string_value: "{path}" }} }}\n'
    )


# name -> (config after `backend: "python"`, Triton's state, lint's error code or None)
CASES: dict[str, tuple[str, str, str | None]] = {
    # loaded: core never compares names; Model::Init keeps the first "x" (TC312: a warning)
    "duplicate_input": (TWICE, "READY", None),
    # "unable to find backend library 'libtriton_nope.so' for model ..."
    "runtime_not_found": ('runtime: "libtriton_nope.so"\n' + IO, "REJECTED", "TC121"),
    # "unable to find Python backend based backend library 'model.py' ... backends/python/model.py"
    "runtime_model_py": ('runtime: "model.py"\n' + IO, "REJECTED", "TC123"),
    # "Batching library path not found: libnope_batch.so" (from the server's working directory)
    "batch_strategy_relative": (IO + _strategy("libnope_batch.so"), "REJECTED", "TC722"),
    # "Batching library path not found: /models/batch_strategy_mounted/libnope_batch.so"
    "batch_strategy_mounted": (
        IO + _strategy("/models/batch_strategy_mounted/libnope_batch.so"),
        "REJECTED",
        "TC723",
    ),
}


def build_repository(root: Path) -> Path:
    """The repository of CASES under `root`; returns its path."""
    repository = root / "repo"
    for name, (config, _, _) in CASES.items():
        text = f'name: "{name}"\nbackend: "python"\n{config}'
        make_model(repository, name, text, files={"1/model.py": ECHO})
    return repository
