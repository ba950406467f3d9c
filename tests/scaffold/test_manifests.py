"""`new --deploy`: every manifest is valid where it is applied (Kubernetes' schemas, KServe's
InferenceService schema) and passes yamllint, whatever the project is named; the pod gets what
the repository needs (startup probe, /dev/shm, storage credentials or volume, resources)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scaffold.kserve_schema import inference_service_errors
from scaffold.manifestkit import documents, kubernetes_errors, manifest_errors
from scaffold.scaffoldkit import new

from tritoncfg.scaffold.deploy import has_python_models, manifests
from tritoncfg.scaffold.server import Server
from tritoncfg.scaffold.spec import ScaffoldError

K8S = Path("deploy") / "k8s" / "tritonserver.yaml"
KSERVE = Path("deploy") / "kserve" / "inferenceservice.yaml"
NAMES = {"123": "triton-123", "on": "on", "null": "null", "My_App": "my-app"}


@pytest.mark.parametrize("project", list(NAMES))
def test_every_manifest_validates_whatever_the_project_is_named(
    tmp_path: Path, project: str
) -> None:
    """YAML would read `123`, `on` and `null` unquoted as a number, a boolean and nothing."""
    root = tmp_path / project
    k8s = new(root, "-m", "pre", "-t", "python", "--deploy", "k8s", "--storage-uri", "/models")
    assert k8s.returncode == 0, k8s.stderr
    kserve = new(root, "--deploy", "kserve", "--storage-uri", "gs://bucket/model_repository")
    assert kserve.returncode == 0, kserve.stderr
    written = sorted((root / "deploy").rglob("*.yaml"))
    assert written == [root / K8S, root / KSERVE]
    for path in written:
        assert manifest_errors(path) == [], path.read_text()
    deployment, service = documents(root / K8S)
    (isvc,) = documents(root / KSERVE)
    name = NAMES[project]
    assert deployment["metadata"] == service["metadata"] == {"name": name, "labels": {"app": name}}
    assert service["spec"]["selector"] == {"app": name}
    assert isvc["metadata"] == {"name": name}


def test_the_checks_refuse_what_the_old_templates_wrote() -> None:
    """The validators have teeth: a name read as a number, a misspelt field, a bad quantity."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a"}}
    assert kubernetes_errors(service) == []
    unquoted = {**service, "metadata": {"name": "a", "labels": {"app": 123}}}
    assert kubernetes_errors(unquoted) == [
        "Service: 123 is not of type 'string', 'null' at ['metadata', 'labels', 'app']"
    ]
    isvc = _inference_service(Server("/m"))
    assert inference_service_errors(isvc) == []
    isvc["metadata"]["name"] = 123
    isvc["spec"]["predictor"]["model"]["startupprobe"] = {}
    isvc["spec"]["predictor"]["model"]["resources"]["limits"]["memory"] = "2 Gi"
    errors = inference_service_errors(isvc)
    assert any(e.startswith("metadata.name: 123 is not of type 'string'") for e in errors)
    assert any("'startupprobe' was unexpected" in e for e in errors), errors
    assert any(e.startswith("spec.predictor.model.resources.limits.memory:") for e in errors)


def _inference_service(server: Server, uri: str = "s3://b/r") -> dict[str, Any]:
    (text,) = manifests("kserve", "demo", uri, server).values()
    return next(iter(documents_of(text)))


def documents_of(text: str) -> list[dict[str, Any]]:
    import yaml

    return [d for d in yaml.safe_load_all(text) if d is not None]


