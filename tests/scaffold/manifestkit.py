"""Test support for `new --deploy`: read a manifest back, validate it as the cluster would
(Kubernetes' own schemas through kubernetes-validate, KServe's through kserve_schema.py), and
run yamllint's default rules on its text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from scaffold.kserve_schema import inference_service_errors

KUBERNETES = "1.33.0"  # a release every supported cluster has reached (1.33: April 2025)


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def yamllint_problems(path: Path) -> list[str]:
    """yamllint's `default` configuration, warnings included."""
    from yamllint import linter
    from yamllint.config import YamlLintConfig

    config = YamlLintConfig("extends: default")
    return [
        f"{path}:{p.line}:{p.column}: {p.desc} ({p.rule})"
        for p in linter.run(path.read_text(), config)
    ]


def kubernetes_errors(document: dict[str, Any]) -> list[str]:
    """What the API server's schema refuses in a Deployment or a Service (unknown fields too)."""
    import kubernetes_validate

    try:
        kubernetes_validate.validate(document, KUBERNETES, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"{document.get('kind')}: {exc.message} at {list(exc.path)}"]
    return []


def manifest_errors(path: Path) -> list[str]:
    """Every problem of one manifest file: schema errors of each document, then yamllint's."""
    errors: list[str] = []
    for document in documents(path):
        if document.get("kind") == "InferenceService":
            errors += inference_service_errors(document)
        else:
            errors += kubernetes_errors(document)
    return errors + yamllint_problems(path)
