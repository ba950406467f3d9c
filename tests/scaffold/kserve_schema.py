"""A JSON Schema of the InferenceService fields `new --deploy kserve` writes, written from the
facts of KServe's CRD (config/crd/full/serving.kserve.io_inferenceservices.yaml, version
v1beta1) and its webhook: the types of `spec.predictor.model` (a container: args, env,
resources, probes, volumeMounts; plus modelFormat, protocolVersion, runtimeVersion, storageUri)
and the name KServe accepts (an RFC 1035 label). Stricter than the CRD in one way: an object
takes only the fields listed (the API server prunes an unknown field, or refuses it under
kubectl's strict field validation), so a misspelt field fails here too."""

from __future__ import annotations

from typing import Any

INT32 = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
INT_OR_STRING = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
# resource.Quantity: a decimal number, then a binary (Ki..Ei) or decimal (n..E) suffix or exponent
QUANTITY = {
    "anyOf": [
        {"type": "integer"},
        {
            "type": "string",
            "pattern": r"^[+-]?(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?(\d+(\.\d*)?|\.\d+))?$",
        },
    ]
}
STRING = {"type": "string"}
STRINGS = {"type": "array", "items": STRING}


def closed(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


PROBE = closed(
    {
        "httpGet": closed(
            {"path": STRING, "port": INT_OR_STRING, "scheme": {"enum": ["HTTP", "HTTPS"]}},
            ("port",),
        ),
        "initialDelaySeconds": INT32,
        "periodSeconds": INT32,
        "timeoutSeconds": INT32,
        "successThreshold": INT32,
        "failureThreshold": INT32,
    }
)
ENV_VAR = closed(
    {
        "name": STRING,
        "value": STRING,
        "valueFrom": closed(
            {
                "secretKeyRef": closed(
                    {"name": STRING, "key": STRING, "optional": {"type": "boolean"}}, ("key",)
                )
            }
        ),
    },
    ("name",),
)
RESOURCES = closed(
    {
        "requests": {"type": "object", "additionalProperties": QUANTITY},
        "limits": {"type": "object", "additionalProperties": QUANTITY},
    }
)
MODEL = closed(
    {
        "modelFormat": closed({"name": STRING, "version": STRING}, ("name",)),
        "protocolVersion": {"enum": ["v2", "grpc-v2"]},  # what kserve-tritonserver serves
        "runtime": STRING,
        "runtimeVersion": STRING,
        "storageUri": STRING,
        "args": STRINGS,
        "env": {"type": "array", "items": ENV_VAR},
        "resources": RESOURCES,
        "readinessProbe": PROBE,
        "livenessProbe": PROBE,
        "startupProbe": PROBE,
        "volumeMounts": {
            "type": "array",
            "items": closed(
                {"name": STRING, "mountPath": STRING, "readOnly": {"type": "boolean"}},
                ("name", "mountPath"),
            ),
        },
    },
    ("modelFormat",),
)
NAME = {"type": "string", "pattern": r"^[a-z]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63}
INFERENCE_SERVICE: dict[str, Any] = closed(
    {
        "apiVersion": {"const": "serving.kserve.io/v1beta1"},
        "kind": {"const": "InferenceService"},
        "metadata": closed(
            {
                "name": NAME,
                "namespace": STRING,
                "labels": {"type": "object", "additionalProperties": STRING},
                "annotations": {"type": "object", "additionalProperties": STRING},
            },
            ("name",),
        ),
        "spec": closed({"predictor": closed({"model": MODEL}, ("model",))}, ("predictor",)),
    },
    ("apiVersion", "kind", "metadata", "spec"),
)


def inference_service_errors(document: Any) -> list[str]:
    """Every way `document` breaks the schema, as `path: message` lines (none: valid)."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(INFERENCE_SERVICE)
    return [
        f"{'.'.join(str(p) for p in error.absolute_path) or '<root>'}: {error.message}"
        for error in validator.iter_errors(document)
    ]
