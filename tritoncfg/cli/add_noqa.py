"""`lint --add-noqa`: a `# tritoncfg: noqa CODE` comment for every current finding, as ruff's
`--add-noqa` writes `# noqa: CODE`, so a new rule can be adopted before every old finding is
fixed. The comment goes at the end of the finding's first line (a suppression there covers that
line, checks/core/suppress.py), or joins the codes of a `noqa` comment already there. Edits go
through text/edits.py and atomic writes; the rest of the file stays byte for byte. Run again,
it adds nothing: the findings it covered are suppressed.

What a comment cannot suppress is left as it is: parse errors (always reported), findings on a
directory or on a file that is not a text-format config (JSON has no comments), and every
finding of a file that does not parse.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from tritoncfg.api import LintResult
from tritoncfg.checks.core.suppress import _NOQA, UNKNOWN, UNUSED
from tritoncfg.checks.parse.text_format import PARSE_ERRORS
from tritoncfg.cli.common import fail
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.repository.model import is_json_path
from tritoncfg.text import parse
from tritoncfg.text.edits import Edit, apply_edits
from tritoncfg.text.span import Span

UNSUPPRESSIBLE = PARSE_ERRORS | {"TC009", UNUSED.code, UNKNOWN.code}
_CODE_PATTERN = r"TC\d{3}"


def add_noqa(result: LintResult, *, quiet: bool = False, silent: bool = False) -> int:
    """Write the comments for `result`'s findings; print how many were added (ruff's `Added N
    noqa directives.`, not with -q or -s) and how many findings no comment can cover (a
    warning: not with -s). Exit status 0."""
    lines: dict[str, dict[int, set[str]]] = {}
    left = 0
    for diagnostic in result.diagnostics:
        if _suppressible(diagnostic, result):
            lines.setdefault(diagnostic.path, {}).setdefault(diagnostic.span.line, set()).add(
                diagnostic.code
            )
        else:
            left += 1
    added = 0
    for path, codes in lines.items():
        before = result.sources[path]
        if parse(before, path).error_count:
            left += sum(len(c) for c in codes.values())
            continue
        after = apply_edits(before, noqa_edits(before, codes))
        if parse(after, path).error_count:  # never: a comment at a line's end; but never broken
            left += sum(len(c) for c in codes.values())
            continue
        _write(path, before, after)
        added += sum(len(c) for c in codes.values())
    if not (quiet or silent):
        sys.stderr.write(f"Added {added} noqa directive{'s' if added != 1 else ''}.\n")
    if left and not silent:
        sys.stderr.write(
            f"{left} finding{'s' if left != 1 else ''} cannot be suppressed by a comment (parse "
            "errors, findings on directories, JSON configs, files that do not parse).\n"
        )
    return 0


def _suppressible(diagnostic: Diagnostic, result: LintResult) -> bool:
    return (
        diagnostic.code not in UNSUPPRESSIBLE
        and diagnostic.span.line > 0
        and not is_json_path(diagnostic.path)
        and diagnostic.path in result.sources
    )


def noqa_edits(source: str, codes_by_line: dict[int, set[str]]) -> Iterable[Edit]:
    """One edit per line: the codes joined to the line's `noqa` comment, or a new comment at its
    end; on a line whose comment is a `noqa-file` (which a line comment after it could not
    follow), a comment of its own on the line above, which covers the next line."""
    import re

    lines = source.split("\n")  # as the lexer: only "\n" ends a line
    for number, codes in sorted(codes_by_line.items()):
        if number > len(lines):
            continue
        text = lines[number - 1].removesuffix("\r")
        listed = ", ".join(sorted(codes))
        match = _NOQA.search(text)
        if match is None:
            yield Edit(_at(number, len(text) + 1), f"  # tritoncfg: noqa {listed}")
        elif match.group(1) == "noqa-file" or not text[: match.start()].strip():
            indent = text[: len(text) - len(text.lstrip())]
            yield Edit(_at(number, 1), f"{indent}# tritoncfg: noqa {listed}\n")
        else:
            written = list(re.finditer(_CODE_PATTERN, match.group(2)))
            if not written:
                continue  # a bare `noqa` covers every code: nothing it misses
            end = match.start(2) + written[-1].end() + 1
            yield Edit(_at(number, end), f", {listed}")


def _at(line: int, column: int) -> Span:
    """An empty span: the edit inserts there."""
    return Span(line, column, line, column)


def _write(path: str, before: str, after: str) -> None:
    """Atomically, and only if the file is still what was linted (confined.Snapshot)."""
    from tritoncfg.atomic import write_atomic
    from tritoncfg.confined import Snapshot
    from tritoncfg.repository.discover import root_of

    try:
        read = Snapshot.of(before.encode("utf-8"))
        write_atomic(Path(path), after, root=root_of(path), expect=read)
    except OSError as exc:  # left as it was: a link out, an edit since the lint
        fail(f"{path}: cannot add the noqa comments: {exc.strerror or exc}")
