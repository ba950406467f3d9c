"""What text output says about fixes, as ruff does: `[*]` before a fixable finding's message, a
`[*] N fixable with `--fix`` line under the summary, and with `--show-fixes` the fixes applied
(with `--fix`) or available, counted per file and rule."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.report.formats import shown_path

if TYPE_CHECKING:
    from tritoncfg.report.formats import Report


def fixable_test(unsafe: bool) -> Callable[[Diagnostic], bool]:
    """Whether `--fix` (with `--unsafe-fixes` where given) would apply a finding's fix."""

    def fixable(diagnostic: Diagnostic) -> bool:
        return diagnostic.fix is not None and (diagnostic.fix.safe or unsafe)

    return fixable


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("x") else "s")


def write_fixable_line(out: TextIO, diagnostics: Iterable[Diagnostic], *, unsafe: bool) -> None:
    """ruff's line under the summary: `[*] 2 fixable with `--fix` (1 unsafe fix available with
    `--fix --unsafe-fixes`).`; nothing when no finding has a fix."""
    with_fix = [d for d in diagnostics if d.fix is not None]
    applicable = sum(1 for d in with_fix if d.fix is not None and (d.fix.safe or unsafe))
    hidden = len(with_fix) - applicable
    more = f"{_plural(hidden, 'unsafe fix')} available with `--fix --unsafe-fixes`"
    if applicable and hidden:
        out.write(f"[*] {applicable} fixable with `--fix` ({more}).\n")
    elif applicable:
        out.write(f"[*] {applicable} fixable with `--fix`.\n")
    elif hidden:
        out.write(f"{more[0].upper()}{more[1:]}.\n")


def write_fix_list(out: TextIO, heading: str, diagnostics: Iterable[Diagnostic]) -> None:
    """`--show-fixes`: `heading`, then per file the count of fixes per rule, as ruff's
    `Fixed 2 errors:` / `- a.py:` / `    2 \u00d7 F401 (unused-import)`."""
    per_file: dict[str, Counter[tuple[str, str]]] = {}
    for d in diagnostics:
        per_file.setdefault(shown_path(d.path), Counter())[(d.code, d.rule)] += 1
    if not per_file:
        return
    out.write(f"\n{heading}:\n")
    for path in sorted(per_file):
        out.write(f"- {path}:\n")
        for (code, rule), count in sorted(per_file[path].items()):
            out.write(f"    {count} \u00d7 {code} ({rule})\n")  # ruff's "\u00d7"


def write_fix_report(
    out: TextIO, report: Report, applied: list[Diagnostic] | None, *, show_fixes: bool
) -> None:
    """After the text and concise output, as ruff's: with --show-fixes, the fixes applied
    (`applied`, with --fix) or those --fix would apply; then the fixable count."""
    if show_fixes:
        if applied is not None:
            n = len(applied)
            write_fix_list(out, f"Fixed {n} finding{'s' if n != 1 else ''}", applied)
        else:
            fixable = [d for d in report.diagnostics if report.fixable(d)]
            write_fix_list(out, f"Fixable with `--fix` ({len(fixable)})", fixable)
    write_fixable_line(out, report.diagnostics, unsafe=report.unsafe_fixes)
