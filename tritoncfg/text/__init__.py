"""Protobuf text format for config.pbtxt: lexer → syntax tree (spans, comments) → ModelConfig; printer.

The names below load their module when first used: `text.span` and `text.edits` (what a finding
carries) are imported without the parser and the ModelConfig schema (protobuf), which a lint
the cache answers never needs."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tritoncfg.text.bind import FieldPath, Location, TextError
    from tritoncfg.text.config import ParsedConfig, parse
    from tritoncfg.text.span import Span
    from tritoncfg.text.tree import Document

_HOMES = {
    "Document": "tree",
    "FieldPath": "bind",
    "Location": "bind",
    "ParsedConfig": "config",
    "Span": "span",
    "TextError": "bind",
    "parse": "config",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)


__all__ = ["Document", "FieldPath", "Location", "ParsedConfig", "Span", "TextError", "parse"]
