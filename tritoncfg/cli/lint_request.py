"""`LintRequest`: a `tritoncfg lint` command line, parsed, with its input half (`LintInputs`)
and output half (`OutputOptions`). Plain records below every module of lint's that reads them
(lint_core.py, lint_input.py, lint_output.py, watch.py), so none of those imports another to
name the request. Free of Typer, Click and Rich: the fast path (cli/main.py) builds it too."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from tritoncfg.cli.common import Color
from tritoncfg.lintoptions import LintOverrides
from tritoncfg.record import field, record


@record(frozen=True)
class LintInputs:
    """The options of `lint` that change what it reads, writes or watches (cli/lint_input.py)."""

    stdin_filename: str | None = None  # `lint -`: standard input, reported as this file
    settings: Mapping[str, Any] = field(default_factory=dict)  # --config "KEY = VALUE"
    show_fixes: bool = False  # list the fixes applied (with --fix) or available
    unsafe_fixes: bool = False  # unsafe fixes count as fixable ([*]) too
    add_noqa: bool = False
    watch: bool = False


@record(frozen=True)
class OutputOptions:
    """The output half of a `tritoncfg lint` command line (cli/lint_output.py). The defaults are
    the command's."""

    output_file: Path | None = None  # -o: the report goes there (atomically), not to stdout
    exit_zero: bool = False  # exit 0 whatever the findings (a usage error still exits 2)
    exit_non_zero_on_fix: bool = False  # with --fix: exit 1 when a file was changed
    silent: bool = False  # -s: no report, warning or fix summary; errors still shown
    verbose: bool = False  # -v: settings, cache and models on stderr


@record(frozen=True)
class LintRequest:
    """A `tritoncfg lint` command line, parsed. The defaults are the command's."""

    paths: tuple[str, ...]
    overrides: LintOverrides = LintOverrides()
    output_format: str = "text"  # a name of report/formats.py's FORMATS
    quiet: bool = False
    statistics: bool = False
    color: Color = Color.auto
    config: Path | None = None
    isolated: bool = False
    fix: Literal["safe", "unsafe"] | None = None  # --fix, --unsafe-fixes
    diff: bool = False  # --diff: print the fixes, change nothing
    jobs: int | None = None
    inputs: LintInputs = LintInputs()  # stdin, --config KEY = VALUE, --add-noqa, --watch, ...
    output: OutputOptions = OutputOptions()  # -o, -s, -v, --exit-zero, --exit-non-zero-on-fix

    @property
    def unsafe_fixes(self) -> bool:
        """Whether unsafe fixes count as fixable: `--unsafe-fixes`, with or without `--fix`."""
        return self.fix == "unsafe" or self.inputs.unsafe_fixes
