"""The enumerated option values several commands share (lint, complete, verify, gen, tune,
and the `--format text|json` of verify, diff, rules, simulate, tune and version)."""

from __future__ import annotations

from enum import StrEnum


class TritonMode(StrEnum):
    """default: Triton's auto-complete on; strict: `--disable-auto-complete-config`."""

    default = "default"
    strict = "strict"


class ModelFiles(StrEnum):
    """required: a version without its model file fails; optional: fetched at deploy time."""

    required = "required"
    optional = "optional"


class RateLimit(StrEnum):
    """Triton's `--rate-limit`."""

    off = "off"
    execution_count = "execution_count"


class TextOrJson(StrEnum):
    """`--format` of the commands that print text or one JSON document."""

    text = "text"
    json = "json"
