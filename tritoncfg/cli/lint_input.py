"""What `tritoncfg lint` reads besides its paths, as ruff's CLI spells it: `--config` files and
inline `KEY = VALUE` settings, `--cache-dir` (or TRITONCFG_CACHE_DIR), and `lint -` with
`--stdin-filename NAME`, one config read from standard input and reported as NAME.

Free of Typer, as lint_core.py: the fast path (`lint PATH...`) goes through here too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.cli.common import fail
from tritoncfg.record import replace

if TYPE_CHECKING:
    from tritoncfg.api import LintResult
    from tritoncfg.checks.core.selection import PathFilters
    from tritoncfg.cli.lint_request import LintRequest

CACHE_DIR_ENV = "TRITONCFG_CACHE_DIR"
NO_VERSION_DIRECTORY = "TC105"  # not reported for a NAME whose model folder does not exist
STDIN = "-"


def config_arguments(values: list[str] | None) -> tuple[Path | None, dict[str, Any]]:
    """`--config` values: at most one settings file, and inline `KEY = VALUE` settings (TOML
    value syntax, as ruff's `--config "line-length = 100"`), merged in order."""
    import tomllib

    path: Path | None = None
    settings: dict[str, Any] = {}
    for value in values or ():
        if os.path.lexists(value):  # a FIFO or a folder too: the settings reader says why not
            if path is not None:
                fail(f"--config names two settings files, {path} and {value}; give one")
            path = Path(value)
            continue
        if "=" not in value:  # meant as a file, as ruff tells these apart
            fail(
                f"--config {value!r}: no such settings file (an inline setting is "
                "`KEY = VALUE`, e.g. --config 'triton-mode = \"strict\"')"
            )
        try:
            table = tomllib.loads(value)
        except tomllib.TOMLDecodeError as exc:
            fail(
                f"--config {value!r}: not a settings file, nor a TOML `KEY = VALUE` pair "
                f"({exc}); e.g. --config 'triton-mode = \"strict\"'"
            )
        settings.update(table)
    return path, settings


def isolated_with_file(file: Path) -> str:
    """The usage error of a settings file given with --isolated (lint's and gen's)."""
    return (
        f"--config {file} cannot be used with --isolated, which ignores every settings file;"
        " inline --config 'KEY = VALUE' settings still apply"
    )


def check_request(request: LintRequest) -> None:
    """Options that cannot go together, and a `-` path without its name: usage errors."""
    inputs = request.inputs
    if request.isolated and request.config is not None:
        fail(isolated_with_file(request.config))
    writes = [
        name
        for name, given in (
            ("--fix", request.fix is not None and not request.diff),
            ("--diff", request.diff),
            ("--add-noqa", inputs.add_noqa),
        )
        if given
    ]
    if STDIN in request.paths or inputs.stdin_filename is not None:
        if request.paths != (STDIN,):
            fail("standard input is linted alone: give `-` as the only path, with --stdin-filename")
        if inputs.stdin_filename is None:
            fail(
                "lint - needs --stdin-filename NAME: the config's path decides its model "
                "(its folder's name) and its settings"
            )
        if writes or inputs.watch:
            fail(f"lint - never writes or watches: {(writes or ['--watch'])[0]} cannot be used")
    if inputs.add_noqa and (writes != ["--add-noqa"] or inputs.watch):
        fail(f"--add-noqa cannot be used with {'--watch' if inputs.watch else writes[0]}")
    if request.output.output_file is not None and (inputs.add_noqa or inputs.watch):
        # --add-noqa writes no report; --watch reports each run on the terminal (ruff's
        # --watch does not write its --output-file either)
        fail(f"--output-file cannot be used with {'--add-noqa' if inputs.add_noqa else '--watch'}")


def with_environment(request: LintRequest) -> LintRequest:
    """TRITONCFG_CACHE_DIR where --cache-dir is not given (ruff's RUFF_CACHE_DIR); a relative
    --cache-dir is the working directory's."""
    overrides = request.overrides
    folder = overrides.cache_dir or os.environ.get(CACHE_DIR_ENV) or None
    if folder is None:
        return request
    absolute = Path(os.path.abspath(os.path.expanduser(folder)))
    return replace(request, overrides=replace(overrides, cache_dir=absolute))


def read_stdin() -> str:
    from tritoncfg.text.decoding import Utf8Error, decode_utf8

    try:
        return decode_utf8(sys.stdin.buffer.read())
    except Utf8Error as error:
        fail(f"<stdin>:{error.span.line}:{error.span.column}: {error.reason}")


def lint_stdin(request: LintRequest, text: str) -> LintResult:
    """The config on standard input linted as the file NAME: in place of NAME where that file
    exists (its model folder as it is), else as the config of a model folder named as NAME's,
    holding nothing else. Writes nothing there, and uses no cache. A NAME that `exclude` or a
    .gitignore leaves out is linted all the same (it is named), unless force-exclude: then
    nothing is linted, as ruff skips an excluded --stdin-filename."""
    from tritoncfg.api import LintResult, lint
    from tritoncfg.lintoptions import lint_setup
    from tritoncfg.settings import load_settings

    assert request.inputs.stdin_filename is not None
    name = Path(os.path.abspath(request.inputs.stdin_filename))
    settings = load_settings(
        name,
        config=request.config,
        isolated=request.isolated,
        overrides=request.inputs.settings,
    )
    setup = lint_setup(settings, request.overrides)
    if _left_out(setup.filters, name):
        return LintResult([], files=0, models=0, warnings_as_errors=setup.warnings_as_errors)
    if name.is_file():
        return lint(
            [name], setup.options, setup.selection, setup.filters, overrides={str(name): text}
        )
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tritoncfg-stdin-") as scratch:
        model = Path(scratch) / (name.parent.name or "model")  # NAME at / has no folder name
        model.mkdir()
        (model / name.name).write_text(text, encoding="utf-8")
        result = lint(model / name.name, setup.options, setup.selection, setup.filters)
        # the scratch model folder's paths (and their mentions in messages) as NAME's folder
        scratch, real = str(model), str(name.parent)
        renamed = result.renamed(lambda text: text.replace(scratch, real))
        # the folder does not exist yet (an editor's new file): whether it will hold version
        # folders is not known, so TC105 (no version directory) would fire on every buffer
        kept = [d for d in renamed.diagnostics if d.code != NO_VERSION_DIRECTORY]
        return replace(renamed, diagnostics=kept)


def _left_out(filters: PathFilters, name: Path) -> bool:
    """Whether force-exclude leaves out NAME: the file (or a folder above it) is excluded or
    ignored, or its model folder is (`configs/NAME` is a config of the folder above)."""
    if not filters.force_exclude:
        return False
    model = name.parent.parent if name.parent.name == "configs" else name.parent
    files = filters.files
    return files.skips(name) or files.skips_model(model, named=True)
