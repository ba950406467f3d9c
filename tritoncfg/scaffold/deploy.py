"""`new --deploy kserve|k8s`: the manifests, as YAML text (scaffold/yamltext.py), and what a
deploy target's options mean for each other."""

from __future__ import annotations

from pathlib import Path

from tritoncfg.confined import read_regular
from tritoncfg.scaffold import kserve, kubernetes
from tritoncfg.scaffold.models import ModelFiles
from tritoncfg.scaffold.server import Server
from tritoncfg.scaffold.spec import ScaffoldError
from tritoncfg.scaffold.yamltext import yaml_documents

DEPLOY = ("kserve", "k8s")


def manifests(
    kind: str, name: str, storage_uri: str, server: Server, *, python_models: bool = False
) -> dict[str, str]:
    """Path under `deploy/` -> manifest text. `python_models`: the repository has python
    backend models (they need a larger /dev/shm)."""
    if kind not in DEPLOY:
        raise ScaffoldError(f"unknown deploy target {kind!r} (one of {', '.join(DEPLOY)})")
    if not storage_uri:
        raise ScaffoldError(
            "--deploy needs --storage-uri: where the cluster reads the model repository "
            "(e.g. gs://bucket/model_repository, s3://bucket/model_repository)"
        )
    if kind == "kserve":
        text = yaml_documents(kserve.HEADER, [kserve.inference_service(name, storage_uri, server)])
        return {"kserve/inferenceservice.yaml": text}
    documents = kubernetes.deployment_and_service(
        name, storage_uri, server, python_models=python_models
    )
    return {"k8s/tritonserver.yaml": yaml_documents(kubernetes.HEADER.format(name=name), documents)}


def deploy_warnings(kind: str, server: Server) -> list[str]:
    """What a valid manifest will not do as the options suggest."""
    warning = kserve.poll_warning(server) if kind == "kserve" else None
    return [warning] if warning else []


def has_python_models(repository: Path, planned: list[ModelFiles]) -> bool:
    """Whether a model to write, or one in the repository, runs on the python backend: its
    config says `backend: "python"` (BLS and ensemble-step templates included)."""
    from tritoncfg.text import parse

    configs = [m.files.get("config.pbtxt") for m in planned]
    if repository.is_dir():
        for path in sorted(repository.glob("*/config.pbtxt")):
            try:
                configs.append(read_regular(path).decode("utf-8"))
            except (OSError, UnicodeDecodeError):
                continue  # lint reports an unreadable config; the manifest does not depend on it
    return any(isinstance(c, str) and parse(c).message.backend == "python" for c in configs)


__all__ = ["DEPLOY", "deploy_warnings", "has_python_models", "manifests"]
