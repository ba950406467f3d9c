"""`tritoncfg lint` once its options are parsed: one API call, the render, the exit status.

Free of Typer, Click and Rich: the Typer command (cli/lint.py) and the pre-commit fast path
(cli/main.py) both run `run_lint`, so the two cannot differ. The settings merge is the API's
(tritoncfg.lintoptions); this module only turns its errors into usage errors and prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.cli import lint_output
from tritoncfg.cli.common import (
    EXIT_USAGE,
    fail,
    refuse_cloud,
)
from tritoncfg.cli.lint_input import check_request, with_environment
from tritoncfg.cloud.url import is_cloud
from tritoncfg.report.formats import shown_path

if TYPE_CHECKING:
    from tritoncfg.api import LintResult
    from tritoncfg.cli.lint_request import LintRequest
    from tritoncfg.diagnostics import Diagnostic
    from tritoncfg.fixer import FixOutcome


def run_lint(request: LintRequest) -> int:
    """Lint (or fix), print, and return the exit status; a usage error exits 2 (common.fail);
    stopped by SIGTERM or SIGHUP while its pool ran, 128 + the signal (its workers stopped)."""
    from tritoncfg.processes.supervise import Terminated

    request = with_environment(request)
    check_request(request)
    lint_output.check(request)
    try:
        if request.inputs.watch:
            from tritoncfg.cli.watch import watch

            return watch(request, _run_lint)
        return _run_lint(request)
    except Terminated as stop:
        return 128 + stop.signum


def _run_lint(request: LintRequest) -> int:
    started = lint_output.begin(request)
    if request.inputs.add_noqa:
        from tritoncfg.cli.add_noqa import add_noqa

        result = _lint(request)
        lint_output.finish(request, result, started)
        return add_noqa(result, quiet=request.quiet, silent=request.output.silent)
    applied: list[Diagnostic] | None = None  # the fixes --fix applied
    changed = False
    if request.fix or request.diff:
        refuse_cloud([Path(p) for p in request.paths if is_cloud(p)], "lint --fix")
        outcome = _fix(request)
        changed = _apply_fixes(
            outcome,
            diff_only=request.diff,
            unsafe=request.fix == "unsafe",
            silent=request.output.silent,
        )
        if request.diff:
            return lint_output.exit_status(request.output, failed=changed)
        result, applied = outcome.result, outcome.applied
    else:
        result = _lint(request)
    lint_output.finish(request, result, started)
    for note in () if request.output.silent else result.notes:  # the run goes on without it
        sys.stderr.write(f"tritoncfg: warning: {note}\n")
    with lint_output.report_stream(request) as out:
        lint_output.write_report(request, result, applied, out)
    for lost in result.lost:  # after the findings of the others: the lint is incomplete
        sys.stderr.write(f"tritoncfg: error: {lost}\n")
    if result.lost:
        return EXIT_USAGE
    return lint_output.exit_status(request.output, failed=result.failed, fixed=changed)


def _lint(request: LintRequest) -> LintResult:
    """The one API call; the errors it raises for bad input become one line and exit 2."""
    from tritoncfg.api import lint_project

    try:
        if request.inputs.stdin_filename is not None:
            from tritoncfg.cli.lint_input import lint_stdin, read_stdin

            return lint_stdin(request, read_stdin())
        return lint_project(
            request.paths,
            request.overrides,
            config=request.config,
            isolated=request.isolated,
            jobs=request.jobs,
            settings_overrides=request.inputs.settings,
        )
    except Exception as error:
        _fail_on_usage_error(error)
        raise


def _fix(request: LintRequest) -> FixOutcome:
    from tritoncfg.fixer import fix_project

    try:
        return fix_project(
            request.paths,
            request.overrides,
            unsafe=request.fix == "unsafe",
            config=request.config,
            isolated=request.isolated,
            settings_overrides=request.inputs.settings,
        )
    except Exception as error:
        _fail_on_usage_error(error)
        raise


def _fail_on_usage_error(error: Exception) -> None:
    """Settings, option values and cloud URLs that cannot be used: one line, exit 2."""
    from tritoncfg.cloud.url import CloudUrlError
    from tritoncfg.lintoptions import OptionError
    from tritoncfg.settings import SettingsError

    if isinstance(error, SettingsError | OptionError | CloudUrlError):
        fail(str(error))
    from tritoncfg.cloud.stage import CloudError

    if isinstance(error, CloudError):
        fail(str(error))


def _apply_fixes(outcome: FixOutcome, *, diff_only: bool, unsafe: bool, silent: bool) -> bool:
    """Write the fixes (or print them as a diff); whether anything changes."""
    import difflib

    from tritoncfg.atomic import write_atomic
    from tritoncfg.confined import Snapshot
    from tritoncfg.repository.discover import root_of

    for path in outcome.changed:
        if diff_only:
            before, after = outcome.before[path], outcome.after[path]
            shown = shown_path(path)  # as the findings and `fmt --diff` show it
            sys.stdout.writelines(
                difflib.unified_diff(before.splitlines(True), after.splitlines(True), shown, shown)
            )
        else:
            try:
                read = Snapshot.of(outcome.before[path].encode("utf-8"))
                write_atomic(Path(path), outcome.after[path], root=root_of(path), expect=read)
            except OSError as exc:  # the file is left as it was: a link out, an edit since
                fail(f"{path}: cannot write the fixes: {exc.strerror or exc}")
    if not diff_only and not silent:
        remaining = sum(1 for d in outcome.result.diagnostics if d.fix is not None)
        hint = f"; {remaining} more with --unsafe-fixes" if remaining and not unsafe else ""
        fixed, files = len(outcome.applied), len(outcome.changed)
        sys.stderr.write(
            f"Fixed {fixed} finding{'s' if fixed != 1 else ''} in {files} file{'s' if files != 1 else ''}{hint}.\n"
        )
    return bool(outcome.changed)
