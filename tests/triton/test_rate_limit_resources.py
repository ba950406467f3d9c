"""TC732 against a real Triton 2.51 started with --rate-limit=execution_count and an explicit
--rate-limit-resource: the models Triton refuses are the ones lint reports, with its message."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TritonEnv
from triton_cases import ECHO_MODEL

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.selection import RuleSelection
from tritoncfg.triton.process import ServerOptions
from tritoncfg.triton.rest import TritonHTTPError

CONFIG = """name: "{name}"
backend: "python"
input [ {{ name: "X" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "Y" data_type: TYPE_FP32 dims: [ 4 ] }} ]
instance_group [ {{ kind: {kind} rate_limiter {{ resources [ {resource} ] }} }} ]
"""
MODELS = {  # R is given 3 for every device and G (global) 5 on device 0; OTHER is not given
    "above": ("KIND_CPU", '{ name: "R" count: 4 }'),
    "within": ("KIND_CPU", '{ name: "R" count: 3 }'),
    "not_given": ("KIND_CPU", '{ name: "OTHER" count: 1 }'),
    "global_within": ("KIND_MODEL", '{ name: "G" global: true count: 5 }'),
    "global_above": ("KIND_CPU", '{ name: "G" global: true count: 6 }'),
}
GIVEN = ("R:3", "G:5:0")


def _repository(root: Path) -> Path:
    repository = root / "repository"
    for name, (kind, resource) in MODELS.items():
        (repository / name / "1").mkdir(parents=True)
        (repository / name / "1" / "model.py").write_text(ECHO_MODEL, encoding="utf-8")
        config = CONFIG.format(name=name, kind=kind, resource=resource)
        (repository / name / "config.pbtxt").write_text(config, encoding="utf-8")
    return repository


def test_rate_limit_resources_agree_with_triton(triton_env: TritonEnv, tmp_path: Path) -> None:
    repository = _repository(tmp_path)
    args = ("--rate-limit=execution_count", *(f"--rate-limit-resource={g}" for g in GIVEN))
    server = triton_env.start_or_skip(repository, tmp_path, ServerOptions(extra_args=args))
    triton: dict[str, str | None] = {}
    with server:
        for name in MODELS:  # one at a time: each registers its instance alone
            try:
                server.http.load(name)
                triton[name] = None
            except TritonHTTPError as exc:
                triton[name] = exc.message
            server.http.unload(name)
    options = LintOptions(
        rate_limit=True,
        rate_limit_resources=(("R", 3, None), ("G", 5, 0)),
    )
    found = lint(repository, options, RuleSelection(select=("TC732",))).diagnostics
    ours = {d.model: d.triton.message if d.triton else None for d in found}
    assert (
        {name for name, error in triton.items() if error}
        == set(ours)
        == {
            "above",
            "not_given",
            "global_above",
        }
    )
    for name, message in ours.items():
        assert message is not None and message in (triton[name] or ""), (name, triton[name])


def test_verify_passes_the_rate_limit_options_to_server_and_lint(
    triton_env: TritonEnv, tmp_path: Path
) -> None:
    repository = _repository(tmp_path)
    limits = [arg for given in GIVEN for arg in ("--rate-limit-resource", given)]
    done = triton_env.run_cli(
        "verify",
        str(repository),
        "--format",
        "json",
        "--rate-limit",
        "execution_count",
        *limits,
        *triton_env.server_args,
    )
    assert done.returncode == 1, done.stderr  # Triton rejects three models: lint agrees
    models = {m["model"]: m for m in json.loads(done.stdout)["verify"]["models"]}
    rejected = {name for name, m in models.items() if m["triton_errors"]}
    assert rejected == {"above", "not_given", "global_above"}, models
    assert all(m["agree"] and m["verified"] for m in models.values()), models
    for name in rejected:
        assert [e["code"] for e in models[name]["tritoncfg_errors"]] == ["TC732"]
