"""`tritoncfg new PATH`: scaffold a model repository project (docs/new.md)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tritoncfg.cli.common import EXIT_FINDINGS, fail

if TYPE_CHECKING:
    from tritoncfg.scaffold.plan import Plan


class Template(StrEnum):
    onnx = "onnx"
    tensorrt = "tensorrt"
    python = "python"
    pytorch = "pytorch"
    ensemble = "ensemble"
    bls = "bls"


class Deploy(StrEnum):
    kserve = "kserve"
    k8s = "k8s"


class ModelControl(StrEnum):
    none = "none"
    poll = "poll"
    explicit = "explicit"


def new_command(
    path: Annotated[
        Path,
        typer.Argument(
            help="The project folder (created when missing), or a model repository to add "
            "--model to.",
            show_default=False,
        ),
    ],
    model: Annotated[
        str | None, typer.Option("--model", "-m", help="Add a model of this name.")
    ] = None,
    template: Annotated[
        Template | None,
        typer.Option(
            "--template",
            "-t",
            metavar="<template>",  # the choices in the help: a long metavar breaks mid-word
            help="The model's template: onnx (the default), tensorrt, python, pytorch, "
            "ensemble or bls.",
        ),
    ] = None,
    from_model: Annotated[
        Path | None,
        typer.Option(
            help="Add a model around this file (.onnx, .plan, .pt), copied into NAME/1/; "
            "its config is Triton's auto-complete of it (NAME: --model, else the file's stem)."
        ),
    ] = None,
    inputs: Annotated[
        list[str] | None,
        typer.Option("--input", help="A model input NAME:DTYPE:DIMS, e.g. image:FP32:3,224,224."),
    ] = None,
    outputs: Annotated[
        list[str] | None, typer.Option("--output", help="A model output NAME:DTYPE:DIMS.")
    ] = None,
    target: Annotated[
        str | None,
        typer.Option(
            help="The model a bls model calls: a model of the repository, whose tensors and "
            "max_batch_size the bls model takes.",
        ),
    ] = None,
    deploy: Annotated[
        Deploy | None,
        typer.Option(help="Add a KServe InferenceService or a Kubernetes Deployment + Service."),
    ] = None,
    storage_uri: Annotated[
        str | None,
        typer.Option(
            help="Where the cluster reads the model repository (s3://, gs://; with k8s also "
            "as:// or a path in the container). Needs --deploy."
        ),
    ] = None,
    model_control: Annotated[
        ModelControl, typer.Option(help="tritonserver --model-control-mode (Triton's default).")
    ] = ModelControl.none,
    poll_secs: Annotated[
        int | None,
        typer.Option(help="--repository-poll-secs with --model-control poll (default 15).", min=1),
    ] = None,
    image_tag: Annotated[
        str | None, typer.Option(help="The tritonserver image tag (default 26.07-py3).")
    ] = None,
    gpu_limit: Annotated[
        int | None,
        typer.Option(help="nvidia.com/gpu per server pod in the manifests (default 1).", min=0),
    ] = None,
    cpu: Annotated[
        str | None,
        typer.Option(help="CPU of the server pod, e.g. 4 or 500m (kserve: default 1)."),
    ] = None,
    memory: Annotated[
        str | None,
        typer.Option(help="Memory of the server pod, e.g. 16Gi (kserve: default 2Gi)."),
    ] = None,
    tritoncfg_spec: Annotated[
        str | None,
        typer.Option(
            help="The tritoncfg the CI workflow and pre-commit hooks install: a version "
            "(0.1.0), a path (a checkout, wheel or sdist) or a URL (git+https://...); "
            "default: this tritoncfg's version.",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace models and files that exist.")
    ] = False,
) -> None:
    """Scaffold a model repository project: README, .gitignore, pre-commit hooks, a GitHub
    workflow running `tritoncfg lint`, and models in PATH/model_repository/.

    Run in a terminal with no options, it asks what to add.

    Exit status: 0 written; 1 it would overwrite something (nothing is written; --force
    replaces); 2 a bad name, tensor, file or option.
    """
    from tritoncfg.scaffold.deploy import deploy_warnings
    from tritoncfg.scaffold.plan import Conflict
    from tritoncfg.scaffold.project import REPOSITORY, Request, build_plan
    from tritoncfg.scaffold.server import DEFAULT_GPUS, DEFAULT_IMAGE_TAG, DEFAULT_POLL_SECS, Server
    from tritoncfg.scaffold.spec import ScaffoldError, parse_tensor

    deployment = {
        "--storage-uri": storage_uri, "--image-tag": image_tag, "--gpu-limit": gpu_limit,
        "--cpu": cpu, "--memory": memory,
    }  # fmt: skip
    _refuse_unused(deploy, model_control, poll_secs, deployment)
    asked = model is None and not any((from_model, template, deploy, inputs, outputs))
    if asked and sys.stdin.isatty():
        model, template, from_model = _prompt()
    try:
        request = Request(
            path,
            model=model,
            template=template.value if template else None,
            from_model=from_model,
            inputs=[parse_tensor(t) for t in inputs or []],
            outputs=[parse_tensor(t) for t in outputs or []],
            target=target,
            deploy=deploy.value if deploy else None,
            storage_uri=storage_uri or "",
            server=Server(
                f"$(pwd)/{REPOSITORY}",
                model_control.value,
                poll_secs or DEFAULT_POLL_SECS,
                image_tag or DEFAULT_IMAGE_TAG,
                DEFAULT_GPUS if gpu_limit is None else gpu_limit,
                cpu,
                memory,
            ),
            tritoncfg_spec=tritoncfg_spec,
        )
        plan = build_plan(request)
        for warning in deploy_warnings(deploy.value, request.server) if deploy else []:
            sys.stderr.write(f"tritoncfg: warning: {warning}\n")
        done = plan.write(force=force)
    except Conflict as exc:
        sys.stderr.write(f"tritoncfg: error: {exc}\n")
        raise typer.Exit(EXIT_FINDINGS) from None
    except ScaffoldError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or path}: {exc.strerror or exc}")
    for line in done:
        typer.echo(line)
    if not done:
        typer.echo(f"{path}: nothing to do (everything is there)")
    for line in _next_steps(path, plan):
        typer.echo(f"next: {line}")
    raise typer.Exit(0)


def _refuse_unused(
    deploy: Deploy | None,
    model_control: ModelControl,
    poll_secs: int | None,
    deployment: Mapping[str, object],
) -> None:
    """An option that would change nothing is a mistake to point out, not to ignore."""
    if poll_secs is not None and model_control is not ModelControl.poll:
        fail("--poll-secs sets the poll interval of --model-control poll; give both, or neither")
    given = [option for option, value in deployment.items() if value is not None]
    if deploy is None and given:
        them = "it" if len(given) == 1 else "them"
        fail(
            f"{', '.join(given)}: only for the manifests of --deploy kserve|k8s; give --deploy "
            f"or leave {them} out"
        )


def _next_steps(path: Path, plan: Plan) -> list[str]:
    """What to run or do after `new`: add a model, put its model file in place, lint."""
    repository = plan.root / plan.repository
    if not any(child.is_dir() for child in repository.iterdir()):
        return [f"tritoncfg new {path} --model NAME --template onnx (or --from-model FILE)"]
    steps = []
    for model in plan.models:
        if model.missing is not None and not (repository / model.name / model.missing).exists():
            file = repository / model.name / model.missing
            steps.append(f"put your {file.name} at {file} (model files stay out of git)")
    steps.append(f"tritoncfg lint {repository}")
    return steps


def _prompt() -> tuple[str | None, Template | None, Path | None]:
    """The questions `new` asks in a terminal when no option says what to add."""
    source = typer.prompt("Model file to add (.onnx, .plan, .pt; empty: none)", default="")
    if source:
        return None, None, Path(source)
    name = typer.prompt("Model name (empty: no model)", default="")
    if not name:
        return None, None, None
    choices = [t.value for t in Template]
    while (
        choice := typer.prompt(f"Template ({', '.join(choices)})", default="onnx")
    ) not in choices:
        typer.echo(f"Error: {choice!r} is not one of {', '.join(choices)}", err=True)
    return name, Template(choice), None
