"""Server flags for `--model-control` and the `--deploy kserve|k8s` manifests.

Facts from Triton's `src/command_line_parser.cc` (model control defaults to `none`; the poll
interval `--repository-poll-secs` defaults to 15 s and is written anyway), Triton's Helm charts
(`deploy/k8s-onprem`: ports 8000 http, 8001 grpc, 8002 metrics; probes on /v2/health/live and
/v2/health/ready) and KServe's `kserve-tritonserver` runtime (it runs tritonserver with
`--model-store=/mnt/models --http-port=8080 --grpc-port=9000` and appends the predictor's args).
"""

from __future__ import annotations

import json

from tritoncfg.record import record
from tritoncfg.scaffold.resources import render
from tritoncfg.scaffold.spec import ScaffoldError

MODEL_CONTROL = ("none", "poll", "explicit")
DEPLOY = ("kserve", "k8s")
DEFAULT_POLL_SECS = 15  # Triton's own default, written explicitly
IMAGE = "nvcr.io/nvidia/tritonserver"
DEFAULT_IMAGE_TAG = "26.07-py3"


@record(frozen=True)
class Server:
    repository: str  # --model-repository
    model_control: str = "none"
    poll_secs: int = DEFAULT_POLL_SECS
    image_tag: str = DEFAULT_IMAGE_TAG
    gpus: int = 1


def control_flags(server: Server) -> list[str]:
    """The flags of a model-control mode; `explicit` loads every model at start (`*`)."""
    if server.model_control not in MODEL_CONTROL:
        raise ScaffoldError(f"unknown model control mode {server.model_control!r}")
    flags = [f"--model-control-mode={server.model_control}"]
    if server.model_control == "poll":
        if server.poll_secs <= 0:
            raise ScaffoldError(
                "--poll-secs must be > 0: Triton polls only with a positive interval"
            )
        flags.append(f"--repository-poll-secs={server.poll_secs}")
    elif server.model_control == "explicit":
        flags.append("--load-model=*")
    return flags


def server_command(server: Server) -> str:
    return " ".join(
        ["tritonserver", f"--model-repository={server.repository}", *control_flags(server)]
    )


def manifests(kind: str, name: str, storage_uri: str, server: Server) -> dict[str, str]:
    """Path under `deploy/` -> manifest text."""
    if kind not in DEPLOY:
        raise ScaffoldError(f"unknown deploy target {kind!r} (one of {', '.join(DEPLOY)})")
    if not storage_uri:
        raise ScaffoldError(
            "--deploy needs --storage-uri: where the cluster reads the model repository "
            "(e.g. gs://bucket/model_repository, s3://bucket/model_repository)"
        )
    if kind == "kserve":
        gpu = f'          nvidia.com/gpu: "{server.gpus}"' if server.gpus else ""
        text = render(
            "kserve/inferenceservice.yaml",
            name=name,
            image_tag=_quote(server.image_tag),
            storage_uri=_quote(storage_uri),
            args=_yaml_list(control_flags(server), 8),
            gpu_requests=gpu,
            gpu_limits=gpu,
        )
        return {"kserve/inferenceservice.yaml": text}
    flags = [f"--model-repository={storage_uri}", *control_flags(server)]
    resources = (
        f'            limits:\n              nvidia.com/gpu: "{server.gpus}"'
        if server.gpus
        else "            {}"
    )
    text = render(
        "k8s/deployment.yaml",
        name=name,
        image=_quote(f"{IMAGE}:{server.image_tag}"),
        args=_yaml_list(flags, 12),
        resources=resources,
    )
    return {"k8s/tritonserver.yaml": text}


def _quote(value: str) -> str:
    return json.dumps(value)  # a JSON string is a YAML scalar


def _yaml_list(items: list[str], indent: int) -> str:
    return "\n".join(" " * indent + "- " + _quote(item) for item in items)


__all__ = [
    "DEFAULT_IMAGE_TAG",
    "DEFAULT_POLL_SECS",
    "DEPLOY",
    "MODEL_CONTROL",
    "Server",
    "control_flags",
    "manifests",
    "server_command",
]
