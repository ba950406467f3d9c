"""The `tritoncfg` console script (and `python -m tritoncfg`).

`tritoncfg lint [--force-exclude] PATH...` is how pre-commit calls the hook, once per commit:
that shape runs `run_lint` (cli/lint_core.py) with the command's defaults, without importing
Typer, Click or Rich (about a quarter of a one-config run). The Typer command runs the same
`run_lint`, so the output is the same byte for byte; TRITONCFG_OUTPUT_FORMAT is read by both.
Any other command line (an option, help, no path, shell completion, a TRITONCFG_OUTPUT_FORMAT
that names no format) goes to the Typer app, which parses and reports it.
"""

from __future__ import annotations

import os
import sys

# the one option the fast path takes: pre-commit's hook entry is `tritoncfg lint --force-exclude`
FORCE_EXCLUDE = "--force-exclude"


def plain_lint(args: list[str]) -> bool:
    """`lint PATH...` (with `--force-exclude` or not): no other option, at least one path, and
    no shell-completion request."""
    paths = [arg for arg in args[1:] if arg != FORCE_EXCLUDE]
    return (
        len(args) >= 2
        and args[0] == "lint"
        and bool(paths)
        and not any(arg.startswith("-") for arg in paths)
        and not any(name.endswith("_COMPLETE") for name in os.environ)
    )


def main() -> None:
    args = sys.argv[1:]
    output_format = None
    if plain_lint(args):
        from tritoncfg.cli.lint_output import environment_format

        output_format = environment_format()
    if output_format is None:
        from tritoncfg.cli.app import app

        app()
        return
    from tritoncfg.cli.lint_core import run_lint
    from tritoncfg.cli.lint_request import LintRequest
    from tritoncfg.lintoptions import LintOverrides

    paths = tuple(arg for arg in args[1:] if arg != FORCE_EXCLUDE)
    overrides = LintOverrides(force_exclude=True) if FORCE_EXCLUDE in args[1:] else LintOverrides()
    try:
        status = run_lint(LintRequest(paths, overrides, output_format=output_format))
    except KeyboardInterrupt:  # as Typer's main: no traceback
        status = 130
    except BrokenPipeError:  # `tritoncfg lint ... | head`: as Typer's main
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 1
    sys.exit(status)
