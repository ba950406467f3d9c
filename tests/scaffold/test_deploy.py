"""`new --deploy kserve|k8s` and `--model-control`: the manifests, parsed back field by field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scaffold.scaffoldkit import new

yaml = pytest.importorskip("yaml")


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def test_kserve_inference_service(tmp_path: Path) -> None:
    root = tmp_path / "My_Models"
    done = new(
        root, "-m", "m", "--deploy", "kserve", "--storage-uri", "gs://bucket/model_repository",
        "--image-tag", "25.01-py3", "--gpu-limit", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (isvc,) = _documents(root / "deploy" / "kserve" / "inferenceservice.yaml")
    assert isvc["apiVersion"] == "serving.kserve.io/v1beta1"
    assert isvc["kind"] == "InferenceService"
    assert isvc["metadata"]["name"] == "my-models"  # a DNS label
    model = isvc["spec"]["predictor"]["model"]
    assert model["modelFormat"] == {"name": "triton"}
    assert model["protocolVersion"] == "v2"
    assert model["runtimeVersion"] == "25.01-py3"
    assert model["storageUri"] == "gs://bucket/model_repository"
    assert model["args"] == ["--model-control-mode=none"]
    assert model["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert model["resources"]["requests"]["nvidia.com/gpu"] == "2"
    assert model["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": 8080}
    assert model["livenessProbe"]["httpGet"] == {"path": "/v2/health/live", "port": 8080}


def test_kubernetes_deployment_and_service(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    done = new(root, "--deploy", "k8s", "--storage-uri", "s3://bucket/repo")
    assert done.returncode == 0, done.stderr
    deployment, service = _documents(root / "deploy" / "k8s" / "tritonserver.yaml")
    assert (deployment["apiVersion"], deployment["kind"]) == ("apps/v1", "Deployment")
    pod = deployment["spec"]["template"]
    assert deployment["spec"]["selector"]["matchLabels"] == pod["metadata"]["labels"]
    (container,) = pod["spec"]["containers"]
    assert container["image"] == "nvcr.io/nvidia/tritonserver:26.07-py3"
    assert container["command"] == ["tritonserver"]
    assert container["args"] == ["--model-repository=s3://bucket/repo", "--model-control-mode=none"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": 8000, "grpc": 8001, "metrics": 8002}
    assert container["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": "http"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/v2/health/live", "port": "http"}
    gpu = {"nvidia.com/gpu": "1"}  # and no CPU or memory unless asked for
    assert container["resources"] == {"requests": gpu, "limits": gpu}
    assert (service["apiVersion"], service["kind"]) == ("v1", "Service")
    assert service["spec"]["selector"] == pod["metadata"]["labels"]
    service_ports = {p["name"]: (p["port"], p["targetPort"]) for p in service["spec"]["ports"]}
    assert service_ports == {
        "http": (8000, "http"), "grpc": (8001, "grpc"), "metrics": (8002, "metrics"),
    }  # fmt: skip


@pytest.mark.parametrize(
    ("options", "flags"),
    [
        ([], ["--model-control-mode=none"]),
        (["--model-control", "poll"], ["--model-control-mode=poll", "--repository-poll-secs=15"]),
        (
            ["--model-control", "poll", "--poll-secs", "60"],
            ["--model-control-mode=poll", "--repository-poll-secs=60"],
        ),
        (["--model-control", "explicit"], ["--model-control-mode=explicit", "--load-model=*"]),
    ],
)
def test_model_control_flags(tmp_path: Path, options: list[str], flags: list[str]) -> None:
    root = tmp_path / "demo"
    done = new(root, "--deploy", "k8s", "--storage-uri", "/models", *options)
    assert done.returncode == 0, done.stderr
    deployment, _ = _documents(root / "deploy" / "k8s" / "tritonserver.yaml")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["--model-repository=/models", *flags]
    readme = (root / "README.md").read_text()
    assert " ".join(["tritonserver --model-repository=$(pwd)/model_repository", *flags]) in readme


def test_no_gpu(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    new(root, "--deploy", "k8s", "--storage-uri", "/models", "--gpu-limit", "0")
    deployment, _ = _documents(root / "deploy" / "k8s" / "tritonserver.yaml")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["resources"] == {}
    args = ["--deploy", "k8s", "--storage-uri", "/models", "--cpu", "4", "--memory", "16Gi"]
    assert new(root, *args, "--force").returncode == 0
    deployment, _ = _documents(root / "deploy" / "k8s" / "tritonserver.yaml")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    amounts = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
    assert container["resources"] == {"requests": amounts, "limits": amounts}


def test_deploy_needs_a_storage_uri(tmp_path: Path) -> None:
    done = new(tmp_path / "d", "--deploy", "kserve")
    assert done.returncode == 2 and "--deploy needs --storage-uri" in done.stderr
    assert not (tmp_path / "d").exists()


def test_a_changed_manifest_is_not_overwritten(tmp_path: Path) -> None:
    root = tmp_path / "d"
    assert new(root, "--deploy", "k8s", "--storage-uri", "/a").returncode == 0
    manifest = root / "deploy" / "k8s" / "tritonserver.yaml"
    before = manifest.read_text()
    again = new(root, "--deploy", "k8s", "--storage-uri", "/b")
    assert again.returncode == 1 and "exists and differs" in again.stderr
    assert manifest.read_text() == before
    assert new(root, "--deploy", "k8s", "--storage-uri", "/b", "--force").returncode == 0
    assert "--model-repository=/b" in manifest.read_text()
