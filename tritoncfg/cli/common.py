"""What every command shares: the colour decision, the usage-error exit, path checks.

No Typer here: `tritoncfg lint PATH...` runs without it (cli/main.py), through this module."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import NoReturn, TextIO

from tritoncfg.cloud.url import redact

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class Color(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


def use_color(color: Color, stream: TextIO) -> bool:
    """The one decision of whether tritoncfg writes colour (findings, tables, help, usage
    errors), in this order: `--color always|never`; `NO_COLOR` (set and not empty: none);
    `FORCE_COLOR` or `CLICOLOR_FORCE` (not empty, not 0: colour even into a pipe); then
    `TERM=dumb` or `CLICOLOR=0` (none); else whether `stream` is a terminal."""
    if color is not Color.auto:
        return color is Color.always
    environ = os.environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR") or environ.get("CLICOLOR_FORCE", "0") not in ("", "0"):
        return True
    if environ.get("TERM") == "dumb" or environ.get("CLICOLOR") == "0":
        return False
    try:
        return stream.isatty()
    except ValueError:  # a closed stream
        return False


def fail(message: str) -> NoReturn:
    """A usage or I/O error: one clear line on stderr, exit 2, never a traceback; a URL in it is
    shown without its credentials."""
    sys.stderr.write(f"tritoncfg: error: {redact(message)}\n")
    raise SystemExit(EXIT_USAGE)  # as typer.Exit would: Click lets it through, with its code


CLOUD_PREFIXES = ("s3:/", "gs:/", "as:/")  # as a Path writes them: `s3://b` becomes `s3:/b`


def refuse_cloud(paths: list[Path], command: str) -> None:
    """Cloud repositories are read-only for tritoncfg: commands that write refuse them (exit 2)."""
    for path in paths:
        text = str(path)
        if text.startswith(CLOUD_PREFIXES):
            url = redact(f"{text[:3]}//{text[4:].lstrip('/')}")
            fail(
                f"{url}: {command} writes files, and cloud repositories are read-only for "
                "tritoncfg; lint them in place, or copy them to a local folder to change them"
            )


def usable_path(path: Path) -> None:
    """A usage error unless `path` is missing, a directory or a regular file (not a symlink
    loop, a name too long, a FIFO or a device: nothing would be checked there)."""
    from tritoncfg.confined import PathRefused, check_input

    try:
        check_input(path)
    except PathRefused as error:
        fail(str(error))


def existing_paths(paths: list[Path]) -> list[Path]:
    """The paths, each present and usable (`usable_path`); else a usage error."""
    for path in paths:
        usable_path(path)
        if not os.path.lexists(path):
            fail(f"{path}: no such file or directory")
    return paths


def repository_paths(paths: list[Path]) -> list[Path]:
    """The paths, each checked to exist; a project folder whose settings name its model
    repository (`repository = "..."`, as `tritoncfg new` writes) stands for that repository."""
    from tritoncfg.settings import project_repository

    return existing_paths([project_repository(path) for path in existing_paths(paths)])
