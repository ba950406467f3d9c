"""Manifests as YAML text, written by PyYAML (never by filling in a text template).

PyYAML's safe dumper quotes every string that YAML would read as something else, so a project
named `123`, `on` or `null` stays a string (`'123'`, `'on'`, `'null'`). Sequences are indented
under their key and every document starts with `---`, as yamllint's default rules expect.
"""

from __future__ import annotations

from typing import Any


def yaml_documents(header: str, documents: list[dict[str, Any]]) -> str:
    """`header` as `#` comment lines, then each document after its `---`. Lines stay within
    yamllint's 80 columns, but for a scalar with no space to break at (a long storage URI)."""
    import yaml  # only `new --deploy` writes YAML: lint never loads PyYAML

    class IndentedDumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)  # `key:\n  - item`, not `key:\n- item`

        def ignore_aliases(self, data: Any) -> bool:
            return True  # a dict used twice (the labels) is written twice, not as &id001

    body = yaml.dump_all(
        documents,
        Dumper=IndentedDumper,
        explicit_start=True,
        sort_keys=False,  # apiVersion, kind, metadata, spec: in the order Kubernetes writes them
        default_flow_style=False,
    )
    comments = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return comments + body


__all__ = ["yaml_documents"]
