"""`tritoncfg lint PATH...`: Triton's verdict, offline, with every finding at once."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from tritoncfg.cli.common import EXIT_FINDINGS, EXIT_OK, Color, existing_paths, fail, use_color


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


class TritonModeOption(str, Enum):
    default = "default"
    strict = "strict"


def parse_gpus(value: str | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    if value.strip().lower() == "none":
        return ()
    try:
        return tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        fail(f"--gpus expects a comma-separated list of GPU ids or 'none', got {value!r}")


def lint_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Model repositories, model directories or config files.", show_default=False
        ),
    ],
    output_format: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.text,
    triton_mode: Annotated[
        TritonModeOption,
        typer.Option(
            help="default: Triton's auto-complete is on; strict: --disable-auto-complete-config."
        ),
    ] = TritonModeOption.default,
    gpus: Annotated[
        str | None,
        typer.Option(help="GPU ids visible on the target host, e.g. '0,1', or 'none'."),
    ] = None,
    model_config_name: Annotated[
        str | None,
        typer.Option(
            help="Like Triton's --model-config-name: use configs/<name>.pbtxt where present."
        ),
    ] = None,
    backend_dir: Annotated[
        Path | None,
        typer.Option(
            help="Triton's --backend-directory on the target host; backend libraries are then checked."
        ),
    ] = None,
    color: Annotated[Color, typer.Option(help="Colour in text output.")] = Color.auto,
) -> None:
    """Check configs the way Triton loads them, and report every problem with file:line:col."""
    from tritoncfg.api import lint
    from tritoncfg.checks import LintOptions

    options = LintOptions(
        triton_mode=triton_mode.value,
        gpus=parse_gpus(gpus),
        config_name=model_config_name,
        backend_dir=backend_dir,
    )
    result = lint(existing_paths(paths), options)
    if output_format is OutputFormat.json:
        from tritoncfg.report.json import render_json

        sys.stdout.write(
            render_json(result.diagnostics, files=result.files, models=result.models) + "\n"
        )
    else:
        from tritoncfg.report.text import render_text

        render_text(
            sys.stdout,
            result.diagnostics,
            result.sources,
            files=result.files,
            models=result.models,
            color=use_color(color, sys.stdout),
        )
    raise typer.Exit(EXIT_FINDINGS if result.has_errors else EXIT_OK)
