"""The config Triton ends up with: what `GET /v2/models/<m>/config` returns after the load.

Triton's order (docs/complete.md): AUTOFILL and NORMALIZE (`complete_core`), then in BACKEND_CREATE
`NormalizeInstanceGroup` (`model_config_utils.cc`) and the backend's auto-complete from the model file (default
mode only; `backend_model.cc:TritonModel::UpdateModelConfig`), which core follows with NORMALIZE again. Ensembles get no instance groups and
have `model_transaction_policy.decoupled` set from their steps (`ensemble_utils.cc:ValidateEnsembleConfig`). Validation is not done
here: that is what `lint` reports.
"""

from __future__ import annotations

from collections.abc import Callable

from tritoncfg.complete import complete_core
from tritoncfg.complete.backend import DEFAULT_MAX_BATCH_SIZE, autocomplete_backend
from tritoncfg.complete.completion import BackendCompletion
from tritoncfg.complete.instance_groups import NormalizedGroup, normalize_instance_groups
from tritoncfg.complete.normalize import normalize_model_config
from tritoncfg.models.io import ModelIO, Unknowable
from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig, ModelInstanceGroup
from tritoncfg.workspace import LoadedModel, load_model

# Backends whose auto-complete reads the model file (and is modelled by complete/backend.py).
FILE_COMPLETED_BACKENDS = frozenset({"onnxruntime", "tensorrt"})

PeerLookup = Callable[[str], LoadedModel | None]


@record
class FullCompletion:
    """A model's final config, with why it could not be reached (`errors`) and what was
    assumed or skipped on the way (`notes`, Triton's log lines among them)."""

    config: ModelConfig
    errors: list[str] = field(default_factory=list)  # Triton would fail to load the model
    notes: list[str] = field(default_factory=list)
    groups: list[NormalizedGroup] = field(default_factory=list)  # empty for ensembles
    backend: BackendCompletion | None = None  # None when the backend's auto-complete did not run
    autofill_error: str | None = (
        None  # `Could not determine backend` (also in `errors`), as `Completion` has it
    )

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def ok(self) -> bool:
        return not self.errors


def complete_model(
    loaded: LoadedModel,
    *,
    model_io: ModelIO | Unknowable | None,
    gpus: tuple[int, ...] | None,
    default_max_batch_size: int = DEFAULT_MAX_BATCH_SIZE,
    strict: bool = False,
    peer: PeerLookup | None = None,
) -> FullCompletion:
    """The config of `loaded` after Triton's whole completion on a host with `gpus`.

    `model_io`: what the model file says (None: not read). `gpus`: the supported GPU ids of the
    target host; None (unknown) is taken as a CPU-only host, which `notes` says. `peer` finds an
    ensemble's step models (default: the other models of its repository)."""
    message = loaded.config.message if loaded.config is not None else None
    core = complete_core(message, loaded.dir)
    done = FullCompletion(core.config)
    done.errors.extend(_read_errors(loaded, strict))
    if core.autofill_error is not None:
        done.autofill_error = core.autofill_error
        done.errors.append(core.autofill_error)
    config = done.config
    if config.HasField("ensemble_scheduling"):
        lookup = peer or _repository_peers(loaded)
        config.model_transaction_policy.decoupled = _ensemble_decoupled(
            config, lookup, frozenset({config.name})
        )
        return done
    if gpus is None:
        done.notes.append(
            "the target host's GPUs are unknown (give --gpus): instance groups are completed "
            "for a host without GPUs"
        )
    done.groups = normalize_instance_groups(config, config.backend, gpus or ())
    _write_groups(config, done.groups)
    if strict or done.errors:
        return done
    if isinstance(model_io, ModelIO):
        done.backend = autocomplete_backend(
            config, model_io, default_max_batch_size=default_max_batch_size
        )
        done.errors.extend(done.backend.errors)
        done.notes.extend(done.backend.notes)
        done.config = ModelConfig()
        done.config.CopyFrom(done.backend.config)
        normalize_model_config(
            done.config
        )  # core normalizes again after the backend (`TritonModel::UpdateModelConfig`)
    elif config.backend in FILE_COMPLETED_BACKENDS:
        why = model_io.reason if isinstance(model_io, Unknowable) else "no model file was read"
        done.notes.append(
            f"the {config.backend} backend would complete '{config.name}' from its model file; "
            f"not done here: {why}"
        )
    return done


def _read_errors(loaded: LoadedModel, strict: bool) -> list[str]:
    """Triton's PARSE errors: an unreadable or broken config, or none at all in strict mode."""
    path = loaded.config_path
    if loaded.read_error is not None:
        return [f"failed to open text file for read {path}: {loaded.read_error.reason}"]
    if loaded.config is not None and not loaded.config.ok:
        return [f"failed to read text proto from {path}"]
    if loaded.config is None and strict:
        return [f"failed to open text file for read {path}: No such file or directory"]
    return []


def _write_groups(config: ModelConfig, groups: list[NormalizedGroup]) -> None:
    """Replace the written groups with the normalized ones (kind, count and gpus resolved)."""
    written = list(config.instance_group)
    del config.instance_group[:]
    for group in groups:
        out = config.instance_group.add()
        if group.index is not None:
            out.CopyFrom(written[group.index])
        out.name = group.name
        # the host is known here (gpus=() at worst), so kind and count are resolved
        kind = ModelInstanceGroup.KIND_AUTO if group.kind is None else group.kind
        out.kind = kind  # type: ignore[assignment]
        out.count = 1 if group.count is None else group.count
        del out.gpus[:]
        out.gpus.extend(group.gpus or ())


def _repository_peers(loaded: LoadedModel) -> PeerLookup:
    cache: dict[str, LoadedModel | None] = {}

    def lookup(name: str) -> LoadedModel | None:
        if name not in cache:
            found = loaded.repository.model(name)
            cache[name] = None if found is None else load_model(found, loaded.repository)
        return cache[name]

    return lookup


def _ensemble_decoupled(config: ModelConfig, peer: PeerLookup, visiting: frozenset[str]) -> bool:
    """`ValidateEnsembleConfig`: decoupled when a step model is (a nested ensemble when one of its steps is).
    Triton counts only the steps reachable from the ensemble inputs; every step counts here."""
    for step in config.ensemble_scheduling.step:
        found = None if step.model_name in visiting else peer(step.model_name)
        if found is None or found.config is None:
            continue
        step_config = found.config.message
        if step_config.HasField("ensemble_scheduling"):
            if _ensemble_decoupled(step_config, peer, visiting | {step.model_name}):
                return True
        elif step_config.model_transaction_policy.decoupled:
            return True
    return False


__all__ = ["FILE_COMPLETED_BACKENDS", "FullCompletion", "PeerLookup", "complete_model"]
