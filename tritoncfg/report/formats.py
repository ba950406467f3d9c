"""The output formats of `tritoncfg lint`, one registry (as ruff's emitters): each format is a
name, its renderer as "module:function" (imported only when that format is chosen), its help,
and what the command does around it. `--format`'s choices, `TRITONCFG_OUTPUT_FORMAT`'s check,
the option's help and docs/cli.md's list are all read off `FORMATS`.

Every renderer has the one signature `(out: TextIO, report: Report) -> None`: a `Report` is all
a format may show, built once by the command (paths as they are shown included)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.record import record


@record(frozen=True)
class Report:
    """What a renderer is given: the run's findings with their paths as shown, and how to show
    them."""

    diagnostics: Sequence[Diagnostic]
    sources: Mapping[str, str]  # config path (as shown) -> text, for snippets
    files: int  # the config files read and parsed
    models: int
    file_paths: Sequence[str]  # those config files, as shown
    warnings_as_errors: bool = False  # a warning fails the run too (junit's failures)
    color: bool = False
    summary: bool = True  # the verdict line at the end (not with -q)
    unsafe_fixes: bool = False  # an unsafe fix counts as fixable (--unsafe-fixes)
    root: Path | None = None  # the checkout the paths are under (SARIF's %SRCROOT%)

    def fixable(self, diagnostic: Diagnostic) -> bool:
        """Whether `--fix` (with `--unsafe-fixes` where given) would apply the finding's fix."""
        fix = diagnostic.fix
        return fix is not None and (fix.safe or self.unsafe_fixes)


Renderer = Callable[[TextIO, Report], None]


@record(frozen=True)
class OutputFormat:
    name: str  # what `--format` takes
    renderer: str  # "module:function", a Renderer
    help: str  # its row of docs/cli.md's table (Markdown)
    relative: bool = True  # paths under the working directory shown relative to it
    fix_report: bool = False  # the fixable count and --show-fixes' list follow the report
    statistics: str | None = None  # the Renderer of `--statistics`; None: refused (as ruff)

    def render(self, out: TextIO, report: Report, *, statistics: bool = False) -> None:
        target = self.statistics if statistics else self.renderer
        assert target is not None, f"--statistics with --format {self.name}"
        module, _, function = target.partition(":")
        renderer: Renderer = getattr(importlib.import_module(module), function)
        renderer(out, report)


_TABLE = "tritoncfg.report.statistics:render_table"

FORMATS = (
    OutputFormat(
        "text",
        "tritoncfg.report.text:render",
        "(default) findings for people: `path:line:column`, code, rule name, message; `[*]` "
        "before the message of a finding `--fix` would fix (with `--unsafe-fixes`, unsafe fixes "
        "too), and under the summary, as ruff's, ``[*] 2 fixable with `--fix` (1 unsafe fix "
        "available with `--fix --unsafe-fixes`).`` (not with `--quiet`)",
        fix_report=True,
        statistics=_TABLE,
    ),
    OutputFormat(
        "concise",
        "tritoncfg.report.concise:render",
        "one line per finding, `path:line:col: CODE message` (`[*]` before the message of a "
        "finding `--fix` would fix, as in text), then the summary line and the fixable count",
        fix_report=True,
        statistics=_TABLE,
    ),
    OutputFormat(
        "json",
        "tritoncfg.report.json:render",
        "one JSON object on standard output, described below",
        statistics="tritoncfg.report.statistics:render_json",
    ),
    OutputFormat(
        "json-lines",
        "tritoncfg.report.jsonlines:render",
        "one JSON object per finding per line (each a `diagnostics` entry of `--format json`), "
        "no summary",
    ),
    OutputFormat(
        "sarif",
        "tritoncfg.report.sarif:render",
        "SARIF 2.1.0, for code scanning ([linting.md](linting.md#output-formats))",
        relative=False,  # its artifact URIs are made relative to %SRCROOT% by the renderer
    ),
    OutputFormat(
        "github",
        "tritoncfg.report.github:render",
        "GitHub workflow commands: annotations on the pull request "
        "([linting.md](linting.md#output-formats))",
    ),
    OutputFormat(
        "gitlab",
        "tritoncfg.report.gitlab:render",
        "GitLab Code Quality JSON ([linting.md](linting.md#output-formats))",
    ),
    OutputFormat(
        "junit",
        "tritoncfg.report.junit:render",
        "JUnit XML, a test case per config file ([linting.md](linting.md#output-formats))",
    ),
)
BY_NAME = {output.name: output for output in FORMATS}
NAMES = tuple(BY_NAME)
STATISTICS_NAMES = tuple(output.name for output in FORMATS if output.statistics is not None)


def named(name: str) -> OutputFormat:
    """The format called `name` (KeyError for none)."""
    return BY_NAME[name]


def choices_help() -> str:
    """`text, concise, ... or junit`."""
    return f"{', '.join(NAMES[:-1])} or {NAMES[-1]}"


def shown_path(path: str | Path, cwd: Path | None = None) -> str:
    """A path as every command shows it (findings, reports, messages): relative to the working
    directory (`cwd`, default the current one) when below it, as ruff and git show paths; as
    given elsewhere (a path outside it, a cloud URL). A relative path is read from `cwd`."""
    text = str(path)
    if "://" in text:
        return text
    here = Path.cwd() if cwd is None else cwd
    absolute = Path(text if os.path.isabs(text) else os.path.join(here, text))
    return os.path.relpath(absolute, here) if absolute.is_relative_to(here) else text
