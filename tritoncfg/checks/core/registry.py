"""The rule registry: a rule is metadata plus a pure check function that yields findings.

A rule's docstring is its documentation (What it does / Why it matters / Example / Fix); the CLI,
`tritoncfg rules`, `explain` and docs/rules.md all read it from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from tritoncfg.checks.core.gates import Gate
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.table import TableError, row_for
from tritoncfg.diagnostics import Severity
from tritoncfg.record import record

if TYPE_CHECKING:  # the check context imports the schema: selecting rules does not need it
    from tritoncfg.checks.core.context import CheckContext, Finding
    from tritoncfg.repository import Repository
    from tritoncfg.workspace import LoadedModel

ModelCheck = Callable[["LoadedModel", "CheckContext"], Iterable["Finding"]]
# Whether a model has what a rule looks for, from a fact computed once per model and shared by
# several rules (e.g. one pass over its inputs and outputs): the engine does not call a rule
# whose `when` is False. It must be False only where the check would find nothing.
When = Callable[["LoadedModel", "CheckContext"], bool]
RepositoryCheck = Callable[["Repository", "CheckContext"], Iterable["Finding"]]


@record(frozen=True)
class Rule:
    """A rule's metadata. A plain `Rule` is emitted by the engine or a command, never run: the
    skipped-checks note, the suppression findings, `verify`'s verdict."""

    code: str
    name: str
    severity: Severity
    summary: str
    phase: Phase  # the step of Triton's load pipeline that applies the same check
    docstring: str  # as written; `doc` is it dedented
    # the config feature the rule needs (see gates.py), or None: a rule whose gate is shut for
    # a config has nothing to find in it and is not called
    gate: Gate | None
    needs_valid_config: bool  # skipped (and said so) when the config did not parse
    fixable: bool
    # Triton's order within the phase, where it is not the registration order (the rate limiter
    # registers an instance after its warmup data is made); decides which first error an
    # ensemble reports for a step model
    step: int
    module: str  # the module that declares the rule (importing it registers the rule)

    @property
    def doc(self) -> str:
        """The rule's documentation (Markdown): dedented when asked for, not when the rule is
        declared, as lint never reads it."""
        from inspect import cleandoc  # inspect costs a lint 10 ms to import: docs only

        return cleandoc(self.docstring)


@record(frozen=True)
class ModelRule(Rule):
    """A rule the engine runs on each model."""

    check: ModelCheck
    when: When | None = None  # see `When`; the gate (the config's features) is asked first


@record(frozen=True)
class RepositoryRule(Rule):
    """A rule the engine runs once on each repository."""

    check: RepositoryCheck


RULES: dict[str, Rule] = {}


_NAMES: set[str] = set()

_R = TypeVar("_R", bound=Rule)


def _register(rule: _R) -> _R:
    if rule.code in RULES:
        raise ValueError(f"duplicate rule code {rule.code}")
    if rule.name in _NAMES:
        raise ValueError(f"duplicate rule name {rule.name}")
    RULES[rule.code] = rule
    _NAMES.add(rule.name)
    return rule


def _name(code: str, module: str, attribute: str, scope: str) -> str:
    """The rule's name from its line in the rule table, which must name this declaration."""
    row = row_for(code, module, attribute)
    if row.scope != scope:
        raise TableError(f"{code} is declared as a {scope} rule; rules.tsv says {row.scope}")
    return row.name


def model_rule(
    code: str,
    *,
    severity: Severity,
    summary: str,
    phase: Phase,
    gate: Gate | None = None,
    when: When | None = None,
    needs_valid_config: bool = True,
    fixable: bool = False,
    step: int = 0,
) -> Callable[[ModelCheck], ModelRule]:
    """Declares the decorated check as a model rule; the name is bound to the `ModelRule`. Its
    name, and where it lives, come from the rule table (table.py). `when` needs a config that
    parses: it reads the model's completed config."""
    if when is not None and not needs_valid_config:
        raise ValueError(f"{code}: a rule with `when` needs a valid config")

    def decorate(check: ModelCheck) -> ModelRule:
        return _register(
            ModelRule(
                code=code,
                name=_name(code, check.__module__, check.__name__, "model"),
                severity=severity,
                summary=summary,
                phase=phase,
                docstring=check.__doc__ or "",
                gate=gate,
                needs_valid_config=needs_valid_config,
                fixable=fixable,
                step=step,
                module=check.__module__,
                check=check,
                when=when,
            )
        )

    return decorate


def repository_rule(
    code: str, *, severity: Severity, summary: str, phase: Phase
) -> Callable[[RepositoryCheck], RepositoryRule]:
    """Declares the decorated check as a repository rule; the name is bound to the rule."""

    def decorate(check: RepositoryCheck) -> RepositoryRule:
        return _register(
            RepositoryRule(
                code=code,
                name=_name(code, check.__module__, check.__name__, "repository"),
                severity=severity,
                summary=summary,
                phase=phase,
                docstring=check.__doc__ or "",
                gate=None,
                needs_valid_config=False,
                fixable=False,
                step=0,
                module=check.__module__,
                check=check,
            )
        )

    return decorate


def emitted_rule(
    code: str,
    attribute: str,
    *,
    severity: Severity,
    summary: str,
    phase: Phase,
    doc: str,
    module: str,
) -> Rule:
    """Declares a rule that no check finds: the engine or a command emits its diagnostics.
    `attribute`: the module's name for the rule, as the rule table gives it."""
    return _register(
        Rule(
            code=code,
            name=_name(code, module, attribute, "emitted"),
            severity=severity,
            summary=summary,
            phase=phase,
            docstring=doc,
            gate=None,
            needs_valid_config=False,
            fixable=False,
            step=0,
            module=module,
        )
    )
