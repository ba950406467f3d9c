"""`--suggest` for one probed model: the suggestion (`suggest.py`) set into the model's own
config, linted there, and printed only when lint accepts it.

An ensemble gets none: Triton's ensemble scheduler takes neither `dynamic_batching` nor
`instance_group`, and lint says so (TC503, TC004); its step models are tuned on their own.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from tritoncfg.probe.lintgate import describe, lint_errors
from tritoncfg.probe.plan import ModelPlan
from tritoncfg.probe.results import ModelResult
from tritoncfg.probe.suggest import Suggestion, applied, render, snippet, suggest

if TYPE_CHECKING:
    from tritoncfg.text import ParsedConfig

ENSEMBLE = (
    "an ensemble takes no dynamic_batching or instance_group (Triton's ensemble scheduler "
    "batches nothing itself): probe its step models to tune them"
)


def advise(
    plan: ModelPlan, result: ModelResult, budget_ms: float | None, target_rps: float | None
) -> tuple[str, dict[str, Any]] | None:
    """The text `--suggest` prints for the model and its JSON entry; None when the model has no
    measured batch point."""
    written = _written(plan)
    config = plan.config if written is None else written[1].message
    found = suggest(result, budget_ms, target_rps, config)
    if found is None:
        return None
    text = None
    if found.preferred_batch_size or found.instance_count is not None:
        text = _vetted(found, plan, written)
    if plan.config.HasField("ensemble_scheduling"):
        found.why.append(ENSEMBLE)
    entry = asdict(found)
    entry["snippet"] = text
    return render(found, text), entry


def _vetted(
    found: Suggestion, plan: ModelPlan, written: tuple[str, ParsedConfig] | None
) -> str | None:
    """The snippet, when lint accepts the model's config with it pasted in (the written
    `dynamic_batching` and `instance_group` replaced by it); else None, `why` saying what lint
    found. A model without a config file gets the snippet unlinted."""
    if written is None:
        return snippet(applied(found, plan.config))
    source, parsed = written
    text = snippet(applied(found, parsed.message))
    if plan.directory is not None and plan.config_path is not None and parsed.document:
        from tritoncfg.text.edits import apply_edits, delete_field

        replaced = [
            delete_field(source, f)
            for f in parsed.document.fields
            if f.name in ("dynamic_batching", "instance_group")
        ]
        pasted = apply_edits(source, replaced).rstrip("\n") + "\n" + text
        errors = lint_errors(plan.directory, {str(plan.config_path): pasted})
        if errors:
            found.why.append(f"no snippet: lint rejects the config with it: {describe(errors)}")
            return None
    return text


def _written(plan: ModelPlan) -> tuple[str, ParsedConfig] | None:
    """The model's config as written and parsed; None without one (Triton completes a config
    from the model file) or when it does not parse."""
    if plan.config_path is None:
        return None
    from tritoncfg.text import parse

    try:
        source = plan.config_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    parsed = parse(source)
    return (source, parsed) if parsed.ok else None


__all__ = ["ENSEMBLE", "advise"]
