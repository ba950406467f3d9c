"""Which rules run: `--select` / `--extend-select` / `--ignore` by code, prefix or name (like ruff)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from tritoncfg.checks.core.index import load_rules
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import ModelRule, RepositoryRule, Rule
from tritoncfg.checks.core.table import rule_index, table
from tritoncfg.checks.parse.codes import CHECKS_SKIPPED_CODE, PARSE_ERRORS
from tritoncfg.diagnostics import Severity
from tritoncfg.file_selection import FileSelection
from tritoncfg.record import field, record, replace

ALL = "ALL"
# The engine's own note and the parse errors: selection cannot hide a config Triton cannot read,
# nor why the other checks did not run.
ALWAYS_ON = frozenset({CHECKS_SKIPPED_CODE, *PARSE_ERRORS})
# the steps after which Triton has loaded the model (or that it never applies)
_NOT_LOAD = frozenset({Phase.RUNTIME, Phase.BEST_PRACTICE})


class SelectorError(ValueError):
    """A selector that matches no rule."""


def matches(rule: Rule, selector: str) -> bool:
    """`TC203` (code), `TC2` (prefix), `preferred-batch-size-exceeds-max` (name), or `ALL`."""
    return _matches(rule.code, rule.name, selector)


def _matches(code: str, name: str, selector: str) -> bool:
    return selector == ALL or code.startswith(selector) or name == selector


def check_selectors(selectors: Iterable[str]) -> None:
    """Raise for a selector that names no rule (asks the index: imports no family)."""
    index = rule_index()
    for selector in selectors:
        removed = table().get(selector)
        if removed is not None and removed.lifecycle == "removed":
            raise SelectorError(
                f"rule {selector} was removed in {removed.since}"
                + (f"; use {removed.redirect}" if removed.redirect else "")
            )
        if not any(_matches(code, name, selector) for code, (name, _) in index.items()):
            # only now: schema/ (protobuf) loads with it, which a valid selection never needs
            from tritoncfg.schema.lookup import suggest

            hint = suggest(selector, [*index, *(name for name, _ in index.values())])
            raise SelectorError(
                f"unknown rule selector {selector!r}"
                + (f'; did you mean "{hint}"?' if hint else "")
            )


@record(frozen=True)
class RuleSelection:
    select: tuple[str, ...] = (ALL,)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity_overrides: Mapping[str, Severity] = field(default_factory=dict)

    def selectors(self) -> list[str]:
        return [*self.select, *self.extend_select, *self.ignore, *self.severity_overrides]

    def active(self) -> list[Rule]:
        """The rules to run, in RULES order; only their families are imported."""
        rules = load_rules(self.active_codes())
        return [rules[code] for code in self.active_codes()]

    def active_codes(self) -> list[str]:
        """The codes of the rules to run, in RULES order, from the index (no family is
        imported). Like ruff, a more specific selector beats a less specific one."""
        chosen = []
        for code, (name, _) in rule_index().items():
            if code in ALWAYS_ON:
                chosen.append(code)
                continue
            selectors = [*self.select, *self.extend_select]
            if code in _preview():  # a preview rule runs only when named itself
                selectors = [s for s in selectors if s in (code, name)]
            picked = _best(code, name, selectors)
            dropped = _best(code, name, self.ignore)
            if picked is not None and (dropped is None or dropped < picked):
                chosen.append(code)
        return chosen

    @property
    def is_default(self) -> bool:
        """Every stable rule at its own severity: nothing left out."""
        return (
            self.select == (ALL,)
            and not self.extend_select
            and not self.ignore
            and not self.severity_overrides
        )

    def load_rules_left_out(self) -> tuple[list[str], list[str]]:
        """The rules that decide whether Triton loads a model (`load_rules`) that this selection
        does not run, and those it reports below error: a run without errors under it does not
        say Triton loads the repository. Loads every rule family: asked only of a selection that
        is not the default."""
        if self.is_default:
            return [], []
        active = set(self.active_codes())
        not_run, demoted = [], []
        for rule in load_deciding_rules():
            if rule.code not in active:
                not_run.append(rule.code)
            elif self.severity(rule, rule.severity) is not Severity.ERROR:
                demoted.append(rule.code)
        return not_run, demoted

    def severity(self, rule: Rule, default: Severity) -> Severity:
        if rule.code in PARSE_ERRORS:
            return default  # always an error
        for selector, severity in self.severity_overrides.items():
            if matches(rule, selector):
                return severity
        return default


@cache
def load_deciding_rules() -> tuple[Rule, ...]:
    """The rules that decide whether Triton loads a model: the error rules of a load step (not
    RUNTIME or BEST_PRACTICE) that run by default. Imports every rule family (once)."""
    return tuple(
        rule
        for code, rule in load_rules().items()
        if isinstance(rule, ModelRule | RepositoryRule)
        and code not in _preview()
        and rule.severity is Severity.ERROR
        and rule.phase not in _NOT_LOAD
    )


def selection_notes(
    selection: RuleSelection, per_path_ignores: Mapping[str, tuple[str, ...]] | None = None
) -> list[str]:
    """What a run under `selection` and `per_path_ignores` does not check of Triton's load, a
    line each (none for the defaults): `tritoncfg lint` prints them as warnings when it finds
    no error."""
    not_run, demoted = selection.load_rules_left_out()
    notes = []
    if not_run:
        notes.append(
            f"the rule selection (select, ignore) leaves out {_codes(not_run)}, which decide"
            " whether Triton loads a model: a run without errors does not say that Triton"
            " loads the repository"
        )
    if demoted:
        notes.append(
            f"severity-overrides report {_codes(demoted)} below error, though Triton refuses"
            " a model they find: their findings do not fail the run"
        )
    for pattern, selectors in (per_path_ignores or {}).items():
        hidden = [
            rule.code
            for rule in load_deciding_rules()
            if rule.code not in PARSE_ERRORS and any(matches(rule, s) for s in selectors)
        ]
        if hidden:
            notes.append(
                f"per-path-ignores leave out {_codes(hidden)} for {pattern!r}, which decide"
                " whether Triton loads a model: a run without errors does not say that Triton"
                " loads the models there"
            )
    return notes


def _codes(codes: list[str], shown: int = 5) -> str:
    rules = f"{len(codes)} rule{'s' if len(codes) > 1 else ''}"
    more = f" and {len(codes) - shown} more" if len(codes) > shown else ""
    return f"{rules} ({', '.join(codes[:shown])}{more})"


@cache
def _preview() -> frozenset[str]:
    return frozenset(row.code for row in table().values() if row.lifecycle == "preview")


def _best(code: str, name: str, selectors: Iterable[str]) -> int | None:
    """How specific the most specific matching selector is (None: none matches)."""
    scores = [_specificity(s) for s in selectors if _matches(code, name, s)]
    return max(scores) if scores else None


def _specificity(selector: str) -> int:
    if selector == ALL:
        return 0
    if selector.startswith("TC"):
        return len(selector)  # TC < TC2 < TC20 < TC203
    return 10  # a rule name is as specific as a full code


@cache
def _spec(patterns: tuple[str, ...]) -> Any:
    """Gitignore-style patterns, as ruff and yamllint read them: `models/x/`, `models/x/*`,
    `**/x/*` and `x` all cover `models/x`. pathspec costs ~20 ms to import, so only a
    configuration that has patterns imports it."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


