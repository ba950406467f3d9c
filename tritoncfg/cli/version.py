"""`tritoncfg version`: the version, as `tritoncfg --version` (`-V`) prints it, or as JSON."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from tritoncfg import __version__
from tritoncfg.options.choices import TextOrJson


def version_command(
    output_format: Annotated[
        TextOrJson, typer.Option("--format", "-f", help="text (default) or json.")
    ] = TextOrJson.text,
) -> None:
    """Print tritoncfg's version (also `tritoncfg --version`, `-V`)."""
    if output_format is TextOrJson.json:
        document = {"name": "tritoncfg", "version": __version__, "python": sys.version.split()[0]}
        typer.echo(json.dumps(document, indent=2))
    else:
        typer.echo(f"tritoncfg {__version__}")
