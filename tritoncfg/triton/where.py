"""Where in config.pbtxt a Triton message points: the line a parse error names, the span of the
lint finding that carries the same message, or the field or tensor the message mentions."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.text import ParsedConfig
from tritoncfg.text.bind import FieldPath
from tritoncfg.text.span import FILE_START, Span
from tritoncfg.triton.load import TritonError


def same_message(ours: str, theirs: str) -> bool:
    """Triton's text and tritoncfg's rendering of it, compared loosely (case, spaces, end marks)."""
    a, b = _normal(ours), _normal(theirs)
    return bool(a and b) and (a == b or a in b or b in a)


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(" .;")


def matching_finding(error: TritonError, findings: Sequence[Diagnostic]) -> Diagnostic | None:
    """The lint finding (of the same model) that reports what Triton reported."""
    if error.phase == "PARSE" and error.line is not None:
        on_line = [d for d in findings if d.span.line == error.line and d.code.startswith("TC0")]
        before = [d for d in on_line if d.span.column <= (error.column or 0)]
        chosen = max(before, key=lambda d: d.span.column) if before else None
        return chosen or (on_line[0] if on_line else None)
    for d in findings:
        if (
            d.triton is not None
            and d.triton.message
            and same_message(d.triton.message, error.message)
        ):
            return d
    return None


def _named(collection: str, key: str) -> Callable[[ParsedConfig, re.Match[str]], FieldPath]:
    """input 'X' -> ("input", i) for the input named X."""

    def path(config: ParsedConfig, found: re.Match[str]) -> FieldPath:
        for index, item in enumerate(getattr(config.message, collection)):
            if getattr(item, key) == found[1]:
                return (collection, index)
        return (collection,)

    return path


def _fixed(*path: str | int) -> Callable[[ParsedConfig, re.Match[str]], FieldPath]:
    return lambda config, found: path


def _group(config: ParsedConfig, found: re.Match[str]) -> FieldPath:
    name = found[1]
    for index, group in enumerate(config.message.instance_group):
        if name in (group.name, f"{config.message.name}_{index}"):
            return ("instance_group", index)
    return ("instance_group",)


# The first pattern that matches wins: specific before general.
_FIELDS: tuple[tuple[re.Pattern[str], Callable[[ParsedConfig, re.Match[str]], FieldPath]], ...] = (
    (re.compile(r"\binput '([^']+)'"), _named("input", "name")),
    (re.compile(r"\boutput '([^']+)'"), _named("output", "name")),
    (re.compile(r"instance group (\S+) of model"), _group),
    (re.compile(r"preferred (batch )?size"), _fixed("dynamic_batching", "preferred_batch_size")),
    (re.compile(r"dynamic[ _]batching"), _fixed("dynamic_batching")),
    (
        re.compile(r"sequence[ _]batching|control tensor|sequence batcher"),
        _fixed("sequence_batching"),
    ),
    (re.compile(r"\bensemble\b"), _fixed("ensemble_scheduling")),
    (re.compile(r"warmup"), _fixed("model_warmup")),
    (re.compile(r"max[ _]batch[ _]size"), _fixed("max_batch_size")),
    (re.compile(r"instance[ _]group|rate limiter"), _fixed("instance_group")),
    (re.compile(r"response[ _]cache"), _fixed("response_cache")),
    (re.compile(r"\bplatform\b"), _fixed("platform")),
    (re.compile(r"\bbackend\b"), _fixed("backend")),
    (re.compile(r"version[ _]policy|\bversion\b"), _fixed("version_policy")),
    (re.compile(r"\bparameters?\b"), _fixed("parameters")),
)


def field_span(config: ParsedConfig | None, message: str) -> Span:
    """The span of the field the message mentions (its nearest written parent), else file start."""
    if config is None:
        return FILE_START
    for pattern, to_path in _FIELDS:
        found = pattern.search(message)
        if found is not None:
            span = config.span_of(to_path(config, found))
            if span != FILE_START:
                return span
    return FILE_START


def locate(
    error: TritonError, config: ParsedConfig | None, findings: Sequence[Diagnostic]
) -> tuple[Span, Diagnostic | None]:
    """The span for a TC000 and the lint finding that reports the same thing, if any."""
    matched = matching_finding(error, findings)
    if matched is not None:
        return matched.span, matched
    if error.line is not None:
        return Span.point(error.line, error.column or 1), None
    return field_span(config, error.message), None
