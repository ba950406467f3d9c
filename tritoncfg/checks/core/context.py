"""What a check sees: the lint options, the context a run shares between rules (completions,
model I/O, memoized facts, findings), and what a check reports (`Finding`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tritoncfg.checks.core.options import LintOptions as LintOptions
from tritoncfg.checks.core.options import ModelFiles as ModelFiles
from tritoncfg.checks.core.options import TritonMode as TritonMode
from tritoncfg.checks.core.phase import Phase
from tritoncfg.diagnostics import Fix, Severity
from tritoncfg.record import field, record
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.workspace import LoadedModel, Workspace

if TYPE_CHECKING:  # imported when a model is checked: repository rules and routing need neither
    from tritoncfg.complete import Completion
    from tritoncfg.models import ModelIO, Unknowable
    from tritoncfg.repository.version_selection import VersionSelection
    from tritoncfg.schema import ModelConfig

_T = TypeVar("_T")
_NOTHING_ASKED: frozenset[str] = frozenset()


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
    _memo_asked: dict[tuple[object, ...], frozenset[str]] = field(default_factory=dict)
    _asked_for: dict[int, set[str]] = field(default_factory=dict)
    _memo_keys: dict[int, list[tuple[object, ...]]] = field(default_factory=dict)  # by id
    _last_model: LoadedModel | None = None
    _last_completion: Completion | None = None

    def memo(self, key: tuple[object, ...], compute: Callable[[], _T]) -> _T:
        """`compute()` once per lint run for `key`: for facts several rules or models share
        (a repository-wide index, a step model's first error). The peers `compute` asked for
        count as asked by every model that uses the fact (the cache's dependencies)."""
        memo = self._memo
        if key in memo:  # some 20 times per model: one lookup when no peer was asked for
            if self._memo_asked:
                shared = self._memo_asked.get(key)
                if shared:
                    self.workspace.asked |= shared
            return memo[key]  # type: ignore[return-value]
        value, asked = self.recorded(compute)
        memo[key] = value
        if asked:
            self._memo_asked[key] = asked
        if len(key) > 1 and type(key[1]) is int:  # (name, id(model), ...): `forget` drops it
            self._memo_keys.setdefault(key[1], []).append(key)
        return value

    def recorded(self, compute: Callable[[], _T]) -> tuple[_T, frozenset[str]]:
        """`compute()`, and the peers it asked the workspace for (asked by the caller too)."""
        workspace = self.workspace
        outer = workspace.asked
        workspace.asked = set()
        try:
            value = compute()
        finally:
            inner = workspace.asked  # what `compute` asked for
            workspace.asked = outer
            if inner:
                outer |= inner
        return value, frozenset(inner) if inner else _NOTHING_ASKED

    def findings_of(self, model: LoadedModel) -> dict[str, list[Finding]]:
        """The findings computed so far for a model, by rule code: the engine and the ensemble
        checks, which need a step model's first error, share them (`RulePlan.run`)."""
        computed = self._findings.get(id(model))
        if computed is None:
            computed = self._findings[id(model)] = {}
        return computed

    def asked_for(self, model: LoadedModel) -> set[str]:
        """The peers that `model`'s rules asked for while another model's checks ran them (an
        ensemble's, for its step's first error): the model's own dependencies all the same."""
        return self._asked_for.setdefault(id(model), set())

    def forget(self, model: LoadedModel) -> None:
        """Drop what was computed for `model` alone (its completion, model file, findings, and
        the facts memoized under `(name, id(model), ...)`): a lint of thousands of models keeps
        only what later models may share. A check that needs it again computes it again."""
        key = id(model)
        for cache in (self._completions, self._model_ios, self._findings, self._asked_for):
            cache.pop(key, None)
        for stale in self._memo_keys.pop(key, ()):
            self._memo.pop(stale, None)
            self._memo_asked.pop(stale, None)
        if self._last_model is model:
            self._last_model = self._last_completion = None

    def completion(self, model: LoadedModel) -> Completion:
        """The model's config after Triton's AUTOFILL and NORMALIZE (computed once per model)."""
        if model is self._last_model:  # the rules of one model ask for it some 50 times in a row
            return self._last_completion  # type: ignore[return-value]
        key = id(model)
        completion = self._completions.get(key)
        if completion is None:
            message = model.config.message if model.config is not None else None
            from tritoncfg.complete import complete_core  # the schema, when a model is checked

            completion = self._completions[key] = complete_core(message, model.dir)
        self._last_model, self._last_completion = model, completion
        return completion

    def model_io(self, model: LoadedModel) -> ModelIO | Unknowable | None:
        """What the model file Triton would load (highest selected version, the completed
        config's backend) says about its inputs and outputs, read once per model; Unknowable when
        it cannot be known here (and why), None when there is no model file to read."""
        key = id(model)
        if key not in self._model_ios:
            from tritoncfg.models.locate import read_model_io  # readers import onnx lazily

            self._model_ios[key] = read_model_io(
                model.dir, self.config(model), self.versions(model)
            )
        return self._model_ios[key]

    def config(self, model: LoadedModel) -> ModelConfig:
        """Shorthand: the completed config."""
        if model is self._last_model:
            return self._last_completion.config  # type: ignore[union-attr]
        return self.completion(model).config

    def versions(self, model: LoadedModel) -> VersionSelection:
        """The versions Triton loads for `model` under its completed config's version policy
        (several rules ask; computed once per model)."""
        return self.memo(("versions", id(model)), lambda: self._select_versions(model))

    def _select_versions(self, model: LoadedModel) -> VersionSelection:
        from tritoncfg.repository.version_selection import select_versions

        return select_versions(self.config(model).version_policy, model.dir.version_numbers)

    def io_config(self, model: LoadedModel) -> ModelConfig:
        """The config whose inputs and outputs Triton's Model::Init validates: in default mode,
        after the backend auto-completed it from the model file (I/O checks run after
        the backend loaded); the core-completed config when there is no readable model file."""
        if self.strict:
            return self.config(model)
        return self.memo(("io-config", id(model)), lambda: self._backend_completed(model))

    def _backend_completed(self, model: LoadedModel) -> ModelConfig:
        from tritoncfg.models.io import ModelIO

        config = self.config(model)
        described = self.model_io(model)
        if not isinstance(described, ModelIO):
            return config
        from tritoncfg.complete.full import complete_model

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
