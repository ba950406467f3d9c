"""`tritoncfg version`: the version, as `tritoncfg --version` (`-V`) prints it, or as JSON."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated

import typer

from tritoncfg import __version__


class VersionFormat(StrEnum):
    text = "text"
    json = "json"


def version_command(
    output_format: Annotated[
        VersionFormat, typer.Option("--format", "-f", help="text (default) or json.")
    ] = VersionFormat.text,
) -> None:
    """Print tritoncfg's version (also `tritoncfg --version`, `-V`)."""
    if output_format is VersionFormat.json:
        document = {"name": "tritoncfg", "version": __version__, "python": sys.version.split()[0]}
        typer.echo(json.dumps(document, indent=2))
    else:
        typer.echo(f"tritoncfg {__version__}")
