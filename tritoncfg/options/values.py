"""The parsers of lint option values, written as on the command line or in the settings file.
A bad value raises `OptionError`, whose message names the option as the command line spells it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from tritoncfg.diagnostics import Severity
from tritoncfg.options.choices import ModelFiles, RateLimit, TritonMode

RateLimitResource = tuple[str, int, int | None]  # (name, count, device or None for every device)


class OptionError(ValueError):
    """An option value that cannot be used: a malformed value or a rule selector no rule has."""


def parse_triton_mode(value: str | None) -> Literal["default", "strict"]:
    return "strict" if value == TritonMode.strict else "default"


def parse_model_files(value: str | None) -> Literal["required", "optional"]:
    return "optional" if value == ModelFiles.optional else "required"


def parse_gpus(value: str | Sequence[int] | None) -> tuple[int, ...] | None:
    """`"0,1"`, `[0, 1]` or `"none"` (no GPU); None: unknown."""
    if value is None:
        return None
    if not isinstance(value, str):
        return tuple(sorted(set(value)))
    if value.strip().lower() == "none":
        return ()
    try:
        return tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        raise OptionError(
            f"--gpus expects a comma-separated list of GPU ids or 'none', got {value!r}"
        ) from None


def parse_gpu_count(value: str | int) -> int:
    """simulate's and tune's `--gpus`: how many GPUs a KIND_GPU group without `gpus` runs its
    count on, as a number (`2`) or as lint's list of GPU ids (`0,1`: two). A single id is read
    as a number: `--gpus 2` is two GPUs here."""
    text = str(value) if isinstance(value, int) else value.strip()  # int: the default
    if "," in text:
        try:
            ids = parse_gpus(text)
        except OptionError:
            ids = None  # this option's own message below: "none" is not a count here
        if ids:
            return len(ids)
    elif text.isdigit() and int(text) >= 1:
        return int(text)
    raise OptionError(
        f"--gpus expects a number of GPUs (at least 1) or a comma-separated list of GPU ids,"
        f" got {value!r}"
    )


def parse_gpu_memory(value: str | int | None) -> int | None:
    if value is None:
        return None
    from tritoncfg.units import parse_size

    try:
        return parse_size(value)
    except ValueError as exc:
        raise OptionError(f"--gpu-memory: {exc}") from None


def parse_rate_limit(value: str | None) -> bool | None:
    """execution_count: True, off: False, None: unknown."""
    if value is None:
        return None
    if value not in tuple(RateLimit):
        raise OptionError(f"--rate-limit expects off or execution_count, got {value!r}")
    return value == RateLimit.execution_count


def parse_rate_limit_resource(text: str) -> RateLimitResource:
    """Triton's `--rate-limit-resource=<name>:<count>[:<device>]` (rate_limiter.cc:
    `RateLimiter::ResourceManager::ParseAndValidateExplicitResources`). Raises ValueError."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0]:
        raise ValueError(f"expected <name>:<count>[:<device>], got {text!r}")
    try:
        count = int(parts[1])
        device = int(parts[2]) if len(parts) == 3 else None
    except ValueError:
        raise ValueError(f"count and device must be integers in {text!r}") from None
    if count < 0 or (device is not None and device < 0):
        raise ValueError(f"count and device must not be negative in {text!r}")
    return parts[0], count, device


def parse_rate_limit_resources(values: Sequence[str] | None) -> tuple[RateLimitResource, ...]:
    try:
        return tuple(parse_rate_limit_resource(value) for value in values or ())
    except ValueError as exc:
        raise OptionError(f"--rate-limit-resource: {exc}") from None


def parse_triton_version(value: str | None) -> str | None:
    if value is None:
        return None
    from tritoncfg.schema.releases import UnknownRelease, find_release

    try:
        find_release(str(value))
    except UnknownRelease as exc:
        raise OptionError(f"--triton-version: {exc}") from None
    return str(value)


def parse_severities(merged: Mapping[str, str]) -> dict[str, Severity]:
    """selector -> Severity."""
    found = {}
    for selector, value in merged.items():
        try:
            found[selector] = Severity(value)
        except ValueError:
            raise OptionError(
                f"severity override {selector}={value}: {value!r} is not a severity; "
                "use error, warning or info"
            ) from None
    return found


def split_selectors(values: Sequence[str] | None) -> tuple[str, ...]:
    """`--select TC1,TC2 --select TC9` → ("TC1", "TC2", "TC9")."""
    return tuple(
        part.strip() for value in values or () for part in value.split(",") if part.strip()
    )


def severity_pairs(values: Sequence[str] | None) -> dict[str, str]:
    """`--severity-override TC901=error` (repeatable) → {selector: severity}."""
    pairs = {}
    for value in values or ():
        selector, _, severity = value.partition("=")
        if not severity:
            raise OptionError(f"--severity-override expects CODE=SEVERITY, got {value!r}")
        pairs[selector.strip()] = severity.strip()
    return pairs
