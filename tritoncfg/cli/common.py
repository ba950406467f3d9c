"""What every command shares: consoles, the usage-error exit, path checks."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class Color(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


def console(color: Color = Color.auto, *, stderr: bool = False) -> Console:
    force = {Color.auto: None, Color.always: True, Color.never: False}[color]
    no_color = color is Color.never
    return Console(
        stderr=stderr, force_terminal=force, no_color=no_color, highlight=False, soft_wrap=False
    )


def fail(message: str) -> NoReturn:
    """A usage or I/O error: one clear line on stderr, exit 2, never a traceback."""
    sys.stderr.write(f"tritoncfg: error: {message}\n")
    raise typer.Exit(EXIT_USAGE)


def existing_paths(paths: list[Path]) -> list[Path]:
    for path in paths:
        if not path.exists() and not path.is_symlink():
            fail(f"{path}: no such file or directory")
    return paths
