"""`tritoncfg convert FILE --to pbtxt|json`: one config format into the other, formatted."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from tritoncfg.cli.common import EXIT_OK, existing_paths, fail


class ConfigFormat(StrEnum):
    pbtxt = "pbtxt"
    json = "json"


def convert_command(
    file: Annotated[
        Path, typer.Argument(help="A config: .json is read as JSON, anything else as pbtxt.")
    ],
    to: Annotated[ConfigFormat, typer.Option("--to", help="The format to print.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write here (atomically) instead of standard output."),
    ] = None,
) -> None:
    """Print a config in the other format: pbtxt as protobuf JSON (proto field names, as Triton's
    HTTP API writes them), JSON as formatted pbtxt. Comments are kept where the target has them
    (pbtxt to pbtxt); JSON has none, so pbtxt to JSON drops them and says so on stderr.

    Exit status: 0 converted; 2 unreadable file or a config that does not parse.
    """
    from tritoncfg.confined import read_regular
    from tritoncfg.repository.model import is_json_path
    from tritoncfg.text.decoding import Utf8Error, decode_utf8
    from tritoncfg.text.json_config import convert_text

    (path,) = existing_paths([file])
    try:
        source = decode_utf8(read_regular(path)).replace("\r\n", "\n").replace("\r", "\n")
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")
    except Utf8Error as exc:
        fail(f"{path}:{exc.span.line}:{exc.span.column}: cannot read: {exc}")
    from_json = is_json_path(path)
    outcome = convert_text(source, from_json=from_json, to_json=to is ConfigFormat.json)
    if outcome.error is not None:
        error = outcome.error
        fail(f"{path}:{error.span.line}:{error.span.column}: {error.message}")
    if outcome.dropped_comments:
        count = outcome.dropped_comments
        sys.stderr.write(
            f"{path}: note: {count} comment{'s' if count != 1 else ''} dropped: JSON has no comments\n"
        )
    if output is None:
        sys.stdout.write(outcome.text)
        raise typer.Exit(EXIT_OK)
    from tritoncfg.atomic import write_atomic

    try:
        write_atomic(output, outcome.text)  # a regular file (or a new one), never a link
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}")
    raise typer.Exit(EXIT_OK)
