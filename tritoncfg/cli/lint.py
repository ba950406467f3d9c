"""`tritoncfg lint PATH...`: Triton's verdict, offline, with every finding at once."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from tritoncfg.cli.common import Color, fail
from tritoncfg.cli.lint_core import run_lint
from tritoncfg.cli.lint_input import config_arguments
from tritoncfg.cli.lint_options import DEFAULT_FORMAT, FormatParameter, overrides, with_lint_options
from tritoncfg.cli.lint_request import LintInputs, LintRequest, OutputOptions
from tritoncfg.lintoptions import OptionError


def lint_command(**params: Any) -> None:
    """Check configs the way Triton loads them, and report every problem with file:line:col.

    Exit status: 0 no error findings (or --exit-zero), 1 error findings (or warnings with
    --warnings-as-errors; with --exit-non-zero-on-fix, a fix applied), 2 usage error, unreadable
    path, or a model not linted (its process killed twice).
    """
    try:
        request = lint_request(params)
    except OptionError as exc:
        fail(str(exc))
    raise typer.Exit(run_lint(request))


def _own_parameters(
    raw_paths: Annotated[
        list[str],
        typer.Argument(
            metavar="PATHS...",
            help="Model repositories, model directories or config files; s3://, gs:// and as:// "
            "repositories are read through the cloud extra; - reads one config from standard "
            "input (with --stdin-filename).",
            show_default=False,
        ),
    ],
    output_format: FormatParameter = DEFAULT_FORMAT,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print diagnostics only, no summary.")
    ] = False,
    silent: Annotated[
        bool,
        typer.Option(
            "--silent",
            "-s",
            help="Print no findings or summary; the exit status says it (usage errors are still shown).",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Also say, on stderr, which settings file and cache are used, the models "
            "found, the cache hits and the time taken.",
        ),
    ] = False,
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics",
            help="Print the count of findings per rule instead of the findings (JSON with "
            "--format json).",
        ),
    ] = False,
    output_file: Annotated[
        Path | None,
        typer.Option(
            "--output-file",
            "-o",
            help="Write the report to this file (atomically, no colour) instead of stdout.",
        ),
    ] = None,
    exit_zero: Annotated[
        bool,
        typer.Option(
            "--exit-zero", help="Exit 0 even with error findings (usage errors still exit 2)."
        ),
    ] = False,
    exit_non_zero_on_fix: Annotated[
        bool,
        typer.Option(
            "--exit-non-zero-on-fix",
            help="With --fix: exit 1 if a file was fixed, even when no finding remains.",
        ),
    ] = False,
    config: Annotated[
        list[str] | None,
        typer.Option(
            "--config",
            metavar="<file|KEY = VALUE>",
            help="Read settings from this file (pyproject.toml or tritoncfg.toml), or set one "
            "setting in TOML, e.g. --config 'triton-mode = \"strict\"' (repeatable; these win "
            "over the file).",
        ),
    ] = None,
    isolated: Annotated[
        bool,
        typer.Option(
            "--isolated",
            help="Ignore every settings file (its repository key included); inline --config "
            "settings still apply.",
        ),
    ] = False,
    apply_fixes: Annotated[
        bool, typer.Option("--fix", help="Apply safe fixes (atomic writes; comments kept).")
    ] = False,
    show_fixes: Annotated[
        bool,
        typer.Option(
            "--show-fixes",
            help="List the fixes applied (with --fix) or available, per file and rule.",
        ),
    ] = False,
    add_noqa: Annotated[
        bool,
        typer.Option(
            "--add-noqa",
            help="Write a '# tritoncfg: noqa CODE' comment for every current finding; "
            "change nothing else.",
        ),
    ] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="Also apply fixes that may change behaviour.")
    ] = False,
    show_diff: Annotated[
        bool,
        typer.Option(
            "--diff", help="Show the fixes as a unified diff; change nothing (exit 1 if any)."
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes to lint with. Default: one per core for a few hundred models or more.",
        ),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option("--watch", help="Lint again whenever a file changes (needs watchfiles)."),
    ] = False,
    stdin_filename: Annotated[
        str | None,
        typer.Option(
            metavar="<name>",
            help="With the path -: the name of the config read from standard input; its model "
            "and settings are NAME's (with --force-exclude, an excluded or ignored NAME is "
            "skipped). Nothing is written.",
        ),
    ] = None,
    color: Annotated[Color, typer.Option(help="Colour in text output.")] = Color.auto,
) -> None:
    """The command's own parameters: its paths, output, fixes and runs. The options that are
    settings too are declared in tritoncfg/options/table.py and go after --format."""


lint_command.__signature__ = with_lint_options(  # type: ignore[attr-defined]
    _own_parameters, after="output_format"
)


def lint_request(params: Mapping[str, Any]) -> LintRequest:
    """The command's parameters, by name, as the request `run_lint` takes: the fast path
    (cli/main.py) builds the same request for `lint PATH...` (a test holds the two equal).
    Raises OptionError."""
    stated = overrides(params)
    config, settings = config_arguments(params["config"])
    fixing = params["apply_fixes"] or params["show_diff"]
    return LintRequest(
        tuple(params["raw_paths"]),
        stated,
        output_format=str(params["output_format"]),
        quiet=params["quiet"],
        statistics=params["statistics"],
        color=params["color"],
        config=config,
        isolated=params["isolated"],
        fix=("unsafe" if params["unsafe_fixes"] else "safe") if fixing else None,
        diff=params["show_diff"],
        jobs=params["jobs"],
        inputs=LintInputs(
            stdin_filename=params["stdin_filename"],
            settings=settings,
            show_fixes=params["show_fixes"],
            unsafe_fixes=params["unsafe_fixes"],
            add_noqa=params["add_noqa"],
            watch=params["watch"],
        ),
        output=OutputOptions(
            output_file=params["output_file"],
            exit_zero=params["exit_zero"],
            exit_non_zero_on_fix=params["exit_non_zero_on_fix"],
            silent=params["silent"],
            verbose=params["verbose"],
        ),
    )
