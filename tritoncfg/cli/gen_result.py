"""What `gen` and `tune --write` do with a generator's change: lint it as `tritoncfg lint` would
(the settings found from the model, or `--config` / `--isolated`, with `--model-files` over
them), show every finding of the result, then print the diff or write it, or refuse.

A change that changes nothing is said so and exits 0 before any lint. The result is refused
(exit 1, nothing written) when lint fails it: an error, or a warning under warnings-as-errors,
or a finding a generator asks to refuse (e.g. TC914 under `--gpu-memory`), and the refusal says
which and why.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from tritoncfg.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from tritoncfg.options.choices import ModelFiles

if TYPE_CHECKING:
    from tritoncfg.diagnostics import Diagnostic
    from tritoncfg.gen.change import Change
    from tritoncfg.lintoptions import LintOverrides, LintSetup


# the settings options `lint` has, for the lint every generator runs on its result
ConfigFile = Annotated[
    list[str] | None,
    typer.Option(
        "--config",
        metavar="<file|KEY = VALUE>",
        help="Read settings from this file (pyproject.toml or tritoncfg.toml), or set one "
        "setting in TOML, e.g. --config 'triton-mode = \"strict\"' (repeatable; these win "
        "over the file), as lint takes it.",
    ),
]
Isolated = Annotated[bool, typer.Option("--isolated", help="Ignore configuration files.")]
ModelFilesOption = Annotated[
    ModelFiles | None,
    typer.Option(
        help="required (default): a version without its model file fails the lint; optional: "
        "model files are fetched at deploy time."
    ),
]


def settings_setup(
    path: Path, overrides: LintOverrides, config: list[str] | None, isolated: bool
) -> LintSetup:
    """What `tritoncfg lint PATH --config ... [--isolated]` would apply to `path`: the project's
    settings (or `--config`'s file, or none with `--isolated`), `--config`'s inline settings
    over them, `overrides` over those. Exit 2 when they cannot be used."""
    from tritoncfg.cli.lint_input import config_arguments, isolated_with_file
    from tritoncfg.gen.change import GenError, project_setup

    file, settings = config_arguments(config)
    if isolated and file is not None:
        refuse(isolated_with_file(file), EXIT_USAGE)
    try:
        return project_setup(path, overrides, config=file, isolated=isolated, settings=settings)
    except GenError as exc:
        refuse_error(exc)


def refuse(message: str, status: int = EXIT_FINDINGS) -> NoReturn:
    sys.stderr.write(f"tritoncfg: error: {message}\n")
    raise typer.Exit(status)


def refuse_error(exc: Exception) -> NoReturn:
    """A generator's refusal: exit 2 for a usage error (GenUsageError), else 1."""
    from tritoncfg.gen.change import GenUsageError

    refuse(str(exc), EXIT_USAGE if isinstance(exc, GenUsageError) else EXIT_FINDINGS)


def finish_change(
    make: Callable[[list[str]], Change],
    write: bool,
    setup: LintSetup,
    *,
    refuse_codes: Mapping[str, str] | None = None,
    check: Callable[[Change, str], list[Diagnostic]] | None = None,
) -> NoReturn:
    """Run a generator, lint its result as `tritoncfg lint` would (the settings in `setup`),
    show its findings, then print the diff or write it. `refuse_codes`: codes that block the
    write whatever their severity, each with the reason; `check`: the lint of a result (default:
    its model directory's)."""
    from tritoncfg.gen.change import GenError, lint_findings
    from tritoncfg.report.formats import shown_path

    def lint_text(change: Change, text: str) -> list[Diagnostic]:
        if check is not None:
            return check(change, text)
        return lint_findings(change.path.parent, change.path, text, setup)

    notes: list[str] = []
    try:
        change = make(notes)
    except GenError as exc:
        refuse_error(exc)
    for note in notes:
        sys.stderr.write(f"note: {note}\n")
    if not change.changed:
        sys.stderr.write(f"{shown_path(change.path)}: already as generated; nothing to change\n")
        raise typer.Exit(EXIT_OK)
    findings = _unwritten_files_left_out(lint_text(change, change.after), change)
    _show(findings)
    blocking = _blocking(findings, setup, refuse_codes or {})
    if blocking:
        already = change.before and _blocking(lint_text(change, change.before), setup, {})
        refuse(f"{shown_path(change.path)}: {_why(blocking, bool(already), refuse_codes or {})}")
    if not write:
        _show_diff(change)
        raise typer.Exit(EXIT_OK)
    from tritoncfg.gen.change import write_change

    try:
        write_change(change)
    except OSError as exc:
        refuse(f"{shown_path(change.path)}: cannot write: {exc.strerror or exc}", EXIT_USAGE)
    sys.stderr.write(f"wrote {shown_path(change.path)}\n")
    raise typer.Exit(EXIT_OK)


def _unwritten_files_left_out(found: list[Diagnostic], change: Change) -> list[Diagnostic]:
    """The findings but TC705 on a file the change writes with the config (not there yet)."""
    from tritoncfg.checks.warmup_and_runtime.warmup import warmup_data_file_missing

    code = warmup_data_file_missing.code
    return [
        f
        for f in found
        if not (f.code == code and any(str(p) in f.message for p in change.extra_files))
    ]


def _show(findings: list[Diagnostic]) -> None:
    """Every error and warning of the result, on stderr; info findings counted."""
    from tritoncfg.diagnostics import Severity
    from tritoncfg.gen.change import describe

    shown = [f for f in findings if f.severity is not Severity.INFO]
    if shown:
        sys.stderr.write(describe(shown) + "\n")
    infos = len(findings) - len(shown)
    if infos:
        plural = "s" if infos != 1 else ""
        sys.stderr.write(
            f"note: {infos} info finding{plural} in the result: see `tritoncfg lint`\n"
        )


def _blocking(
    findings: list[Diagnostic], setup: LintSetup, refuse_codes: Mapping[str, str]
) -> list[Diagnostic]:
    from tritoncfg.diagnostics import Severity

    failing = {Severity.ERROR, *((Severity.WARNING,) if setup.warnings_as_errors else ())}
    return [f for f in findings if f.severity in failing or f.code in refuse_codes]


def _why(blocking: list[Diagnostic], already: bool, refuse_codes: Mapping[str, str]) -> str:
    from tritoncfg.diagnostics import Severity

    codes = ", ".join(dict.fromkeys(f.code for f in blocking))
    if already:
        return f"the model has errors already ({codes}; see `tritoncfg lint`); fix them first"
    reasons = [
        f"{f.code} ({f.severity.value}): {refuse_codes[f.code]}"
        for f in blocking
        if f.code in refuse_codes and f.severity is not Severity.ERROR
    ]
    if any(f.severity is Severity.ERROR for f in blocking):
        reasons.insert(0, f"the generated config would not load ({codes})")
    elif not reasons:
        reasons.append(f"warnings fail the lint under warnings-as-errors ({codes})")
    return "; ".join(dict.fromkeys(reasons)) + "; nothing written"


def _show_diff(change: Change) -> None:
    from tritoncfg.report.formats import shown_path

    sys.stdout.write(change.diff())
    for path, data in change.extra_files.items():
        sys.stdout.write(f"# with --write: {shown_path(path)} ({len(data)} bytes)\n")
    holding = {path.parent for path in change.extra_files}
    for directory in change.make_dirs:
        if not directory.is_dir() and directory not in holding:
            sys.stdout.write(
                f"# with --write: {shown_path(directory)}/ (empty version directory)\n"
            )


__all__ = [
    "ConfigFile",
    "Isolated",
    "ModelFilesOption",
    "finish_change",
    "refuse",
    "refuse_error",
]
