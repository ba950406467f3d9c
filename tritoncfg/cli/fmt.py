"""`tritoncfg fmt PATH...`: canonical, comment-preserving formatting; `--check`/`--diff` for CI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tritoncfg.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    refuse_cloud,
    repository_paths,
)
from tritoncfg.cli.file_selection import FORCE_EXCLUDE, RESPECT_GITIGNORE

if TYPE_CHECKING:
    from tritoncfg.confined import Snapshot
    from tritoncfg.file_selection import FileSelection


def is_config_file(path: Path) -> bool:
    """`config.pbtxt`, or `configs/<name>.pbtxt` (Triton's --model-config-name files)."""
    return path.name == "config.pbtxt" or (
        path.parent.name == "configs" and path.suffix == ".pbtxt"
    )


def config_files(paths: list[Path], selection: FileSelection) -> list[tuple[Path, Path]]:
    """The files to format, each with the repository root it must be reached from without
    leaving (as discovery finds it): files as given (left out only with force-exclude);
    directories searched for config.pbtxt and configs/*.pbtxt, leaving out what `exclude` and
    .gitignore files cover (symlinked directories are not entered, as lint does not)."""
    from tritoncfg.repository.discover import root_of

    found: dict[Path, Path] = {}
    for path in paths:
        root = root_of(path)
        if path.is_dir() and path.suffix.lower() not in (".pbtxt", ".json"):
            wanted = selection.walk(path, lambda p: is_config_file(p) and p.is_file())
            found.update((p, root) for p in wanted)
        elif not selection.skips(path):  # a file, or a directory named as one: refused when read
            found.setdefault(path, root)
    return sorted(found.items())


def _selection(
    paths: list[Path], respect_gitignore: bool | None, force_exclude: bool | None
) -> FileSelection:
    """The project's file selection (its settings found from the first path, as lint finds
    them), with the options over it."""
    from tritoncfg.lintoptions import LintOverrides, file_selection
    from tritoncfg.settings import SettingsError, load_settings

    try:
        settings = load_settings(paths[0])
    except SettingsError as exc:
        fail(str(exc))
    overrides = LintOverrides(respect_gitignore=respect_gitignore, force_exclude=force_exclude)
    return file_selection(settings, overrides)


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"


def _diff(path: str, before: str, after: str) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"{path}", f"{path}"
        )
    )


def _read(path: Path, root: Path) -> tuple[str, Snapshot] | None:
    """The file's text (no newline translation: CRLF -> LF is fmt's to make) and snapshot; None,
    reported, when it cannot be used: outside the root, not a regular file, unreadable."""
    from tritoncfg.confined import check_inside, read_snapshot
    from tritoncfg.text.decoding import Utf8Error, decode_utf8

    try:
        check_inside(path, root)  # what lint does not follow, fmt does not read
        data, snapshot = read_snapshot(path)
        return decode_utf8(data), snapshot
    except OSError as exc:
        sys.stderr.write(f"{path}: cannot read: {exc.strerror or exc}\n")
    except Utf8Error as exc:
        sys.stderr.write(f"{path}:{exc.span.line}:{exc.span.column}: cannot read: {exc}\n")
    return None


def _write(path: Path, text: str, root: Path, snapshot: Snapshot) -> bool:
    """Replace the file atomically; a write that fails (read-only directory, disk full, file
    size limit, a file edited since it was read, a link out of the root) leaves the file as it
    was and is reported."""
    from tritoncfg.atomic import write_atomic

    try:
        write_atomic(path, text, root=root, expect=snapshot)
    except OSError as exc:
        sys.stderr.write(f"{path}: cannot write: {exc.strerror or exc}\n")
        return False
    return True


def fmt_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Config files, or directories to search for them.", show_default=False),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 1 if a file would change.")
    ] = False,
    diff: Annotated[
        bool,
        typer.Option(
            "--diff", help="Change nothing; print a unified diff; exit 1 if a file would change."
        ),
    ] = False,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Format standard input to standard output.")
    ] = False,
    respect_gitignore: Annotated[bool | None, RESPECT_GITIGNORE] = None,
    force_exclude: Annotated[bool | None, FORCE_EXCLUDE] = None,
) -> None:
    """Format configs in one canonical style, keeping every comment. Writes are atomic."""
    from tritoncfg.repository.model import is_json_path
    from tritoncfg.text.json_reader import format_json
    from tritoncfg.text.parser import SyntaxProblem
    from tritoncfg.text.printer import format_source

    if stdin:
        from tritoncfg.cli.lint_input import read_stdin

        source = read_stdin()  # bytes as a file's are read: invalid UTF-8 refused, CRLF kept
        try:
            formatted = format_source(source)
        except SyntaxProblem as exc:
            fail(f"<stdin>:{exc.span.line}:{exc.span.column}: {exc.message}")
        if diff:
            sys.stdout.write(_diff("<stdin>", source, formatted))
        elif not check:
            sys.stdout.write(formatted)
        raise typer.Exit(EXIT_FINDINGS if (check or diff) and formatted != source else EXIT_OK)
    if not paths:
        fail("give at least one PATH, or --stdin")
    changed: list[Path] = []
    broken = unchanged = 0
    refuse_cloud(paths, "fmt")
    given = repository_paths(paths)
    for path, root in config_files(given, _selection(given, respect_gitignore, force_exclude)):
        read = _read(path, root)
        if read is None:
            broken += 1
            continue
        source, snapshot = read
        try:
            formatted = format_json(source) if is_json_path(path) else format_source(source)
        except SyntaxProblem as exc:
            sys.stderr.write(
                f"{path}:{exc.span.line}:{exc.span.column}: cannot format: {exc.message}\n"
            )
            broken += 1
            continue
        if formatted == source:
            unchanged += 1
            continue
        changed.append(path)
        if diff:
            sys.stdout.write(_diff(str(path), source, formatted))
        elif check:
            sys.stdout.write(f"would reformat {path}\n")
        elif _write(path, formatted, root, snapshot):
            sys.stdout.write(f"reformatted {path}\n")
        else:
            changed.pop()
            broken += 1
    verb = "would be reformatted" if check or diff else "reformatted"
    kept = "already formatted" if check or diff else "left unchanged"  # ruff format's words
    sys.stderr.write(
        f"{_files(len(changed))} {verb}"
        + (f", {_files(unchanged)} {kept}\n" if unchanged else "\n")
    )
    if broken:
        raise typer.Exit(EXIT_USAGE)
    raise typer.Exit(EXIT_FINDINGS if changed and (check or diff) else EXIT_OK)
