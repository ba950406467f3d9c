"""Triton's verdict on each model beside tritoncfg's, and the TC000 diagnostics it gives.

A model ends in one of four Triton states:

* READY: loaded; tritoncfg agrees when it reports no error for it.
* REJECTED: Triton refused the config; tritoncfg agrees when it reports an error.
* BACKEND_UNAVAILABLE: the server has no library for the model's backend (onnxruntime on the
  pytriton server). Triton's core validation passed; the backend's own checks never ran, so
  nothing is compared: it is a fact about this server, not a config error.
* AGENT_UNAVAILABLE: likewise for a repository agent (`model_repository_agents`) whose library
  is not in the server's repository agent folder.
* DEPENDENCY_FAILED: an ensemble whose step model did not load. Compared as the step's verdict
  (unverified when the step's backend is what is missing).

tritoncfg's side of the comparison is its ERROR findings from rules that mirror a Triton check:
a best-practice rule (phase BEST_PRACTICE, e.g. TC910 unfilled `${...}` placeholder) or a
RUNTIME rule (the model loads and requests fail, e.g. TC312 required inputs declared twice: a
warning, unless a severity override makes it an error) is not compared, by design.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from tritoncfg.checks import RULES
from tritoncfg.checks.verify.triton_rejected import TRITON_REJECTED
from tritoncfg.diagnostics import Diagnostic, Severity, TritonVerdict
from tritoncfg.record import field, record
from tritoncfg.text.span import FILE_START
from tritoncfg.triton.load import LoadOutcome, TritonError
from tritoncfg.triton.where import locate
from tritoncfg.workspace import LoadedModel

TritonState = Literal[
    "READY", "REJECTED", "BACKEND_UNAVAILABLE", "AGENT_UNAVAILABLE", "DEPENDENCY_FAILED"
]

_MISSING_BACKEND = re.compile(r"unable to find backend library for backend '([^']+)'")
_MISSING_AGENT = re.compile(
    r"unable to find '(?P<lib>[^']+)' for repo agent '(?P<agent>[^']+)', searched: (?P<dir>\S+)"
)

# A parse error on a field or value newer than the server (tritoncfg.schema.releases) is a
# version difference, not a config error on current Triton.
_NO_FIELD = re.compile(r'Message type "inference\.([\w.]+)" has no field named "(\w+)"')


@record
class ModelVerdict:
    model: str
    config_path: str
    triton_state: TritonState
    triton_errors: tuple[TritonError, ...]
    tritoncfg_errors: list[Diagnostic]
    agree: bool
    verified: bool = True  # False when Triton could not judge the config on this server
    note: str | None = None  # why unverified, or the known difference behind a disagreement
    diagnostics: list[Diagnostic] = field(default_factory=list)  # the TC000s

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "path": self.config_path,
            "triton_state": self.triton_state,
            "triton_errors": [e.to_json() for e in self.triton_errors],
            "tritoncfg_errors": [
                {"code": d.code, "rule": d.rule, "message": d.message, "line": d.span.line or None}
                for d in self.tritoncfg_errors
            ],
            "agree": self.agree,
            "verified": self.verified,
            "note": self.note,
        }


def missing_backend(message: str, backend_dir: Path) -> str | None:
    """The backend a message says has no library, when `backend_dir` indeed lacks it."""
    found = _MISSING_BACKEND.search(message)
    if found is None:
        return None
    name = found[1]
    if (backend_dir / name / f"libtriton_{name}.so").exists():
        return None  # the library is there: the message means something else
    return name


def missing_agent(message: str) -> tuple[str, str] | None:
    """(agent, folder searched) when a message says a repository agent's library is missing."""
    found = _MISSING_AGENT.search(message)
    if found is None or (Path(found["dir"]) / found["lib"]).exists():
        return None
    return found["agent"], found["dir"]


def _unavailable_note(message: str, backend_dir: Path) -> tuple[TritonState, str] | None:
    """Why the server could not judge the config, from one of its messages."""
    backend = missing_backend(message, backend_dir)
    if backend is not None:
        return "BACKEND_UNAVAILABLE", (
            f"backend not available on this server: no libtriton_{backend}.so under "
            f"{backend_dir}; Triton's core checks passed, the backend's own were not run"
        )
    agent = missing_agent(message)
    if agent is not None:
        return "AGENT_UNAVAILABLE", (
            f"repository agent '{agent[0]}' not available on this server (none in {agent[1]})"
        )
    return None


