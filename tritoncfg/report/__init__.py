"""Renderers of diagnostics: text (Rich) and JSON."""
