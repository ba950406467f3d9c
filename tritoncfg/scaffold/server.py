"""The tritonserver a project runs: its flags (`--model-control`), health probes and resources.

Facts from Triton's `src/command_line_parser.cc` (model control defaults to `none`; the poll
interval `--repository-poll-secs` defaults to 15 s and is written anyway), Triton's Helm charts
(`deploy/k8s-onprem`: probes on /v2/health/live and /v2/health/ready, a startup probe that gives
model loading 10 s x 30 tries) and KServe's `kserve-tritonserver` runtime (1 CPU and 2Gi of
memory, requests = limits, unless the InferenceService says otherwise).
"""

from __future__ import annotations

import re

from tritoncfg.record import record
from tritoncfg.scaffold.spec import ScaffoldError

MODEL_CONTROL = ("none", "poll", "explicit")
DEFAULT_POLL_SECS = 15  # Triton's own default, written explicitly
IMAGE = "nvcr.io/nvidia/tritonserver"
DEFAULT_IMAGE_TAG = "26.07-py3"
DEFAULT_GPUS = 1
# A Kubernetes quantity (resource.Quantity): a decimal number and an optional suffix, a binary
# one (Ki ... Ei), a decimal one (n u m k M G T P E) or an exponent (e3).
_QUANTITY = re.compile(r"(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?")


@record(frozen=True)
class Server:
    repository: str  # --model-repository
    model_control: str = "none"
    poll_secs: int = DEFAULT_POLL_SECS
    image_tag: str = DEFAULT_IMAGE_TAG
    gpus: int = DEFAULT_GPUS
    cpu: str | None = None  # a quantity for requests and limits; None: the target's default
    memory: str | None = None


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


def health_probes(port: int | str) -> dict[str, dict[str, object]]:
    """Readiness, liveness and startup probes on Triton's health endpoints. The startup probe
    holds liveness back while the models load (up to 10 s x 30 = 5 minutes), so a slow first
    load is not restarted in a loop."""

    def probe(path: str, **timing: int) -> dict[str, object]:
        return {"httpGet": {"path": path, "port": port}, **timing}

    return {
        "readinessProbe": probe("/v2/health/ready", initialDelaySeconds=5, periodSeconds=5),
        "livenessProbe": probe("/v2/health/live", initialDelaySeconds=15, periodSeconds=5),
        "startupProbe": probe("/v2/health/ready", periodSeconds=10, failureThreshold=30),
    }


def resources(server: Server, *, cpu: str | None, memory: str | None) -> dict[str, object]:
    """Requests = limits: CPU and memory (the server's, else the target's defaults given here;
    left out when None) and GPUs (extended resources must request what they limit)."""
    amounts = {
        "cpu": cpu if server.cpu is None else server.cpu,
        "memory": memory if server.memory is None else server.memory,
    }
    for option, amount in amounts.items():
        if amount is not None:
            check_quantity(f"--{option}", amount)
    compute: dict[str, str] = {k: v for k, v in amounts.items() if v is not None}
    if server.gpus:
        compute["nvidia.com/gpu"] = str(server.gpus)
    if not compute:
        return {}
    return {"requests": dict(compute), "limits": dict(compute)}


def check_quantity(option: str, amount: str) -> str:
    matched = _QUANTITY.fullmatch(amount)
    if matched is None or float(matched[1]) == 0:
        raise ScaffoldError(
            f"{option} {amount!r} is not a Kubernetes quantity above 0 "
            "(e.g. 500m or 2 for CPU, 512Mi or 4Gi for memory)"
        )
    return amount


__all__ = [
    "DEFAULT_GPUS",
    "DEFAULT_IMAGE_TAG",
    "DEFAULT_POLL_SECS",
    "IMAGE",
    "MODEL_CONTROL",
    "Server",
    "check_quantity",
    "control_flags",
    "health_probes",
    "resources",
    "server_command",
]
