"""The rule registry: a rule is metadata plus a pure check function that yields findings.

A rule's docstring is its documentation (What it does / Why it matters / Example / Fix); the CLI,
`tritoncfg rules`, `explain` and docs/rules.md all read it from here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import field
from enum import StrEnum
from pathlib import Path
from typing import Literal, TypeVar

from tritoncfg.complete import Completion, complete_core
from tritoncfg.diagnostics import Fix, Severity
from tritoncfg.models import ModelIO, Unknowable
from tritoncfg.record import record
from tritoncfg.repository import Repository
from tritoncfg.schema import ModelConfig
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.workspace import LoadedModel, Workspace

TritonMode = Literal["default", "strict"]
Gate = Callable[[ModelConfig], bool]  # whether a config uses the feature a rule checks


class Phase(StrEnum):
    """The step of Triton's model load that applies a check, in pipeline order (default mode;
    strict mode validates inputs and outputs before NAME: see ensemble_deps)."""

    PARSE = "PARSE"  # model_config_utils.cc: GetNormalizedModelConfig reads the text proto
    REPO = "REPO"  # model_repository_manager.cc: the repository poll
    AUTOFILL = "AUTOFILL"  # model_config_utils.cc: AutoCompleteBackendFields
    VALIDATE = "VALIDATE"  # model_config_utils.cc: ValidateModelConfig
    NAME = "NAME"  # model_repository_manager.cc: the config's name against its directory
    VERSIONS = "VERSIONS"  # model_lifecycle.cc: the version policy selects versions
    BACKEND_CREATE = "BACKEND_CREATE"  # backend_model.cc: TritonModel::Create
    VALIDATE_IO = "VALIDATE_IO"  # model_config_utils.cc: ValidateModelIOConfig
    MODEL_INIT = "MODEL_INIT"  # the backend's TRITONBACKEND_ModelInitialize
    INSTANCE = "INSTANCE"  # backend_model_instance.cc: instances, warmup
    SCHEDULER = "SCHEDULER"  # dynamic_batch_scheduler.cc, sequence_batch_scheduler.cc
    DEPS = "DEPS"  # model_repository_manager.cc: an ensemble's dependency graph
    XMODEL = "XMODEL"  # ensemble_utils.cc: an ensemble against its step models
    LOAD = "LOAD"  # any step of the load: a real server's verdict (`tritoncfg verify`)
    RUNTIME = "RUNTIME"  # Triton loads the model; requests fail
    BEST_PRACTICE = "BEST_PRACTICE"  # Triton accepts the config


ModelFiles = Literal["required", "optional"]
_T = TypeVar("_T")


@record(frozen=True)
class LintOptions:
    triton_mode: TritonMode = "default"  # "strict" = --disable-auto-complete-config
    gpus: tuple[int, ...] | None = None  # visible GPUs on the target host; None = unknown
    backend_dir: Path | None = None
    config_name: str | None = None  # --model-config-name
    rate_limit: bool | None = (
        None  # --rate-limit=execution_count (True) or off (False); None = unknown
    )
    gpu_memory: int | None = None  # bytes of memory of one GPU of the target host; None = unknown
    # --rate-limit-resource: (name, count, device or None for every device); () = not given
    rate_limit_resources: tuple[tuple[str, int, int | None], ...] = ()
    triton_version: str | None = None  # --triton-version: the target release; None = newest
    # "optional": model files are fetched at deploy time, so their absence is not reported
    model_files: ModelFiles = "required"
    # backends and repository agents installed on the target host besides the standard ones
    # ([tool.tritoncfg] backends / repo-agents)
    backends: tuple[str, ...] = ()
    repo_agents: tuple[str, ...] = ()


@record(frozen=True)
class Finding:
    """What a check reports; the engine adds code, rule name, severity and model."""

    message: str
    span: Span = FILE_START
    path: str | None = None  # defaults to the model's config file
    triton_message: str | None = None
    severity: Severity | None = None  # overrides the rule's (e.g. info when host facts are unknown)
    phase: Phase | None = (
        None  # overrides the rule's Triton phase (e.g. VALIDATE_IO in strict mode)
    )
    fix: Fix | None = None  # edits to the config file that resolve it (--fix)


@record
class CheckContext:
    workspace: Workspace
    options: LintOptions
    _completions: dict[int, Completion] = field(default_factory=dict)
    _model_ios: dict[int, ModelIO | Unknowable | None] = field(default_factory=dict)
    _memo: dict[tuple[object, ...], object] = field(default_factory=dict)
    _findings: dict[int, dict[str, list[Finding]]] = field(default_factory=dict)

    def memo(self, key: tuple[object, ...], compute: Callable[[], _T]) -> _T:
        """`compute()` once per lint run for `key`: for facts several rules or models share
        (a repository-wide index, a step model's first error)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

    def findings_of(self, model: LoadedModel) -> dict[str, list[Finding]]:
        """The findings computed so far for a model, by rule code: the engine and the ensemble
        checks, which need a step model's first error, share them (`RulePlan.run`)."""
        computed = self._findings.get(id(model))
        if computed is None:
            computed = self._findings[id(model)] = {}
        return computed

    def completion(self, model: LoadedModel) -> Completion:
        """The model's config after Triton's AUTOFILL and NORMALIZE (computed once per model)."""
        key = id(model)
        if key not in self._completions:
            message = model.config.message if model.config is not None else None
            self._completions[key] = complete_core(message, model.dir)
        return self._completions[key]

    def model_io(self, model: LoadedModel) -> ModelIO | Unknowable | None:
        """What the model file Triton would load (highest selected version, the completed
        config's backend) says about its inputs and outputs, read once per model; Unknowable when
        it cannot be known here (and why), None when there is no model file to read."""
        key = id(model)
        if key not in self._model_ios:
            from tritoncfg.models.locate import read_model_io  # readers import onnx lazily

            self._model_ios[key] = read_model_io(model.dir, self.config(model))
        return self._model_ios[key]

    def config(self, model: LoadedModel) -> ModelConfig:
        """Shorthand: the completed config."""
        return self.completion(model).config

    def io_config(self, model: LoadedModel) -> ModelConfig:
        """The config whose inputs and outputs Triton's Model::Init validates: in default mode,
        after the backend auto-completed it from the model file (I/O checks run after
        the backend loaded); the core-completed config when there is no readable model file."""
        if self.strict:
            return self.config(model)
        return self.memo(("io-config", id(model)), lambda: self._backend_completed(model))

    def _backend_completed(self, model: LoadedModel) -> ModelConfig:
        from tritoncfg.complete.full import complete_model
        from tritoncfg.models.io import ModelIO

        config = self.config(model)
        described = self.model_io(model)
        if not isinstance(described, ModelIO):
            return config
        gpus = self.options.gpus
        if gpus is None and config.backend == "tensorrt":
            gpus = (0,)  # a TensorRT engine runs only where there is a GPU
        done = complete_model(
            model,
            model_io=described,
            gpus=gpus,
            peer=lambda name: self.workspace.peer(model, name),
        )
        # when the backend fails first, its own rules (TC8xx) say why
        return done.config if done.ok else config

    @property
    def strict(self) -> bool:
        return self.options.triton_mode == "strict"


def at(model: LoadedModel, *path: str | int, value: bool = False) -> Span:
    """The span of a field path in the model's config (its nearest written parent if not written).

    `value=True` points at the value rather than the field name."""
    if model.config is None:
        return FILE_START
    return model.config.span_of(path, value=value)


def checkable(model: LoadedModel, options: LintOptions) -> bool:
    """Whether Triton gets past PARSE for this model, so that the checks of its meaning apply.

    A missing config is an empty one when auto-complete is on (model_config_utils.cc:
    `GetNormalizedModelConfig`)."""
    if model.dir.is_hidden or not model.dir.accessible:
        return False  # reported by TC101 / TC103
    if model.config is not None:
        return model.config.ok
    return (
        not model.dir.config_exists
        and model.read_error is None
        and options.triton_mode == "default"
    )


ModelCheck = Callable[[LoadedModel, CheckContext], Iterable[Finding]]
RepositoryCheck = Callable[[Repository, CheckContext], Iterable[Finding]]


@record(frozen=True)
class Rule:
    """A rule's metadata. A plain `Rule` is emitted by the engine or a command, never run: the
    skipped-checks note, the suppression findings, `verify`'s verdict."""

    code: str
    name: str
    severity: Severity
    summary: str
    phase: Phase  # the step of Triton's load pipeline that applies the same check
    doc: str
    # the config feature the rule needs (see gates.py), or None: a rule whose gate is shut for
    # a config has nothing to find in it and is not called
    gate: Gate | None
    needs_valid_config: bool  # skipped (and said so) when the config did not parse
    fixable: bool
    # Triton's order within the phase, where it is not the registration order (the rate limiter
    # registers an instance after its warmup data is made); decides which first error an
    # ensemble reports for a step model
    step: int


@record(frozen=True)
class ModelRule(Rule):
    """A rule the engine runs on each model."""

    check: ModelCheck


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


def _doc(function: Callable[..., object]) -> str:
    return inspect.cleandoc(function.__doc__ or "")


def model_rule(
    code: str,
    name: str,
    *,
    severity: Severity,
    summary: str,
    phase: Phase,
    gate: Gate | None = None,
    needs_valid_config: bool = True,
    fixable: bool = False,
    step: int = 0,
) -> Callable[[ModelCheck], ModelRule]:
    """Declares the decorated check as a model rule; the name is bound to the `ModelRule`."""

    def decorate(check: ModelCheck) -> ModelRule:
        return _register(
            ModelRule(
                code=code,
                name=name,
                severity=severity,
                summary=summary,
                phase=phase,
                doc=_doc(check),
                gate=gate,
                needs_valid_config=needs_valid_config,
                fixable=fixable,
                step=step,
                check=check,
            )
        )

    return decorate


def repository_rule(
    code: str, name: str, *, severity: Severity, summary: str, phase: Phase
) -> Callable[[RepositoryCheck], RepositoryRule]:
    """Declares the decorated check as a repository rule; the name is bound to the rule."""

    def decorate(check: RepositoryCheck) -> RepositoryRule:
        return _register(
            RepositoryRule(
                code=code,
                name=name,
                severity=severity,
                summary=summary,
                phase=phase,
                doc=_doc(check),
                gate=None,
                needs_valid_config=False,
                fixable=False,
                step=0,
                check=check,
            )
        )

    return decorate


def emitted_rule(
    code: str, name: str, *, severity: Severity, summary: str, phase: Phase, doc: str
) -> Rule:
    """Declares a rule that no check finds: the engine or a command emits its diagnostics."""
    return _register(
        Rule(
            code=code,
            name=name,
            severity=severity,
            summary=summary,
            phase=phase,
            doc=inspect.cleandoc(doc),
            gate=None,
            needs_valid_config=False,
            fixable=False,
            step=0,
        )
    )
