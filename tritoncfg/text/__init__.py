"""Protobuf text format for config.pbtxt: lexer → syntax tree (spans, comments) → ModelConfig; printer."""

from __future__ import annotations

from tritoncfg.text.bind import FieldPath, Location, TextError
from tritoncfg.text.config import ParsedConfig, parse
from tritoncfg.text.span import Span
from tritoncfg.text.tree import Document

__all__ = ["Document", "FieldPath", "Location", "ParsedConfig", "Span", "TextError", "parse"]
