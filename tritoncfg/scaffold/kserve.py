"""The KServe InferenceService of `new --deploy kserve`, as a dict for yaml_documents.

Facts from KServe (`config/runtimes/kserve-tritonserver.yaml`, the InferenceService CRD): the
`kserve-tritonserver` runtime serves a `triton` model format, runs `tritonserver
--model-store=/mnt/models --http-port=8080 --grpc-port=9000` and appends the predictor's `args`;
its storage initializer copies `storageUri` into /mnt/models once, when the pod starts;
`runtimeVersion` is the image tag; the runtime's resources are 1 CPU and 2Gi of memory.
"""

from __future__ import annotations

from typing import Any

from tritoncfg.scaffold.server import Server, control_flags, health_probes, resources
from tritoncfg.scaffold.spec import ScaffoldError

HTTP_PORT = 8080  # where the kserve-tritonserver runtime serves HTTP
HEADER = """\
KServe InferenceService running Triton
(scaffolded by `tritoncfg new --deploy kserve`).
The storage initializer downloads storageUri into /mnt/models, so it names
the repository root (the folder holding the model folders). KServe appends
`args` to the runtime's own (tritonserver --model-store=/mnt/models ...).
The startupProbe gives the models 5 minutes to load before liveness counts;
in serverless mode it needs Knative Serving 1.15 or later."""


def inference_service(name: str, storage_uri: str, server: Server) -> dict[str, Any]:
    if storage_uri.startswith("as://"):  # Triton's form; KServe's storage initializer lacks it
        raise ScaffoldError(
            f"--storage-uri {storage_uri!r}: KServe reads Azure blob storage as "
            "https://ACCOUNT.blob.core.windows.net/CONTAINER/PATH, not as://"
        )
    model: dict[str, Any] = {
        "modelFormat": {"name": "triton"},
        "protocolVersion": "v2",
        "runtimeVersion": server.image_tag,
        "storageUri": storage_uri,
        "args": control_flags(server),
        **health_probes(HTTP_PORT),
        "resources": resources(server, cpu="1", memory="2Gi"),  # the runtime's defaults
    }
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": name},
        "spec": {"predictor": {"model": model}},
    }


def poll_warning(server: Server) -> str | None:
    """`poll` on KServe watches a copy that never changes: say so (the manifest is still valid)."""
    if server.model_control != "poll":
        return None
    return (
        "--model-control poll with --deploy kserve: Triton would poll /mnt/models, the copy "
        "KServe's storage initializer makes once when the pod starts, which never changes; "
        "a new model version reaches the server only with a new pod (edit the "
        "InferenceService, or restart it)"
    )


__all__ = ["HTTP_PORT", "inference_service", "poll_warning"]
