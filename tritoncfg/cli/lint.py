"""`tritoncfg lint PATH...`: Triton's verdict, offline, with every finding at once."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from tritoncfg.cli.common import Color, fail
from tritoncfg.cli.file_selection import FORCE_EXCLUDE, RESPECT_GITIGNORE
from tritoncfg.cli.lint_core import LintRequest, run_lint
from tritoncfg.cli.lint_input import LintInputs, config_arguments
from tritoncfg.cli.lint_output import ENV_OUTPUT_FORMAT, OutputOptions
from tritoncfg.lintoptions import LintOverrides
from tritoncfg.report import formats


class TritonModeOption(StrEnum):
    default = "default"
    strict = "strict"


# --format's choices: the names of report/formats.py's registry
FormatOption = StrEnum("FormatOption", [(name, name) for name in formats.NAMES])  # type: ignore[misc]
DEFAULT_FORMAT = FormatOption("text")


class ModelFilesOption(StrEnum):
    required = "required"
    optional = "optional"


def _split(values: list[str] | None) -> tuple[str, ...]:
    """`--select TC1,TC2 --select TC9` → ("TC1", "TC2", "TC9")."""
    return tuple(
        part.strip() for value in values or () for part in value.split(",") if part.strip()
    )


def _severities(values: list[str] | None) -> dict[str, str]:
    """`--severity-override TC901=error` (repeatable) → {code: severity}, e.g. TC901: error."""
    pairs = {}
    for value in values or []:
        selector, _, severity = value.partition("=")
        if not severity:
            fail(f"--severity-override expects CODE=SEVERITY, got {value!r}")
        pairs[selector.strip()] = severity.strip()
    return pairs


def lint_command(
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
    output_format: Annotated[
        FormatOption,
        typer.Option(
            "--format",
            "-f",
            metavar="<format>",  # the choices in the help: a long metavar breaks mid-word
            envvar=ENV_OUTPUT_FORMAT,
            help=f"Output format: {formats.choices_help()}.",
        ),
    ] = DEFAULT_FORMAT,
    triton_mode: Annotated[
        TritonModeOption | None,
        typer.Option(
            help="default: Triton's auto-complete is on; strict: --disable-auto-complete-config."
        ),
    ] = None,
    gpus: Annotated[
        str | None, typer.Option(help="GPU ids visible on the target host, e.g. '0,1', or 'none'.")
    ] = None,
    gpu_memory: Annotated[
        str | None,
        typer.Option(
            help="Memory of one GPU of the target host, e.g. '24GiB' or '80GB' (checks TC914)."
        ),
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
    rate_limit: Annotated[
        str | None,
        typer.Option(help="Triton's --rate-limit on the target host: off or execution_count."),
    ] = None,
    model_files: Annotated[
        ModelFilesOption | None,
        typer.Option(
            help="required (default): report versions without their model file (TC125, TC126); "
            "optional: model files are fetched at deploy time."
        ),
    ] = None,
    rate_limit_resource: Annotated[
        list[str] | None,
        typer.Option(
            help="Triton's --rate-limit-resource on the target host: NAME:COUNT[:DEVICE] "
            "(repeatable)."
        ),
    ] = None,
    triton_version: Annotated[
        str | None,
        typer.Option(
            help="The Triton release the repository is for, e.g. 2.51 or 24.10: report fields "
            "and values it does not know (TC012). Default: the newest schema."
        ),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option(help="Rules to run: codes, prefixes (TC2) or names; comma-separated."),
    ] = None,
    extend_select: Annotated[
        list[str] | None, typer.Option(help="Rules to add to the selection.")
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option(help="Rules not to run: codes, prefixes or names.")
    ] = None,
    severity_override: Annotated[
        list[str] | None, typer.Option(help="CODE=SEVERITY, e.g. TC901=error (repeatable).")
    ] = None,
    warnings_as_errors: Annotated[
        bool | None, typer.Option("--warnings-as-errors", help="Exit 1 on warnings too.")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print diagnostics only, no summary.")
    ] = False,
    silent: Annotated[
        bool,
        typer.Option(
            "--silent", "-s", help="Print nothing; the exit status says it (errors still shown)."
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
    cache: Annotated[
        bool | None,
        typer.Option(
            "--cache/--no-cache",
            help="Reuse unchanged models' findings from .tritoncfg_cache/ (default: on).",
            show_default=False,
        ),
    ] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            help="Where the cache lives (default: .tritoncfg_cache/ beside the settings file; "
            "env TRITONCFG_CACHE_DIR, setting cache-dir).",
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
    respect_gitignore: Annotated[bool | None, RESPECT_GITIGNORE] = None,
    force_exclude: Annotated[bool | None, FORCE_EXCLUDE] = None,
) -> None:
    """Check configs the way Triton loads them, and report every problem with file:line:col.

    Exit status: 0 no error findings (or --exit-zero), 1 error findings (or warnings with
    --warnings-as-errors; with --exit-non-zero-on-fix, a fix applied), 2 usage error, unreadable
    path, or a model not linted (its process killed twice).
    """
    raise typer.Exit(run_lint(lint_request(locals())))


def lint_request(params: Mapping[str, Any]) -> LintRequest:
    """The command's parameters, by name, as the request `run_lint` takes: the fast path
    (cli/main.py) builds the same request for `lint PATH...` (a test holds the two equal)."""
    overrides = LintOverrides(
        triton_mode=params["triton_mode"],
        gpus=params["gpus"],
        gpu_memory=params["gpu_memory"],
        model_config_name=params["model_config_name"],
        backend_dir=params["backend_dir"],
        rate_limit=params["rate_limit"],
        rate_limit_resources=tuple(params["rate_limit_resource"] or ()),
        triton_version=params["triton_version"],
        model_files=params["model_files"],
        select=_split(params["select"]),
        extend_select=_split(params["extend_select"]),
        ignore=_split(params["ignore"]),
        severity_overrides=_severities(params["severity_override"]),
        warnings_as_errors=params["warnings_as_errors"],
        cache=params["cache"],
        cache_dir=params["cache_dir"],
        respect_gitignore=params["respect_gitignore"],
        force_exclude=params["force_exclude"],
    )
    config, settings = config_arguments(params["config"])
    fixing = params["apply_fixes"] or params["show_diff"]
    return LintRequest(
        tuple(params["raw_paths"]),
        overrides,
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