def _container(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    deployment, _ = documents_of(text)
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    return pod, container


def test_kserve_gets_a_startup_probe_and_the_resources_asked_for() -> None:
    model = _inference_service(Server("/m"))["spec"]["predictor"]["model"]
    assert model["startupProbe"] == {
        "httpGet": {"path": "/v2/health/ready", "port": 8080},
        "periodSeconds": 10,
        "failureThreshold": 30,
    }
    assert model["livenessProbe"]["initialDelaySeconds"] == 15  # counts after startup only
    defaults = {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"}  # kserve-tritonserver's
    assert model["resources"] == {"requests": defaults, "limits": defaults}
    asked = _inference_service(Server("/m", cpu="500m", memory="16Gi", gpus=0))
    amounts = {"cpu": "500m", "memory": "16Gi"}
    assert asked["spec"]["predictor"]["model"]["resources"] == {
        "requests": amounts,
        "limits": amounts,
    }
    assert inference_service_errors(asked) == []


@pytest.mark.parametrize("amount", ["", "0", "2 Gi", "-1", "lots", "1.5.2", "0.0m"])
def test_a_quantity_that_is_not_one_is_refused(tmp_path: Path, amount: str) -> None:
    done = new(tmp_path / "d", "--deploy", "kserve", "--storage-uri", "s3://b/r", "--cpu", amount)
    assert done.returncode == 2, done.stderr
    assert f"--cpu {amount!r} is not a Kubernetes quantity above 0" in done.stderr
    assert not (tmp_path / "d").exists()


def test_kserve_with_poll_warns_that_the_copy_never_changes(tmp_path: Path) -> None:
    root = tmp_path / "d"
    args = ["--deploy", "kserve", "--storage-uri", "s3://b/r"]
    quiet = new(root, *args)
    assert quiet.returncode == 0 and "warning" not in quiet.stderr, quiet.stderr
    done = new(root, *args, "--model-control", "poll", "--force")
    assert done.returncode == 0, done.stderr
    assert "tritoncfg: warning: --model-control poll with --deploy kserve: " in done.stderr
    assert "storage initializer makes once" in done.stderr
    (isvc,) = documents(root / KSERVE)
    assert "--model-control-mode=poll" in isvc["spec"]["predictor"]["model"]["args"]


def test_python_models_get_a_memory_backed_dev_shm(tmp_path: Path) -> None:
    """A python model already in the repository counts, as does one written by the same run."""
    root = tmp_path / "d"
    assert new(root, "-m", "clf").returncode == 0  # onnx: no /dev/shm
    assert not has_python_models(root / "model_repository", [])  # its config parsed: onnxruntime
    assert new(root, "--deploy", "k8s", "--storage-uri", "s3://b/r").returncode == 0
    pod, container = _container((root / K8S).read_text())
    assert "volumes" not in pod and "volumeMounts" not in container
    assert new(root, "-m", "pre", "-t", "bls", "--target", "clf").returncode == 0
    assert has_python_models(root / "model_repository", [])
    assert new(root, "--deploy", "k8s", "--storage-uri", "s3://b/r", "--force").returncode == 0
    pod, container = _container((root / K8S).read_text())
    assert pod["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
    assert container["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
    assert manifest_errors(root / K8S) == []


def _secret(variable: str) -> dict[str, Any]:
    return {
        "name": variable,
        "valueFrom": {"secretKeyRef": {"name": "demo-storage", "key": variable}},
    }


@pytest.mark.parametrize(
    ("uri", "env"),
    [
        ("s3://bucket/repo", [_secret("AWS_ACCESS_KEY_ID"), _secret("AWS_SECRET_ACCESS_KEY")]),
        ("s3://https://minio:9000/bucket/repo", [_secret("AWS_ACCESS_KEY_ID"), _secret("AWS_SECRET_ACCESS_KEY")]),
        ("as://account/container/repo", [_secret("AZURE_STORAGE_ACCOUNT"), _secret("AZURE_STORAGE_KEY")]),
    ],
)  # fmt: skip
def test_cloud_storage_reads_credentials_from_a_secret(uri: str, env: list[Any]) -> None:
    (text,) = manifests("k8s", "demo", uri, Server("/m")).values()
    pod, container = _container(text)
    assert container["env"] == env
    assert "volumes" not in pod
    assert [e for d in documents_of(text) for e in kubernetes_errors(d)] == []


def test_gcs_reads_a_key_file_from_a_secret() -> None:
    (text,) = manifests("k8s", "demo", "gs://bucket/repo", Server("/m")).values()
    pod, container = _container(text)
    key = "/var/secrets/storage/key.json"
    assert container["env"] == [{"name": "GOOGLE_APPLICATION_CREDENTIALS", "value": key}]
    assert pod["volumes"] == [
        {"name": "storage-credentials", "secret": {"secretName": "demo-storage"}}
    ]
    mount = {"name": "storage-credentials", "mountPath": "/var/secrets/storage", "readOnly": True}
    assert container["volumeMounts"] == [mount]
    assert [e for d in documents_of(text) for e in kubernetes_errors(d)] == []


def test_a_path_in_the_container_is_a_volume(tmp_path: Path) -> None:
    root = tmp_path / "d"
    done = new(root, "-m", "p", "-t", "python", "--deploy", "k8s", "--storage-uri", "/models/repo")
    assert done.returncode == 0, done.stderr
    pod, container = _container((root / K8S).read_text())
    assert container["args"][0] == "--model-repository=/models/repo"
    assert container["volumeMounts"] == [
        {"name": "models", "mountPath": "/models/repo", "readOnly": True},
        {"name": "dshm", "mountPath": "/dev/shm"},
    ]
    claim = {"claimName": "d-models", "readOnly": True}
    assert pod["volumes"][0] == {"name": "models", "persistentVolumeClaim": claim}
    assert "env" not in container


@pytest.mark.parametrize("uri", ["models", "/", "http://host/repo", "pvc://claim/repo"])
def test_a_repository_triton_cannot_read_is_refused(tmp_path: Path, uri: str) -> None:
    done = new(tmp_path / "d", "--deploy", "k8s", "--storage-uri", uri)
    assert done.returncode == 2
    assert f"--storage-uri {uri!r}: Triton reads a model repository from s3://" in done.stderr
    assert not (tmp_path / "d").exists()


def test_kserve_refuses_tritons_azure_form() -> None:
    with pytest.raises(ScaffoldError, match=r"KServe reads Azure blob storage as https://"):
        manifests("kserve", "demo", "as://account/container/repo", Server("/m"))
    azure = "https://account.blob.core.windows.net/container/repo"
    assert inference_service_errors(_inference_service(Server("/m"), azure)) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--poll-secs", "30"], "--poll-secs sets the poll interval of --model-control poll"),
        (["--model-control", "explicit", "--poll-secs", "30"], "--poll-secs sets the poll"),
        (["--gpu-limit", "2"], "--gpu-limit: only for the manifests of --deploy kserve|k8s"),
        (["--cpu", "2", "--memory", "4Gi"], "--cpu, --memory: only for the manifests of --deploy"),
        (["--storage-uri", "s3://b/r"], "--storage-uri: only for the manifests of --deploy"),
        (["--image-tag", "25.01-py3"], "--image-tag: only for the manifests of --deploy"),
    ],
)
def test_an_option_that_would_do_nothing_is_refused(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = new(tmp_path / "d", "-m", "m", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "d").exists()


def test_without_deploy_new_never_loads_pyyaml(tmp_path: Path) -> None:
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['tritoncfg', 'new', {str(tmp_path / 'd')!r}, '-m', 'm', '-t', 'python']\n"
        "try:\n    runpy.run_module('tritoncfg', run_name='__main__')\n"
        "except SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
        "print('yaml' in sys.modules)\n"
    )
    done = run_python(code)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stdout + done.stderr
    assert (tmp_path / "d" / "model_repository" / "m" / "config.pbtxt").is_file()


def run_python(code: str) -> Any:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
