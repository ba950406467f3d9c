"""`tritoncfg verify` on the repository of load_verdict_cases.py (issue 23, items 10-11): the real
Triton 2.51 of nvidia-pytriton gives each model the verdict the cases record, and lint agrees on
every one. Slow (a server loads five models); skipped, with the reason, where the Triton
environment cannot be set up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TritonEnv
from load_verdict_cases import CASES, build_repository

pytestmark = pytest.mark.slow


def test_verify_agrees_with_lint_on_every_case(triton_env: TritonEnv, tmp_path: Path) -> None:
    build_repository(tmp_path)
    done = triton_env.run_cli(
        "verify", "repo", "--format", "json", *triton_env.server_args, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 1, done.stdout + done.stderr  # Triton refused some models
    report = json.loads(done.stdout)
    models = {m["model"]: m for m in report["verify"]["models"]}
    assert {name: m["triton_state"] for name, m in models.items()} == {
        name: state for name, (_, state, _) in CASES.items()
    }, json.dumps(report["verify"]["models"], indent=1)
    for name, (_, _, code) in CASES.items():
        model = models[name]
        assert model["verified"] and model["agree"], model
        assert [e["code"] for e in model["tritoncfg_errors"]] == ([code] if code else [])
    messages = {name: str(models[name]["triton_errors"]) for name in CASES}
    assert "unable to find backend library 'libtriton_nope.so'" in messages["runtime_not_found"]
    assert "backends/python/model.py" in messages["runtime_model_py"]
    assert "Batching library path not found" in messages["batch_strategy_mounted"]
