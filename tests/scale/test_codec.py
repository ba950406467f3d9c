"""The cache's JSON rows: findings come back equal, through the replay file's string table."""

from __future__ import annotations

import json

import pytest

from tritoncfg.diagnostics import Diagnostic, Fix, Severity, TritonVerdict
from tritoncfg.lintcache.codec import decode, encode, pack, unpack
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span

FINDINGS = [
    Diagnostic("TC203", "preferred-batch-size-above-max", Severity.ERROR, "too big", "/r/a/config.pbtxt",
               Span(3, 5, 3, 9), "a", TritonVerdict("VALIDATE", "dynamic batching preferred size ..."),
               Fix("drop it", (Edit(Span(3, 1, 4, 1), ""),), safe=False)),
    Diagnostic("TC203", "preferred-batch-size-above-max", Severity.ERROR, "too big", "/r/b/config.pbtxt",
               Span(3, 5, 3, 9), "b", TritonVerdict("VALIDATE", "dynamic batching preferred size ...")),
    Diagnostic("TC101", "hidden-model-directory", Severity.WARNING, "hidden", "/r/.git", Span(0, 0, 0, 0)),
    Diagnostic("TC913", "config-without-name", Severity.INFO, "no name", "/r/a/config.pbtxt",
               Span(1, 1, 1, 1), "a", TritonVerdict("AUTOFILL", None)),
]  # fmt: skip


def test_findings_come_back_equal_through_json() -> None:
    assert [decode(json.loads(json.dumps(encode(d)))) for d in FINDINGS] == FINDINGS
    packed = json.loads(json.dumps(pack(encode(d) for d in FINDINGS)))
    assert unpack(packed) == FINDINGS
    # each repeated string is written once
    assert packed["strings"].count("/r/a/config.pbtxt") == 1
    assert packed["strings"].count("preferred-batch-size-above-max") == 1


def test_damaged_content_raises_what_the_cache_catches() -> None:
    packed = pack(encode(d) for d in FINDINGS)
    for damage in (
        lambda p: p["strings"].clear(),  # IndexError
        lambda p: p["rows"][0].pop(),  # ValueError (unpacking)
        lambda p: p.pop("strings"),  # KeyError
        lambda p: p["rows"][1].__setitem__(2, 0),  # a code as the severity: KeyError
    ):
        damaged = json.loads(json.dumps(packed))
        damage(damaged)
        with pytest.raises((KeyError, TypeError, ValueError, IndexError)):
            unpack(damaged)
