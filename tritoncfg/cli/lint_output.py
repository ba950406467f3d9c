"""What `tritoncfg lint` does with its result, by ruff's conventions: where the report goes
(`-o`), how much is said (`-s`, `-q`, `-v`), the exit status (`--exit-zero`,
`--exit-non-zero-on-fix`), the report in the format chosen (report/formats.py: paths shown
relative here, as the report is built), and the `TRITONCFG_OUTPUT_FORMAT` default of `-f`.

Free of Typer, Click and Rich, like lint_core.py, which calls it (the pre-commit fast path too).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tritoncfg.cli.common import EXIT_FINDINGS, EXIT_OK, fail, refuse_cloud, use_color
from tritoncfg.report.formats import STATISTICS_NAMES

if TYPE_CHECKING:
    from tritoncfg.api import LintResult
    from tritoncfg.cli.lint_request import LintRequest, OutputOptions
    from tritoncfg.diagnostics import Diagnostic
    from tritoncfg.report.formats import Report

ENV_OUTPUT_FORMAT = "TRITONCFG_OUTPUT_FORMAT"
DEBUG = "tritoncfg: debug: "


def environment_format() -> str | None:
    """`-f`'s default from TRITONCFG_OUTPUT_FORMAT (unset or empty: text, as Click reads it);
    None for a value that names no format, which the Typer command reports (exit 2)."""
    from tritoncfg.report.formats import NAMES

    value = os.environ.get(ENV_OUTPUT_FORMAT)
    if not value:
        return "text"
    return value if value in NAMES else None


def check(request: LintRequest) -> None:
    """Usage errors of the output options, before anything is linted (exit 2)."""
    output = request.output
    levels = (
        ("--quiet", request.quiet),
        ("--silent", output.silent),
        ("--verbose", output.verbose),
    )
    chosen = [flag for flag, on in levels if on]
    if len(chosen) > 1:
        fail(f"{chosen[0]} cannot be used with {chosen[1]}: choose one of -q, -s and -v")
    if request.statistics and request.output_format not in STATISTICS_NAMES:
        fail(
            f"--statistics prints a table (text, concise) or JSON (json), "
            f"not --format {request.output_format}"
        )
    if output.output_file is not None:
        refuse_cloud([output.output_file], "lint --output-file")
        if output.output_file.is_dir():
            fail(f"{output.output_file}: is a directory; --output-file names the report's file")


def exit_status(output: OutputOptions, *, failed: bool, fixed: bool = False) -> int:
    """As ruff decides it: --exit-zero wins; --exit-non-zero-on-fix fails a run that fixed."""
    if output.exit_zero:
        return EXIT_OK
    return EXIT_FINDINGS if failed or (fixed and output.exit_non_zero_on_fix) else EXIT_OK


def color(request: LintRequest, out: TextIO) -> bool:
    """A report written to a file has no colour codes, whatever --color says (as ruff)."""
    return request.output.output_file is None and use_color(request.color, out)


@contextlib.contextmanager
def report_stream(request: LintRequest) -> Iterator[TextIO]:
    """Where the report is written: stdout, nowhere (-s), or the -o file, replaced atomically
    once the report is whole (a reader never sees half of it, and a failed run leaves the old)."""
    target = request.output.output_file
    if target is None:
        yield io.StringIO() if request.output.silent else sys.stdout
        return
    buffer = io.StringIO()
    yield buffer
    from tritoncfg.atomic import write_atomic

    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # as ruff: the folders are made
        write_atomic(target, buffer.getvalue())
    except OSError as exc:
        fail(f"{target}: cannot write the report: {exc.strerror or exc}")


def write_report(
    request: LintRequest, result: LintResult, applied: list[Diagnostic] | None, out: TextIO
) -> None:
    """The report in the chosen format (or --statistics' in it), then, where the format has it,
    the fixable count and --show-fixes' list (`applied`: the fixes --fix applied)."""
    from tritoncfg.report.formats import named

    output = named(request.output_format)
    report = _report(request, result, out, relative=output.relative)
    output.render(out, report, statistics=request.statistics)
    if output.fix_report and not request.quiet and not request.statistics:
        from tritoncfg.cli.fix_report import write_fix_report

        write_fix_report(out, report, applied, show_fixes=request.inputs.show_fixes)


def _report(request: LintRequest, result: LintResult, out: TextIO, *, relative: bool) -> Report:
    """What the renderer is given; paths under the working directory relative to it, as ruff
    and git show them (`relative`)."""
    from tritoncfg.report.formats import Report, shown_path

    cwd = Path.cwd()
    diagnostics, sources, file_paths = result.diagnostics, result.sources, result.file_paths
    if relative:
        shown: dict[str, str] = {}  # a file's findings share its path: made relative once

        def show(path: str) -> str:
            found = shown.get(path)
            if found is None:
                found = shown[path] = shown_path(path, cwd)
            return found

        diagnostics = [d.moved(show(d.path)) for d in diagnostics]
        sources = _renamed(sources, show)
        file_paths = [show(p) for p in file_paths]
    return Report(
        diagnostics,
        sources,
        files=result.files,
        models=result.models,
        file_paths=file_paths,
        warnings_as_errors=result.warnings_as_errors,
        color=color(request, out),
        summary=not request.quiet,
        unsafe_fixes=request.unsafe_fixes,
        root=cwd,
    )


def _renamed(sources: Mapping[str, str], name: Callable[[str], str]) -> Mapping[str, str]:
    from tritoncfg.sourcetexts import SourceTexts

    if isinstance(sources, SourceTexts):  # cached models' texts stay unread until shown
        return sources.renamed(name)
    return {name(path): text for path, text in sources.items()}


def debug(request: LintRequest, line: str) -> None:
    if request.output.verbose:
        sys.stderr.write(DEBUG + line + "\n")


def begin(request: LintRequest) -> float:
    """-v: the settings file and cache the run uses; the start time."""
    if request.output.verbose:
        for line in _setup_lines(request):
            debug(request, line)
    return time.perf_counter()


def _setup_lines(request: LintRequest) -> list[str]:
    from tritoncfg.api import project
    from tritoncfg.settings import load_settings

    try:
        chosen = project(
            request.paths, request.overrides, config=request.config, isolated=request.isolated
        )
        local = [path for path in chosen.paths if isinstance(path, Path)]
        settings = load_settings(
            local[0] if local else Path.cwd(), config=request.config, isolated=request.isolated
        )
    except Exception:  # the lint itself reports it, as a usage error
        return []
    if request.isolated:
        where = "none (--isolated)"
    else:
        where = str(settings.path) if settings.path else "none found; the defaults apply"
    cache = chosen.setup.cache_dir
    return [f"settings file: {where}", f"cache: {cache if cache is not None else 'off'}"]


def finish(request: LintRequest, result: LintResult, started: float) -> None:
    """-v: the models and config files found, what came from the cache, the time taken."""
    if not request.output.verbose:
        return
    debug(request, f"found {_count(result.models, 'model')}, {_count(result.files, 'config file')}")
    for path in result.file_paths:
        debug(request, f"config file: {path}")
    if result.replayed:
        debug(request, "cache: the whole run replayed (nothing changed since the last run)")
    else:
        reused = max(0, result.models - len(result.relinted))
        debug(request, f"cache hits: {reused} of {_count(result.models, 'model')}")
    for name in result.relinted:
        debug(request, f"linted: {name}")
    debug(request, f"done in {time.perf_counter() - started:.3f}s")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
