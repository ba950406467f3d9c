"""TC711-TC714 response cache and model metrics, TC721-TC723 and TC741-TC742 parameters read by
core, TC731 the rate limiter (`model_config_utils.cc`, `backend_model.cc`, `rate_limiter.cc`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus import TRITON_QA, require_corpus
from lintkit import lint_config, lint_repo, make_model

from tritoncfg.diagnostics import Diagnostic, Severity

MODEL_PY = {"1/model.py": "# never executed\n"}


def findings(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def one(diagnostics: list[Diagnostic], code: str) -> Diagnostic:
    found = findings(diagnostics, code)
    assert len(found) == 1, [(d.code, d.message) for d in diagnostics]
    return found[0]


def triton(d: Diagnostic) -> str | None:
    return d.triton.message if d.triton else None


# TC711 response-cache-with-sequence-batching
def test_cache_with_sequence_batching(tmp_path: Path) -> None:
    config = 'backend: "python"\nsequence_batching { }\nresponse_cache {\n  enable: true\n}\n'
    d = one(lint_config(tmp_path, config), "TC711")
    assert str(d.span) == "4:11"
    assert triton(d) == (
        "Response Cache does not currently support model m with sequence batching scheduler. "
        "Please disable the response cache."
    )


def test_disabled_cache_with_sequence_batching_passes(tmp_path: Path) -> None:
    config = 'backend: "python"\nsequence_batching { }\nresponse_cache { enable: false }\n'
    assert not findings(lint_config(tmp_path, config), "TC711")


# TC712 response-cache-with-decoupled
def test_cache_with_decoupled(tmp_path: Path) -> None:
    config = (
        'backend: "python"\nmodel_transaction_policy { decoupled: true }\n'
        "response_cache { enable: true }\n"
    )
    d = one(lint_config(tmp_path, config), "TC712")
    assert str(d.span) == "3:26"
    assert triton(d) == (
        "Response Cache does not currently support model m with 'decoupled' transaction "
        "policy. Please disable the response cache."
    )


def test_cache_without_decoupled_passes(tmp_path: Path) -> None:
    config = 'backend: "python"\nresponse_cache { enable: true }\n'
    assert not findings(lint_config(tmp_path, config), "TC712")


# TC713 invalid-metric-control
METRICS = """backend: "python"
model_metrics {
  metric_control [
    { metric_identifier { family: "nv_inference_first_response_histogram_ms" }
      histogram_options { buckets: [ 1, 2 ] } },
    { },
    { metric_identifier { }
      histogram_options { } }
  ]
}
"""


def test_every_metric_control_problem_is_reported(tmp_path: Path) -> None:
    found = sorted(
        (str(d.span), triton(d)) for d in findings(lint_config(tmp_path, METRICS), "TC713")
    )
    assert found == [
        ("6:5", "metric control must specify 'histogram_options'"),
        ("6:5", "metric control must specify 'metric_identifier'"),
        ("7:25", "metric identifier must specify non-empty 'family'"),
        ("8:7", "histogram options must specify non-empty 'buckets'"),
    ]


def test_complete_metric_control_passes(tmp_path: Path) -> None:
    # only the first, complete, control of METRICS (no trailing comma: the config must parse)
    config = METRICS.replace(
        " },\n    { },\n    { metric_identifier { }\n      histogram_options { } }\n", " }\n"
    )
    assert "{ }" not in config
    diagnostics = lint_config(tmp_path, config)
    assert "TC009" not in {d.code for d in diagnostics}
    assert not findings(diagnostics, "TC713")


# TC714 metric-family-not-customizable
def test_family_not_customizable(tmp_path: Path) -> None:
    config = METRICS.replace(
        'family: "nv_inference_first_response_histogram_ms"', 'family: "nv_inference_count"'
    )
    d = one(lint_config(tmp_path, config), "TC714")
    assert d.severity is Severity.WARNING
    assert str(d.span) == "4:35"
    assert triton(d) == (
        "Metric family 'nv_inference_count' in 'metric_identifier' is not a customizable "
        "metric in Triton core."
    )


def test_customizable_family_passes(tmp_path: Path) -> None:
    assert not findings(lint_config(tmp_path, METRICS), "TC714")


# TC721-TC723 TRITON_BATCH_STRATEGY_PATH
def strategy(value: str, extra: str = "") -> str:
    return (
        f'backend: "python"\n{extra}parameters {{\n  key: "TRITON_BATCH_STRATEGY_PATH"\n'
        f'  value {{ string_value: "{value}" }}\n}}\n'
    )


def test_batch_strategy_with_sequence_batching(tmp_path: Path) -> None:
    found = lint_config(tmp_path, strategy("/nowhere.so", "sequence_batching { }\n"))
    d = one(found, "TC721")
    assert str(d.span) == "3:1"
    assert triton(d) == (
        "TRITON_BATCH_STRATEGY_PATH cannot be specified with sequence batcher, using default "
        "batching strategy"
    )
    # Triton stops there: the path itself is not checked
    assert not findings(found, "TC722") and not findings(found, "TC723")


def test_batch_strategy_with_dynamic_batching_passes_tc721(tmp_path: Path) -> None:
    config = strategy("/nowhere.so", "dynamic_batching { }\n")
    assert not findings(lint_config(tmp_path, config), "TC721")


def test_batch_strategy_outside_model_dir(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, strategy("/opt/lib/batch.so")), "TC722")
    assert d.severity is Severity.ERROR
    assert str(d.span) == "4:25"
    assert triton(d) == "Batching library path escapes model repository."


def test_batch_strategy_escaping_by_dotdot(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, strategy("/models/m/../other/batch.so")), "TC722")
    assert triton(d) == "Batching library path escapes model repository."


def test_relative_batch_strategy_is_an_error(tmp_path: Path) -> None:
    # issue 23 item 11: Triton 2.51 looks for it from its working directory ("Batching library
    # path not found: batch.so"), newer releases refuse it as outside the model directory
    d = one(
        lint_config(tmp_path, strategy("batch.so"), files={**MODEL_PY, "batch.so": ""}), "TC722"
    )
    assert d.severity is Severity.ERROR
    assert "working directory" in d.message


def test_empty_batch_strategy(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, strategy("")), "TC722")
    assert triton(d) == "Parent path and child path must be non-empty"


def test_batch_strategy_as_seen_here(tmp_path: Path) -> None:
    model_dir = tmp_path / "repo" / "m"
    files = {**MODEL_PY, "lib/batch.so": "\x7fELF"}
    found = lint_config(tmp_path, strategy(f"{model_dir}/lib/batch.so"), files=files)
    assert not findings(found, "TC722") and not findings(found, "TC723")
    missing = lint_config(tmp_path / "x", strategy(f"{tmp_path}/x/repo/m/lib/nope.so"))
    d = one(missing, "TC723")
    assert d.severity is Severity.ERROR
    assert str(d.span) == "4:25"
    assert triton(d) == f"Batching library path not found: {tmp_path}/x/repo/m/lib/nope.so"


def test_batch_strategy_under_a_server_mount(tmp_path: Path) -> None:
    files = {**MODEL_PY, "batch.so": "\x7fELF"}
    found = lint_config(tmp_path, strategy("/models/m/batch.so"), files=files)
    assert not findings(found, "TC722") and not findings(found, "TC723")
    # issue 23 item 11: wherever the repository is mounted, its m/ has no batch.so
    d = one(lint_config(tmp_path / "x", strategy("/models/m/batch.so"), files=MODEL_PY), "TC723")
    assert d.severity is Severity.ERROR
    assert triton(d) == "Batching library path not found: /models/m/batch.so"
    assert 'model-files = "optional"' in d.message


def test_batch_strategy_fetched_at_deploy_time_is_a_warning(tmp_path: Path) -> None:
    config = strategy("/models/m/batch.so")
    d = one(lint_config(tmp_path, config, files=MODEL_PY, model_files="optional"), "TC723")
    assert d.severity is Severity.WARNING
    # a path naming this very directory is not a guess: the file is not there
    exact = strategy(f"{tmp_path}/x/repo/m/nope.so")
    here = lint_config(tmp_path / "x", exact, files=MODEL_PY, model_files="optional")
    assert one(here, "TC723").severity is Severity.ERROR


# TC731 rate-limiter-resource-global-and-per-device
def limited(*resources: str) -> str:
    groups = ",\n".join(
        f"  {{ kind: KIND_CPU rate_limiter {{ resources [ {r} ] }} }}" for r in resources
    )
    return f'backend: "python"\ninstance_group [\n{groups}\n]\n'


def test_resource_global_and_per_device_in_one_model(tmp_path: Path) -> None:
    config = limited('{ name: "R" global: true count: 1 }', '{ name: "R" count: 1 }')
    found = findings(lint_config(tmp_path, config), "TC731")
    assert [str(d.span) for d in found] == ["3:55", "4:55"]
    assert all(d.severity is Severity.WARNING for d in found)
    assert triton(found[0]) == (
        'Resource "R" is present as both global and device-specific resource in the model '
        "configuration."
    )
    assert "per-device in instance_group 1" in found[0].message


def test_resource_conflict_across_models(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_model(root, "a", limited('{ name: "R" global: true count: 1 }'), files=MODEL_PY)
    make_model(root, "b", limited('{ name: "R" count: 2 }'), files=MODEL_PY)
    make_model(root, "c", limited('{ name: "S" count: 2 }'), files=MODEL_PY)
    found = findings(lint_repo(root), "TC731")
    assert sorted(d.model or "" for d in found) == ["a", "b"]
    assert "model 'b'" in next(d.message for d in found if d.model == "a")


def test_passive_instances_register_no_resources(tmp_path: Path) -> None:
    config = limited('{ name: "R" global: true count: 1 }', '{ name: "R" count: 1 }').replace(
        '{ kind: KIND_CPU rate_limiter { resources [ { name: "R" count',
        '{ kind: KIND_CPU passive: true rate_limiter { resources [ { name: "R" count',
    )
    assert not findings(lint_config(tmp_path, config), "TC731")


def test_consistent_resources_pass(tmp_path: Path) -> None:
    config = limited('{ name: "R" count: 1 }', '{ name: "R" count: 2 }')
    assert not findings(lint_config(tmp_path, config), "TC731")


# TC741-TC742 EXECUTION_ENV_PATH
def env(value: str, backend: str = "python") -> str:
    return (
        f'backend: "{backend}"\nparameters {{\n  key: "EXECUTION_ENV_PATH"\n'
        f'  value {{ string_value: "{value}" }}\n}}\n'
    )


def test_missing_execution_env(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, env("$$TRITON_MODEL_DIRECTORY/envs/py310.tar.gz")), "TC741")
    assert d.severity is Severity.ERROR  # a real Triton 2.51 refuses it (tests/triton)
    assert str(d.span) == "4:25"
    assert d.triton is not None and d.triton.message is not None
    assert d.triton.message.startswith("Failed to get the canonical path for ")
    assert d.triton.message.endswith("m/envs/py310.tar.gz.")
    assert "m/envs/py310.tar.gz" in d.message


def test_present_execution_env_passes(tmp_path: Path) -> None:
    files = {**MODEL_PY, "envs/py310.tar.gz": "", "py311.tar.gz": ""}
    nested = env("$$TRITON_MODEL_DIRECTORY/envs/py310.tar.gz")
    assert not findings(lint_config(tmp_path, nested, files=files), "TC741")
    top = env("$$TRITON_MODEL_DIRECTORY/py311.tar.gz")
    assert not findings(lint_config(tmp_path / "t", top, files=files), "TC741")


def test_execution_env_outside_model_dir_is_not_checked(tmp_path: Path) -> None:
    config = env("$$TRITON_MODEL_DIRECTORY/../shared/env.tar.gz")
    assert not findings(lint_config(tmp_path, config), "TC741")


def test_execution_env_of_another_backend_is_not_checked(tmp_path: Path) -> None:
    files = {"1/model.onnx": ""}
    config = env("$$TRITON_MODEL_DIRECTORY/env.tar.gz", backend="onnxruntime")
    found = lint_config(tmp_path, config, files=files)
    assert not findings(found, "TC741") and not findings(found, "TC742")


def test_relative_execution_env(tmp_path: Path) -> None:
    d = one(lint_config(tmp_path, env("env.tar.gz")), "TC742")
    assert str(d.span) == "4:25"
    assert "$$TRITON_MODEL_DIRECTORY/env.tar.gz" in d.message


def test_absolute_execution_env_is_not_relative(tmp_path: Path) -> None:
    assert not findings(lint_config(tmp_path, env("/opt/envs/env.tar.gz")), "TC742")


# Triton's own QA cases for this family: each expected message is in the finding's
QA_CASES = [
    ("L0_model_config/model_metrics/invalid_config/empty_buckets", "TC713"),
    ("L0_model_config/model_metrics/invalid_config/empty_metric_family", "TC713"),
    ("L0_model_config/model_metrics/invalid_config/no_buckets", "TC713"),
    ("L0_model_config/model_metrics/invalid_config/no_histogram_options", "TC713"),
    ("L0_model_config/model_metrics/invalid_config/no_metric_family", "TC713"),
    ("L0_model_config/model_metrics/invalid_config/no_metric_identifier", "TC713"),
    ("L0_model_config/model_metrics/valid_config_with_warn/unknown_metric_family", "TC714"),
    ("other_qa/server/L0_rate_limiter/conflicting_resource_types", "TC731"),
    ("other_qa/server/L0_response_cache/decoupled_cache", "TC712"),
]


def qa_copy(case: str, work: Path) -> Path:
    """The case dir copied under `work`, each model given the `1/` its test.sh creates."""
    source = require_corpus(TRITON_QA) / case
    target = work / source.name
    shutil.copytree(source, target)
    for config in target.rglob("config.pbtxt"):
        (config.parent / "1").mkdir(exist_ok=True)
    return target


@pytest.mark.parametrize(("case", "code"), QA_CASES, ids=[c.rsplit("/", 1)[1] for c, _ in QA_CASES])
def test_triton_qa_case(tmp_path: Path, case: str, code: str) -> None:
    case_dir = qa_copy(case, tmp_path)
    expected = (case_dir / "expected").read_text(encoding="utf-8").splitlines()[0].strip()
    messages = [triton(d) or "" for d in findings(lint_repo(case_dir), code)]
    # the response-cache case is matched case-insensitively by Triton's QA (grep -i)
    assert any(expected.lower() in m.lower() for m in messages), (expected, messages)


def test_valid_model_metrics_qa_case(tmp_path: Path) -> None:
    case = "L0_model_config/model_metrics/valid_config/valid_model_metrics"
    found = lint_repo(qa_copy(case, tmp_path))
    assert not [d for d in found if d.code.startswith("TC7")]


# TC732 rate-limiter-resource-above-limit
def test_resource_above_the_server_limit(tmp_path: Path) -> None:
    config = limited('{ name: "R" count: 4 }')
    given = (("R", 2, None),)
    d = one(lint_config(tmp_path, config, rate_limit=True, rate_limit_resources=given), "TC732")
    assert (str(d.span), d.severity) == ("3:66", Severity.ERROR)
    assert triton(d) == (
        'Resource count for "R" is limited to 2 which will prevent scheduling of one or more '
        "model instances, the minimum required count is 4"
    )
    assert "on device 0" in d.message  # a CPU instance is on device 0


def test_resource_within_the_limit_passes(tmp_path: Path) -> None:
    config = limited('{ name: "R" count: 4 }')
    for given in ((("R", 4, None),), (("R", 8, 0),), (("R", 1, None), ("R", 4, 0))):
        found = lint_config(tmp_path / str(len(given)), config, rate_limit_resources=given)
        assert not findings(found, "TC732"), given


def test_resource_the_server_does_not_give_is_limited_to_zero(tmp_path: Path) -> None:
    config = limited('{ name: "R" count: 1 }', '{ name: "OTHER" count: 1 }')
    found = findings(lint_config(tmp_path, config, rate_limit_resources=(("R", 1, None),)), "TC732")
    assert [(str(d.span), triton(d)) for d in found] == [
        (
            "4:70",
            'Resource count for "OTHER" is limited to 0 which will prevent scheduling of one or '
            "more model instances, the minimum required count is 1",
        )
    ]
    assert found[0].severity is Severity.WARNING  # --rate-limit unknown


def test_global_resource_takes_the_largest_count_of_any_device(tmp_path: Path) -> None:
    config = limited('{ name: "G" global: true count: 3 }')
    ok = lint_config(tmp_path / "ok", config, rate_limit_resources=(("G", 3, 1),))
    assert not findings(ok, "TC732")
    short = lint_config(tmp_path / "short", config, rate_limit_resources=(("G", 2, 1),))
    assert "limited to 2" in (triton(one(short, "TC732")) or "")


def test_gpu_instances_are_checked_per_gpu(tmp_path: Path) -> None:
    config = (
        'backend: "python"\ninstance_group [ { kind: KIND_GPU gpus: [ 0, 1 ] '
        'rate_limiter { resources [ { name: "R" count: 2 } ] } } ]\n'
    )
    given = (("R", 2, 0), ("R", 1, 1))
    d = one(lint_config(tmp_path, config, gpus=(0, 1), rate_limit_resources=given), "TC732")
    assert "on device 1" in d.message and "limited to 1" in (triton(d) or "")


def test_no_explicit_resources_or_rate_limit_off_checks_nothing(tmp_path: Path) -> None:
    config = limited('{ name: "R" count: 4 }')
    assert not findings(lint_config(tmp_path / "a", config, rate_limit=True), "TC732")
    off = lint_config(
        tmp_path / "b", config, rate_limit=False, rate_limit_resources=(("R", 1, None),)
    )
    assert not findings(off, "TC732")


def test_rate_limit_resource_on_the_command_line(tmp_path: Path) -> None:
    import json

    from clikit import run

    make_model(tmp_path / "repo", "m", limited('{ name: "R" count: 4 }'), files=MODEL_PY)
    args = ["lint", str(tmp_path / "repo"), "--select", "TC732", "--format", "json"]
    result = run(*args, "--rate-limit", "execution_count", "--rate-limit-resource", "R:2:0")
    assert result.returncode == 1, result.stderr
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["TC732"]
    bad = run(*args, "--rate-limit-resource", "R")
    assert bad.returncode == 2 and "expected <name>:<count>[:<device>]" in bad.stderr


def test_rate_limit_resource_in_the_configuration(tmp_path: Path) -> None:
    import json

    from clikit import run

    make_model(tmp_path / "repo", "m", limited('{ name: "R" count: 4 }'), files=MODEL_PY)
    args = ["lint", str(tmp_path / "repo"), "--select", "TC732", "--format", "json"]
    (tmp_path / "tritoncfg.toml").write_text('rate-limit-resource = ["R:2"]\n')
    assert [d["severity"] for d in json.loads(run(*args).stdout)["diagnostics"]] == ["warning"]
    (tmp_path / "tritoncfg.toml").write_text('rate-limit-resource = ["R:4"]\n')
    assert json.loads(run(*args).stdout)["diagnostics"] == []
    (tmp_path / "tritoncfg.toml").write_text('rate-limit-resource = ["R"]\n')
    bad = run(*args)
    assert bad.returncode == 2 and "rate-limit-resource.0" in bad.stderr
