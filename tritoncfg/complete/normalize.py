"""NORMALIZE: Triton's `NormalizeModelConfig` (`model_config_utils.cc`), offline."""

from __future__ import annotations

from tritoncfg.schema import ModelConfig

DEFAULT_SEQUENCE_IDLE_MICROSECONDS = 1_000_000


def normalize_model_config(config: ModelConfig) -> None:
    """Apply Triton's defaults in place (after autofill, and again after backend auto-complete)."""
    if not config.HasField("version_policy"):
        config.version_policy.latest.num_versions = 1  # a present but empty `latest {}` is kept
    mbs = config.max_batch_size
    if config.HasField("dynamic_batching"):
        batching = config.dynamic_batching
        if not batching.preferred_batch_size and mbs > 0:
            batching.preferred_batch_size.append(mbs)
    if config.HasField("sequence_batching"):
        sequence = config.sequence_batching
        if sequence.max_sequence_idle_microseconds == 0:
            sequence.max_sequence_idle_microseconds = DEFAULT_SEQUENCE_IDLE_MICROSECONDS
        if sequence.HasField("oldest") and not sequence.oldest.preferred_batch_size and mbs > 0:
            sequence.oldest.preferred_batch_size.append(mbs)
    if not config.HasField("ensemble_scheduling"):
        optimization = config.optimization
        if not optimization.HasField("input_pinned_memory"):
            optimization.input_pinned_memory.enable = True
        if not optimization.HasField("output_pinned_memory"):
            optimization.output_pinned_memory.enable = True