@record(frozen=True)
class PathFilters:
    """`exclude` and `per-path-ignores` patterns (gitignore-style), relative to `base` (the
    configuration's folder); `respect_gitignore` and `force_exclude` as file_selection.py reads
    them (which models a run takes is decided there, for every command)."""

    base: Path | None = None
    exclude: tuple[str, ...] = ()
    per_path_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    respect_gitignore: bool = False  # the settings' default is True (lintoptions)
    force_exclude: bool = False
    files: FileSelection = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        selection = FileSelection(
            self.base, self.exclude, self.respect_gitignore, self.force_exclude
        )
        object.__setattr__(self, "files", selection)

    def fresh(self) -> PathFilters:
        """The same filters, the ignore files to be read again (a new run)."""
        return replace(self)

    def _relative(self, path: Path | str) -> str:
        target = Path(path).resolve()
        base = (self.base or Path.cwd()).resolve()
        return (
            target.relative_to(base).as_posix()
            if target.is_relative_to(base)
            else target.as_posix()
        )

    def excluded(self, model_dir: Path | str, *, named: bool = False) -> bool:
        """Whether a model directory is left out (`FileSelection.skips_model`): `named`, given on
        the command line (itself or a config file in it), or found in its repository."""
        return self.files.skips_model(model_dir, named=named)

    def ignored(self, rule: Rule, path: Path | str) -> bool:
        if not self.per_path_ignores or rule.code in PARSE_ERRORS:
            return False
        rel = self._relative(path)
        directory = Path(path).is_dir()  # TC104/TC105 are about a model directory
        return any(
            any(matches(rule, s) for s in selectors)
            and _covers(_spec((pattern,)), rel, directory=directory)
            for pattern, selectors in self.per_path_ignores.items()
        )


def _covers(spec: Any, rel: str, *, directory: bool) -> bool:
    if not directory:
        return bool(spec.match_file(rel))
    return bool(spec.match_file(rel + "/") or spec.match_file(rel + "/config.pbtxt"))
