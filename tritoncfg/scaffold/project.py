"""`new PATH ...` as one request: the project's files, its models and manifests, as a Plan."""

from __future__ import annotations

import re
from pathlib import Path

from tritoncfg.record import field, record
from tritoncfg.scaffold.deploy import has_python_models, manifests
from tritoncfg.scaffold.destination import check_repository_request, destination
from tritoncfg.scaffold.ignore import gitignore_lines, readme_list
from tritoncfg.scaffold.install import install_values
from tritoncfg.scaffold.models import TEMPLATES, ModelFiles, default_tensors, from_template
from tritoncfg.scaffold.plan import Plan
from tritoncfg.scaffold.resources import render, tree_files
from tritoncfg.scaffold.server import Server, server_command
from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec, check_unique, validate_name

REPOSITORY = "model_repository"  # Triton loads every folder of it as a model: models only
DEPLOY_DIR = "deploy"
_DNS_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")  # RFC 1035, as a Service name must be
_NAME_PREFIX = "triton-"  # before a name that starts with a digit


@record
class Request:
    root: Path
    model: str | None = None
    template: str | None = None
    from_model: Path | None = None
    inputs: list[TensorSpec] = field(default_factory=list)
    outputs: list[TensorSpec] = field(default_factory=list)
    target: str | None = None  # the model a BLS model calls
    deploy: str | None = None
    storage_uri: str = ""
    server: Server = field(default_factory=lambda: Server(f"/models/{REPOSITORY}"))
    tritoncfg_spec: str | None = None  # what CI and the hooks install; None: this version


def build_plan(request: Request) -> Plan:
    """Every file of the request, computed (and every input checked) before any is written."""
    where = destination(request.root, REPOSITORY)
    has_model = request.model is not None or request.from_model is not None
    if not where.project:
        check_repository_request(request.root, has_model, request.deploy)
    plan = Plan(request.root, where.repository)
    project = request.root.resolve().name or "models"
    values = {
        "project": project,
        "repository": REPOSITORY,
        "server_command": server_command(request.server),
        "ignored_model_files": gitignore_lines(REPOSITORY),
        "model_file_patterns": readme_list(),
        **install_values(request.tritoncfg_spec),
    }
    for source, target in tree_files("repository") if where.project else ():
        plan.project[target] = render(source, **values)
    if has_model:
        plan.models.extend(_models(request, request.root / where.repository))
    elif request.template or request.inputs or request.outputs:
        raise ScaffoldError("--template, --input and --output describe a model: give --model NAME")
    if request.deploy is not None:
        name = deploy_name(project)
        python = has_python_models(request.root / REPOSITORY, plan.models)
        for relpath, text in manifests(
            request.deploy, name, request.storage_uri, request.server, python_models=python
        ).items():
            plan.owned[f"{DEPLOY_DIR}/{relpath}"] = text
    return plan


def _models(request: Request, repository: Path) -> list[ModelFiles]:
    from tritoncfg.scaffold.from_model import from_model_file

    if request.model is not None:
        name = request.model
    else:
        name = request.from_model.stem if request.from_model else ""
    validate_name(name)
    check_unique(request.inputs, "--input")
    check_unique(request.outputs, "--output")
    if request.from_model is not None:
        if request.template is not None:
            raise ScaffoldError("give --template or --from-model, not both")
        return [from_model_file(name, request.from_model, request.inputs, request.outputs)]
    template = request.template or "onnx"
    if template not in TEMPLATES:
        raise ScaffoldError(f"unknown template {template!r} (one of {', '.join(TEMPLATES)})")
    inputs, outputs = default_tensors(template)
    if template == "bls":
        return _bls(request, name, repository)
    return from_template(template, name, request.inputs or inputs, request.outputs or outputs)


def _bls(request: Request, name: str, repository: Path) -> list[ModelFiles]:
    """A bls model forwards each request to its target: the target's tensors and batch size."""
    from tritoncfg.scaffold.target import target_config, target_tensors

    if request.inputs or request.outputs:
        raise ScaffoldError(
            "a bls model forwards the tensors of its --target: they come from the target's "
            "config, not from --input / --output"
        )
    config = target_config(repository, request.target, name)
    inputs, outputs = target_tensors(config)
    target = request.target or ""  # target_config refuses None
    return from_template("bls", name, inputs, outputs, target, config.max_batch_size)


def deploy_name(project: str) -> str:
    """A Kubernetes object name from the project's folder name: an RFC 1035 label, as a Service
    and KServe's InferenceService need (`My_App` -> `my-app`, `123` -> `triton-123`)."""
    name = re.sub(r"[^a-z0-9-]+", "-", project.lower()).strip("-")
    if name[:1].isdigit():
        name = _NAME_PREFIX + name
    name = name[:63].strip("-")
    if not _DNS_LABEL.fullmatch(name):
        raise ScaffoldError(f"cannot make a Kubernetes name from {project!r}")
    return name


__all__ = ["DEPLOY_DIR", "REPOSITORY", "Request", "build_plan", "deploy_name"]
