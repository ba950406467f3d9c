"""The Kubernetes Deployment and Service of `new --deploy k8s`, as dicts for yaml_documents.

Shaped after Triton's Helm charts (`deploy/k8s-onprem`, `deploy/gcp`): ports 8000 http, 8001
grpc, 8002 metrics; `runAsUser: 1000`. Where the repository is, decides what the pod needs to
read it (Triton's docs/user_guide/model_repository.md): a path in the container is a volume,
`s3://` and `as://` read credentials from the environment, `gs://` from the file
GOOGLE_APPLICATION_CREDENTIALS names. Python backend models exchange tensors through /dev/shm,
which a container gets only 64 MB of (python_backend's README, "Managing Shared Memory").
"""

from __future__ import annotations

from typing import Any

from tritoncfg.record import record
from tritoncfg.scaffold.server import IMAGE, Server, control_flags, health_probes, resources
from tritoncfg.scaffold.spec import ScaffoldError

PORTS = {"http": 8000, "grpc": 8001, "metrics": 8002}
GCS_KEY_DIR = "/var/secrets/storage"
# the secret keys each store's credentials are read from, exposed as variables of the same name
SECRET_VARIABLES = {
    "s3://": ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
    "as://": ("AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY"),
}


@record(frozen=True)
class Volume:
    name: str
    path: str  # where the container mounts it
    source: dict[str, Any]  # emptyDir, secret, persistentVolumeClaim
    read_only: bool = True


HEADER = """\
Kubernetes Deployment and Service of tritonserver
(scaffolded by `tritoncfg new --deploy k8s`).
The startupProbe gives the models 5 minutes to load before liveness counts.
Credentials for s3://, gs:// and as:// come from the secret
  {name}-storage
and a repository path in the container is the volume claim
  {name}-models
(tritoncfg's docs: new.md, "Serving")."""


def deployment_and_service(
    name: str, storage_uri: str, server: Server, *, python_models: bool
) -> list[dict[str, Any]]:
    labels = {"app": name}
    container: dict[str, Any] = {
        "name": "tritonserver",
        "image": f"{IMAGE}:{server.image_tag}",
        "command": ["tritonserver"],
        "args": [f"--model-repository={storage_uri}", *control_flags(server)],
        "ports": [{"name": port, "containerPort": number} for port, number in PORTS.items()],
        **health_probes("http"),
        "resources": resources(server, cpu=None, memory=None),
    }
    pod: dict[str, Any] = {"securityContext": {"runAsUser": 1000, "fsGroup": 1000}}
    pod["containers"] = [container]
    volumes = _storage(name, storage_uri, container)
    if python_models:
        volumes.append(Volume("dshm", "/dev/shm", {"emptyDir": {"medium": "Memory"}}, False))
    if volumes:
        container["volumeMounts"] = [
            {"name": v.name, "mountPath": v.path, **({"readOnly": True} if v.read_only else {})}
            for v in volumes
        ]
        pod["volumes"] = [{"name": v.name, **v.source} for v in volumes]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "selector": labels,
            "ports": [{"name": p, "port": n, "targetPort": p} for p, n in PORTS.items()],
        },
    }
    return [deployment, service]


def _storage(name: str, storage_uri: str, container: dict[str, Any]) -> list[Volume]:
    """What reading the repository takes: credentials from the secret `<name>-storage` as
    environment variables (s3://, as://) or a key file (gs://), or a volume for a path in the
    container (the claim `<name>-models`): sets the container's env, returns its volumes."""
    secret = f"{name}-storage"
    scheme = next((s for s in (*SECRET_VARIABLES, "gs://") if storage_uri.startswith(s)), None)
    if scheme in SECRET_VARIABLES:
        container["env"] = [
            {"name": v, "valueFrom": {"secretKeyRef": {"name": secret, "key": v}}}
            for v in SECRET_VARIABLES[scheme]
        ]
        return []
    if scheme == "gs://":
        key = f"{GCS_KEY_DIR}/key.json"
        container["env"] = [{"name": "GOOGLE_APPLICATION_CREDENTIALS", "value": key}]
        return [Volume("storage-credentials", GCS_KEY_DIR, {"secret": {"secretName": secret}})]
    if storage_uri.startswith("/") and storage_uri.strip("/"):
        claim = {"claimName": f"{name}-models", "readOnly": True}
        return [Volume("models", storage_uri, {"persistentVolumeClaim": claim})]
    raise ScaffoldError(
        f"--storage-uri {storage_uri!r}: Triton reads a model repository from s3://, gs://, "
        "as:// or an absolute path in the container (other than /)"
    )


__all__ = ["HEADER", "PORTS", "SECRET_VARIABLES", "deployment_and_service"]
