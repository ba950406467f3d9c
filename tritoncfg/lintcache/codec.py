"""Findings as JSON rows, for the cache files (lists, not objects: compact and quick to read)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from typing import Any

from tritoncfg.diagnostics import Diagnostic, Fix, Severity, TritonVerdict
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span


def digest(data: bytes) -> str:
    """A 64-bit checksum (CRC-32 and Adler-32) for naming cache files and keying config bytes:
    hashlib would load OpenSSL, which costs a one-file lint more than its whole cache. The keys
    it names are compared in full where a collision could matter (the run's key is stored in the
    file)."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def file_digest(path: str) -> str | None:
    """The digest of a file's bytes; None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return f"config {len(data)} {digest(data)}"


def encode(d: Diagnostic) -> list[Any]:
    fix = d.fix
    return [
        d.code, d.rule, d.severity.value, d.message, d.path, list(d.span), d.model,
        None if d.triton is None else [d.triton.phase, d.triton.message],
        None if fix is None else [fix.description, [[list(e.span), e.text] for e in fix.edits], fix.safe],
    ]  # fmt: skip


_SEVERITIES = {s.value: s for s in Severity}


def decode(row: list[Any]) -> Diagnostic:
    """Raises KeyError, TypeError, ValueError or IndexError on a damaged row."""
    code, rule, severity, message, path, span, model, triton, fix = row
    return Diagnostic(
        code, rule, _SEVERITIES[severity], message, path, Span(*span), model,
        None if triton is None else TritonVerdict(*triton),
        _fix(fix),
    )  # fmt: skip


def _fix(row: list[Any] | None) -> Fix | None:
    if row is None:
        return None
    description, edits, safe = row
    return Fix(description, tuple(Edit(Span(*span), text) for span, text in edits), safe)


def pack(rows: Iterable[list[Any]]) -> dict[str, Any]:
    """Rows of `encode` with their strings (code, rule, severity, message, path, model, Triton's
    phase and message) each written once, in a table: the findings of 20,000 models repeat
    their paths, names and many messages, and the replay file reads a third faster so."""
    index: dict[str, int] = {}

    def ref(text: str | None) -> int | None:
        return None if text is None else index.setdefault(text, len(index))

    packed = [
        [
            ref(code),
            ref(rule),
            ref(severity),
            ref(message),
            ref(path),
            span,
            ref(model),
            None if triton is None else [ref(triton[0]), ref(triton[1])],
            fix,
        ]
        for code, rule, severity, message, path, span, model, triton, fix in rows
    ]
    return {"strings": list(index), "rows": packed}


def unpack(content: dict[str, Any]) -> list[Diagnostic]:
    """The findings of `pack`; equal spans and verdicts are shared (they are immutable). Raises
    KeyError, TypeError, ValueError or IndexError on damaged content."""
    strings: list[str] = content["strings"]
    spans: dict[tuple[int, ...], Span] = {}
    verdicts: dict[tuple[int, int | None], TritonVerdict] = {}
    found = []
    for code, rule, severity, message, path, span, model, triton, fix in content["rows"]:
        key = tuple(span)
        shared = spans.get(key)
        if shared is None:
            shared = spans[key] = Span(*span)
        verdict = None
        if triton is not None:
            phase, said = triton
            verdict = verdicts.get((phase, said))
            if verdict is None:
                text = None if said is None else strings[said]
                verdict = verdicts[phase, said] = TritonVerdict(strings[phase], text)
        found.append(
            Diagnostic(
                strings[code],
                strings[rule],
                _SEVERITIES[strings[severity]],
                strings[message],
                strings[path],
                shared,
                None if model is None else strings[model],
                verdict,
                _fix(fix),
            )
        )
    return found
