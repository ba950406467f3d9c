"""`new PATH ...` as one request: the project's files, its models and manifests, as a Plan."""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path

from tritoncfg.record import record
from tritoncfg.scaffold.deploy import Server, manifests, server_command
from tritoncfg.scaffold.ignore import gitignore_lines, readme_list
from tritoncfg.scaffold.install import install_values
from tritoncfg.scaffold.models import TEMPLATES, ModelFiles, default_tensors, from_template
from tritoncfg.scaffold.plan import Plan
from tritoncfg.scaffold.resources import render, tree_files
from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec, validate_name

REPOSITORY = "model_repository"  # Triton loads every folder of it as a model: models only
DEPLOY_DIR = "deploy"
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


@record
class Request:
    root: Path
    model: str | None = None
    template: str | None = None
    from_model: Path | None = None
    inputs: list[TensorSpec] = field(default_factory=list)
    outputs: list[TensorSpec] = field(default_factory=list)
    target: str = "model"  # the model a BLS model calls
    deploy: str | None = None
    storage_uri: str = ""
    server: Server = field(default_factory=lambda: Server(f"/models/{REPOSITORY}"))
    tritoncfg_spec: str | None = None  # what CI and the hooks install; None: this version


def build_plan(request: Request) -> Plan:
    """Every file of the request, computed (and every input checked) before any is written."""
    plan = Plan(request.root, REPOSITORY)
    project = request.root.resolve().name or "models"
    values = {
        "project": project,
        "repository": REPOSITORY,
        "server_command": server_command(request.server),
        "ignored_model_files": gitignore_lines(REPOSITORY),
        "model_file_patterns": readme_list(),
        **install_values(request.tritoncfg_spec),
    }
    for source, target in tree_files("repository"):
        plan.project[target] = render(source, **values)
    if request.model is not None or request.from_model is not None:
        plan.models.extend(_models(request))
    elif request.template or request.inputs or request.outputs:
        raise ScaffoldError("--template, --input and --output describe a model: give --model NAME")
    if request.deploy is not None:
        name = deploy_name(project)
        for relpath, text in manifests(
            request.deploy, name, request.storage_uri, request.server
        ).items():
            plan.owned[f"{DEPLOY_DIR}/{relpath}"] = text
    return plan


def _models(request: Request) -> list[ModelFiles]:
    from tritoncfg.scaffold.from_model import from_model_file

    name = request.model or (request.from_model.stem if request.from_model else None)
    assert name is not None
    validate_name(name)
    if request.from_model is not None:
        if request.template is not None:
            raise ScaffoldError("give --template or --from-model, not both")
        return [from_model_file(name, request.from_model, request.inputs, request.outputs)]
    template = request.template or "onnx"
    if template not in TEMPLATES:
        raise ScaffoldError(f"unknown template {template!r} (one of {', '.join(TEMPLATES)})")
    inputs, outputs = default_tensors(template)
    if template == "bls":
        validate_name(request.target, "--target model name")
    return from_template(
        template,
        name,
        request.inputs or inputs,
        request.outputs or outputs,
        target=request.target,
    )


def deploy_name(project: str) -> str:
    """A Kubernetes object name (a DNS label) from the project's folder name."""
    name = re.sub(r"[^a-z0-9-]+", "-", project.lower()).strip("-")[:63].strip("-")
    if not _DNS_LABEL.fullmatch(name):
        raise ScaffoldError(f"cannot make a Kubernetes name from {project!r}")
    return name


__all__ = ["DEPLOY_DIR", "REPOSITORY", "Request", "build_plan", "deploy_name"]
