"""`tritoncfg diff A B` and `tritoncfg diff --server URL REPO`: semantic config diffs, as field
paths with old → new values."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tritoncfg.cli.common import EXIT_FINDINGS, EXIT_OK, existing_paths, fail
from tritoncfg.cli.verify import EXIT_SERVER
from tritoncfg.options.choices import TextOrJson


def _files(a: Path, b: Path, output_format: TextOrJson) -> int:
    from tritoncfg.triton.compare import ConfigFileError, read_config_file
    from tritoncfg.triton.render import render_changes
    from tritoncfg.triton.semantic_diff import semantic_diff

    try:
        old, new = read_config_file(a), read_config_file(b)
    except ConfigFileError as exc:
        fail(str(exc))
    changes = semantic_diff(old, new)
    if output_format is TextOrJson.json:
        document = {"a": str(a), "b": str(b), "changes": [c.to_json() for c in changes]}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        render_changes(sys.stdout, f"{a} → {b}", changes)
    return EXIT_FINDINGS if changes else EXIT_OK


def _server(url: str, repository: Path, output_format: TextOrJson) -> int:
    from tritoncfg.api import load
    from tritoncfg.triton.compare import diff_against_server
    from tritoncfg.triton.remote import RemoteError, RemoteServer
    from tritoncfg.triton.render import render_changes

    models = load(repository).models
    try:
        server = RemoteServer(url)
        try:
            diffs = diff_against_server(models, server)
        finally:
            server.close()
    except RemoteError as exc:
        sys.stderr.write(f"tritoncfg: error: {exc}\n")
        raise typer.Exit(EXIT_SERVER) from None
    if output_format is TextOrJson.json:
        document = {
            "server": url,
            "models": [
                {
                    "model": d.model,
                    "problem": d.problem,
                    "changes": [{**c.to_json(), "origin": d.labels.get(c.path)} for c in d.changes],
                }
                for d in diffs
            ],
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        for d in diffs:
            if d.problem is not None:
                sys.stdout.write(f"model {d.model}: {d.problem}\n")
                continue
            render_changes(sys.stdout, f"model {d.model} (repository → {url})", d.changes, d.labels)
    return EXIT_FINDINGS if any(d.unexplained for d in diffs) else EXIT_OK


def diff_command(
    a: Annotated[
        Path,
        typer.Argument(
            help="A config file (pbtxt or JSON); with --server, the model repository.",
            show_default=False,
        ),
    ],
    b: Annotated[
        Path | None,
        typer.Argument(
            help="The config file to compare A with (not with --server).", show_default=False
        ),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(
            help="A running Triton: http://HOST:PORT or grpc://HOST:PORT (needs tritoncfg[server])."
        ),
    ] = None,
    output_format: Annotated[
        TextOrJson, typer.Option("--format", "-f", help="Output format.")
    ] = TextOrJson.text,
) -> None:
    """Show what differs between two configs, field by field (`instance_group[0].count: 1 → 2`).

    With --server, each model of the repository is compared with the config the server serves:
    what Triton auto-completed (`auto-complete`, as tritoncfg predicts it) and what it did not
    (`backend or runtime`). Exit status: 0 no difference (with --server: none beyond
    auto-complete), 1 differences, 2 usage error, 3 the server cannot be reached.
    """
    (a,) = existing_paths([a])
    if server is not None:
        if b is not None:
            fail("with --server give one path, the model repository")
        raise typer.Exit(_server(server, a, output_format))
    if b is None:
        fail("give two config files, or --server URL and a repository")
    (b,) = existing_paths([b])
    raise typer.Exit(_files(a, b, output_format))
