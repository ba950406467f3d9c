"""The Kubernetes Job template: valid YAML of an Indexed Job on a GPU node whose probe command is
a real `tritoncfg probe` invocation (run here on CPU, shard by shard, to prove it)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tritoncfg.probe.report import schema

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")

JOB = Path(__file__).resolve().parents[2] / "templates" / "k8s" / "probe-job.yaml"


@pytest.fixture(scope="module")
def job() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(JOB.read_text(encoding="utf-8"))
    return document


def container(job: dict[str, Any]) -> dict[str, Any]:
    (found,) = job["spec"]["template"]["spec"]["containers"]
    return found  # type: ignore[no-any-return]


def test_an_indexed_job_with_one_completion_per_shard_on_a_gpu_node(job: dict[str, Any]) -> None:
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    env = {e["name"]: e["value"] for e in container(job)["env"]}
    assert int(env["SHARDS"]) == spec["completions"]
    assert container(job)["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert spec["template"]["spec"]["restartPolicy"] == "Never"
    rule = spec["podFailurePolicy"]["rules"][0]
    assert rule["action"] == "FailIndex" and rule["onExitCodes"]["values"] == [1, 3]
    mounts = {m["name"]: m["mountPath"] for m in container(job)["volumeMounts"]}
    assert mounts == {"models": "/models", "reports": "/reports"}


def test_the_command_is_a_working_probe_invocation(job: dict[str, Any], tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    from probe.probekit import reshape_repository

    models = reshape_repository(tmp_path / "models")
    reports = tmp_path / "reports"
    reports.mkdir()
    (script,) = container(job)["args"]
    words = shlex.split(script)
    assert words[:3] == ["exec", "tritoncfg", "probe"]
    shards = container(job)["env"][0]["value"]
    for index in range(int(shards)):
        text = (
            " ".join(words[3:])
            .replace("${JOB_COMPLETION_INDEX}", str(index))
            .replace("${SHARDS}", shards)
            .replace("/models", str(models))
            .replace("/reports", str(reports))
        )
        done = subprocess.run(
            [sys.executable, "-m", "tritoncfg", "probe", *text.split()],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert done.returncode in (0, 1), done.stderr  # 1: the broken twin's shard
    found = {}
    for report in sorted(reports.glob("probe-*.json")):
        document = json.loads(report.read_text())
        jsonschema.Draft202012Validator(schema()).validate(document)
        found.update({m["model"]: m["status"] for m in document["models"]})
    assert sorted(p.name for p in reports.iterdir()) == [f"probe-{i}.json" for i in range(4)]
    assert found == {"broken": "FAIL", "healthy": "OK"}  # every model, in exactly one shard
