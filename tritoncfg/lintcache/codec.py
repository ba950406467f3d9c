"""Findings as JSON rows, for the cache files (lists, not objects: compact and quick to read)."""

from __future__ import annotations

import json
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


# what reading damaged or edited cache content can raise: each is caught where it is read, and
# the content counts as absent (a row of the wrong types raises TypeError in `decode`)
DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError)


def load(data: bytes | None) -> Any:
    """A cache file's JSON; None when absent or not JSON (`[` nested 200,000 deep is a
    RecursionError, caught like the rest)."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def encode(d: Diagnostic) -> list[Any]:
    fix = d.fix
    return [
        d.code, d.rule, d.severity.value, d.message, d.path, list(d.span), d.model,
        None if d.triton is None else [d.triton.phase, d.triton.message],
        None if fix is None else [fix.description, [[list(e.span), e.text] for e in fix.edits], fix.safe],
    ]  # fmt: skip


_SEVERITIES = {s.value: s for s in Severity}


def decode(row: list[Any]) -> Diagnostic:
    """Raises one of DAMAGE on a damaged row, a value of the wrong type included: a finding
    made of them would fail later, where it is sorted or shown."""
    code, rule, severity, message, path, span, model, triton, fix = row
    return Diagnostic(
        _text(code), _text(rule), _SEVERITIES[severity], _text(message), _text(path),
        _span(span), None if model is None else _text(model),
        None if triton is None else _verdict(*triton),
        _fix(fix),
    )  # fmt: skip


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"a string expected, not {type(value).__name__}")
    return value


def are_strings(value: Any) -> bool:
    """Whether a value read from a cache file is a list of strings."""
    return type(value) is list and all(type(v) is str for v in value)


def _span(value: Any) -> Span:
    if type(value) is not list or len(value) != 4 or any(type(v) is not int for v in value):
        raise TypeError("a span of four integers expected")
    return Span(*value)


def _verdict(phase: Any, message: Any) -> TritonVerdict:
    return TritonVerdict(_text(phase), None if message is None else _text(message))


def _fix(row: list[Any] | None) -> Fix | None:
    if row is None:
        return None
    description, edits, safe = row
    if type(safe) is not bool:
        raise TypeError("a fix's safety is true or false")
    edited = tuple(Edit(_span(span), _text(text)) for span, text in edits)
    return Fix(_text(description), edited, safe)


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
    one of DAMAGE on damaged content (the strings are checked once, each span when first met)."""
    strings: list[str] = content["strings"]
    if type(strings) is not list or any(type(s) is not str for s in strings):
        raise TypeError("a table of strings expected")
    spans: dict[tuple[int, ...], Span] = {}
    verdicts: dict[tuple[int, int | None], TritonVerdict] = {}
    found = []
    for code, rule, severity, message, path, span, model, triton, fix in content["rows"]:
        key = tuple(span)
        shared = spans.get(key)
        if shared is None:
            shared = spans[key] = _span(span)
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