def triton_checked(diagnostic: Diagnostic) -> bool:
    """An ERROR that predicts a Triton refusal: not a best-practice rule's, nor a RUNTIME one's
    (the model loads and its requests fail, e.g. TC312 made an error by a severity override)."""
    rule = RULES.get(diagnostic.code)
    return diagnostic.severity is Severity.ERROR and (
        rule is None or rule.phase not in ("BEST_PRACTICE", "RUNTIME")
    )


def version_difference(error: TritonError, version: tuple[int, int] | None) -> str | None:
    """Why a server's parse error is a version difference (the field is newer than the server,
    per the release table of model_config.proto), or None."""
    match = _NO_FIELD.search(error.message) if error.phase == "PARSE" else None
    if match is None or version is None:
        return None
    from tritoncfg.schema.releases import release_table

    table = release_table()
    first = table.first_release.get(f"{match[1]}.{match[2]}")
    added = next((r for r in table.releases if r.container == first), None)
    if added is None or version >= tuple(int(p) for p in added.triton.split(".")):
        return None
    release = ".".join(map(str, version))
    return (
        f"known version difference: Triton {release} predates the field {match[2]} (added in "
        f"{added}); newer servers accept it"
    )


def errors_by_model(
    diagnostics: Sequence[Diagnostic], models: Sequence[LoadedModel]
) -> dict[str, list[Diagnostic]]:
    """Lint diagnostics per model name; repository-level ones go to the model whose folder holds
    their path."""
    found: dict[str, list[Diagnostic]] = {m.name: [] for m in models}
    folders = {str(m.dir.path): m.name for m in models}
    for d in diagnostics:
        owner = d.model
        if owner is None:
            owner = next(
                (n for p, n in folders.items() if d.path == p or d.path.startswith(p + "/")), None
            )
        if owner in found:
            found[owner].append(d)
    return found


@record(frozen=True)
class Context:
    """What judging one model needs to know about the others and the server."""

    outcomes: Mapping[str, LoadOutcome]  # every model's load, by name
    lint_rejects: frozenset[str]  # models lint reports an error for
    backend_dir: Path  # the server's --backend-directory
    version: tuple[int, int] | None  # the server's release, (2, 51)


def judge(
    model: LoadedModel, outcome: LoadOutcome, findings: Sequence[Diagnostic], ctx: Context
) -> ModelVerdict:
    """The verdict for one model, with a TC000 per Triton error it could judge."""
    errors = [d for d in findings if triton_checked(d)]
    verdict = ModelVerdict(
        model.name, model.config_path, "READY", outcome.errors, errors, agree=not errors
    )
    if outcome.loaded:
        return verdict
    unavailable = next(
        (u for e in outcome.errors if (u := _unavailable_note(e.message, ctx.backend_dir))), None
    )
    dependency = next((e.dependency for e in outcome.errors if e.dependency), None)
    if dependency is not None:
        verdict.triton_state = "DEPENDENCY_FAILED"
        if unavailable is not None or _unverified(ctx.outcomes.get(dependency), ctx.backend_dir):
            verdict.agree, verdict.verified = True, False
            verdict.note = f"depends on '{dependency}', which this server cannot load"
            return verdict
        verdict.note = f"Triton did not load its step model '{dependency}'"
    elif unavailable is not None:
        verdict.triton_state, verdict.note = unavailable
        verdict.agree, verdict.verified = True, False
        return verdict
    else:
        verdict.triton_state = "REJECTED"
    # an ensemble refused for its step agrees with a lint error on that step
    verdict.agree = bool(errors) or dependency in ctx.lint_rejects
    for error in outcome.errors:
        difference = version_difference(error, ctx.version)
        if difference is not None:
            verdict.note = difference
        verdict.diagnostics.append(_tc000(model, error, findings, difference))
    return verdict


def _unverified(outcome: LoadOutcome | None, backend_dir: Path) -> bool:
    if outcome is None or outcome.loaded:
        return False
    return any(_unavailable_note(e.message, backend_dir) for e in outcome.errors)


def _tc000(
    model: LoadedModel, error: TritonError, findings: Sequence[Diagnostic], difference: str | None
) -> Diagnostic:
    span, _ = locate(error, model.config, findings)
    text = error.message
    if error.line is not None:
        text = f"{error.line}:{error.column}: {text}"
    message = f"Triton refused the model: {text}"
    if difference is not None:
        message += f" ({difference})"
    path = model.config_path if model.dir.config_exists else str(model.dir.path)
    return Diagnostic(
        TRITON_REJECTED.code,
        TRITON_REJECTED.name,
        Severity.ERROR,
        message,
        path,
        span if model.dir.config_exists else FILE_START,
        model.name,
        TritonVerdict(error.phase, error.message),
    )
