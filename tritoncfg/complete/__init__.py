"""Triton's auto-complete and normalization, offline: what the config becomes before validation.

Core only (`model_config_utils.cc`; see docs/complete.md): backend-field autofill and NormalizeModelConfig. Backend auto-complete
from model files (ONNX inputs/outputs, ...) and instance-group normalization build on this.
"""

from __future__ import annotations

from tritoncfg.complete.autofill import autofill_backend_fields
from tritoncfg.complete.normalize import normalize_model_config
from tritoncfg.record import record
from tritoncfg.repository import ModelDir
from tritoncfg.schema import ModelConfig


@record
class Completion:
    """The config as Triton's VALIDATE phase sees it (after AUTOFILL and NORMALIZE)."""

    config: ModelConfig
    autofill_error: str | None = None  # `AutoCompleteBackendFields`: no backend could be determined

    @property
    def name(self) -> str:
        return self.config.name


def complete_core(config: ModelConfig | None, model: ModelDir) -> Completion:
    """A completed copy of `config` (an absent config is an empty one, as in auto-complete mode)."""
    completed = ModelConfig()
    if config is not None:
        completed.CopyFrom(config)
    error = autofill_backend_fields(completed, model)
    normalize_model_config(completed)
    return Completion(completed, error)


__all__ = ["Completion", "complete_core"]
