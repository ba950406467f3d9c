"""Suppression comments: `# tritoncfg: noqa TC203`, `# tritoncfg: noqa`, `# tritoncfg: noqa-file TC203`.

A line comment covers diagnostics on its own line (at the end of it) or, written on a line of its
own, on the next line. Suppressions are checked themselves: one that suppresses nothing, or names a
code that does not exist, is a finding (like ruff's RUF100).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import Rule, emitted_rule
from tritoncfg.checks.core.table import rule_index, table
from tritoncfg.checks.parse.codes import PARSE_ERRORS
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.record import field, record, replace
from tritoncfg.text.span import Span
from tritoncfg.workspace import LoadedModel, Workspace

_NOQA = re.compile(r"#\s*tritoncfg:\s*(noqa-file|noqa)(?![\w-])(?::)?\s*(.*)$")
_CODE = re.compile(r"TC\d{3}")


@record
class Suppression:
    path: str
    span: Span  # the comment
    covers: tuple[int, ...]  # lines it applies to; empty for a file-level one
    codes: tuple[str, ...] | None  # None: every code
    model_dir: Path
    used: set[str] = field(default_factory=set)
    alternative: bool = False  # an alternative config's: its unused codes are not reported here

    @property
    def file_level(self) -> bool:
        return not self.covers

    def applies(self, diagnostic: Diagnostic) -> bool:
        if diagnostic.code in PARSE_ERRORS:
            return False  # a config Triton cannot read is always reported
        if self.codes is not None and diagnostic.code not in self.codes:
            return False
        if self.file_level:
            return diagnostic.path == self.path or Path(diagnostic.path).is_relative_to(
                self.model_dir
            )
        return diagnostic.path == self.path and diagnostic.span.line in self.covers


def _suppressions(model: LoadedModel) -> Iterator[Suppression]:
    config = model.config
    if config is None:
        return
    lines = config.source.splitlines()
    for number, text in enumerate(lines, start=1):
        if "tritoncfg:" not in text:
            continue
        match = _NOQA.search(text)
        if match is None:
            continue
        column = match.start() + 1
        codes = tuple(_CODE.findall(match.group(2))) or None
        if match.group(1) == "noqa-file":
            covers: tuple[int, ...] = ()
        elif text[: match.start()].strip():
            covers = (number,)  # at the end of the line it suppresses
        else:
            covers = (number + 1,)  # on its own line: the next line
        span = Span(number, column, number, len(text) + 1)
        yield Suppression(model.config_path, span, covers, codes, model.dir.path)


def apply_suppressions(
    diagnostics: list[Diagnostic], workspace: Workspace, *, report_unused: bool = True
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add findings for unused and unknown-code suppressions."""
    suppressions = gather_suppressions(workspace)
    if not suppressions:
        return diagnostics
    return [
        *suppress(diagnostics, suppressions),
        *suppression_problems(suppressions, report_unused),
    ]


def gather_suppressions(workspace: Workspace) -> tuple[Suppression, ...]:
    """The suppression comments of the workspace's configs, and of the alternative configs
    loaded for them: an alternative's comments apply to its TC915 findings; whether the others
    are used is only known when that config is linted itself (--model-config-name)."""
    own = [s for model in workspace.models for s in _suppressions(model)]
    alternatives = [
        replace(s, alternative=True)
        for model in workspace.loaded_alternatives
        for s in _suppressions(model)
    ]
    return (*own, *alternatives)


def suppress(
    diagnostics: Iterable[Diagnostic], suppressions: Sequence[Suppression]
) -> list[Diagnostic]:
    """The diagnostics no suppression covers; each suppression notes the codes it was used for
    (so the findings of a model and those routed to it later can be suppressed apart)."""
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        hit = [s for s in suppressions if s.applies(diagnostic)]
        for suppression in hit:
            suppression.used.add(diagnostic.code)
        if not hit:
            kept.append(diagnostic)
    return kept


def suppression_problems(
    suppressions: Iterable[Suppression], report_unused: bool
) -> list[Diagnostic]:
    """Unknown codes (TC011) and, once every finding went through `suppress`, the unused (TC010)."""
    return [
        problem
        for suppression in suppressions
        for problem in _problems(suppression, report_unused and not suppression.alternative)
    ]


def suppression_test(model: LoadedModel) -> Callable[[str, Span], bool]:
    """Whether a comment of the model's own config suppresses a code at a span (for the findings
    one rule derives from another's, e.g. TC915 from an alternative config's); the comments are
    read once."""
    suppressions = list(_suppressions(model))

    def suppressed(code: str, span: Span) -> bool:
        probe = Diagnostic(code, "", Severity.ERROR, "", model.config_path, span)
        return any(s.applies(probe) for s in suppressions)

    return suppressed


def _problems(suppression: Suppression, report_unused: bool) -> Iterator[Diagnostic]:
    def make(rule: Rule, message: str) -> Diagnostic:
        return Diagnostic(
            rule.code, rule.name, rule.severity, message, suppression.path, suppression.span
        )

    codes = suppression.codes or ()
    for code in codes:
        if code not in rule_index():  # the table knows every code: no family is imported
            yield make(UNKNOWN, f"suppression names {code}, {_not_a_rule(code)}")
    if not report_unused:
        return
    if suppression.codes is None:
        if not suppression.used:
            yield make(UNUSED, "this suppression comment suppresses nothing; remove it")
        return
    unused = [c for c in codes if c in rule_index() and c not in suppression.used]
    if unused:
        yield make(UNUSED, f"this suppression of {', '.join(unused)} suppresses nothing; remove it")


def _not_a_rule(code: str) -> str:
    row = table().get(code)
    if row is None:
        return "which is not a tritoncfg rule"
    return f"a rule removed in {row.since}" + (
        f"; {row.redirect} replaces it" if row.redirect else ""
    )


UNUSED = emitted_rule(
    "TC010",
    "UNUSED",
    severity=Severity.WARNING,
    summary="A `# tritoncfg: noqa` comment that suppresses nothing.",
    phase=Phase.PARSE,
    doc="""
    ## What it does
    Reports a suppression comment (`# tritoncfg: noqa`, `# tritoncfg: noqa TC203`,
    `# tritoncfg: noqa-file TC203`) under which no diagnostic was found. The engine emits it
    after the other rules ran; this rule itself finds nothing.

    ## Why it matters
    Stale suppressions hide the next real problem on that line.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8  # tritoncfg: noqa TC903
    dynamic_batching { }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { }
    ```
    """,
    module=__name__,
)


UNKNOWN = emitted_rule(
    "TC011",
    "UNKNOWN",
    severity=Severity.WARNING,
    summary="A `# tritoncfg: noqa` comment names a code that is not a tritoncfg rule.",
    phase=Phase.PARSE,
    doc="""
    ## What it does
    Reports codes in suppression comments that no rule has (a typo, or a rule that was removed).
    The engine emits it; this rule itself finds nothing.

    ## Why it matters
    The suppression does nothing, and whoever reads it thinks it does.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8  # tritoncfg: noqa TC999
    dynamic_batching { }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { }
    ```
    """,
    module=__name__,
)
