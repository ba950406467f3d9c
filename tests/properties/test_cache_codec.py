"""Property-based tests of the lint cache's readers on damaged content: a finding's row, the
replay file's packed findings and its whole content, each with one part replaced by any JSON,
never raise but what the cache catches (codec.DAMAGE), and never give a finding or a result of
the wrong types (one would fail later, where it is sorted or shown).

Bounded in `make test` (the `ci` profile); `make fuzz` runs them far longer."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tritoncfg.diagnostics import Diagnostic, Fix, Severity, TritonVerdict
from tritoncfg.lintcache.codec import DAMAGE, decode, encode, pack, unpack
from tritoncfg.lintcache.replay import record_replay, validate
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span

FINDINGS = [
    Diagnostic("TC203", "preferred-batch-size-above-max", Severity.ERROR, "too big", "/r/a/c.pbtxt",
               Span(3, 5, 3, 9), "a", TritonVerdict("VALIDATE", "preferred size ..."),
               Fix("drop it", (Edit(Span(3, 1, 4, 1), ""),), safe=False)),
    Diagnostic("TC913", "config-without-name", Severity.INFO, "no name", "/r/b/c.pbtxt",
               Span(1, 1, 1, 1), None, TritonVerdict("AUTOFILL", None)),
]  # fmt: skip
RUN = "the run's key"

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _damaged(data: st.DataObject, value: Any) -> Any:
    """`value` with the part at a random path replaced by any JSON."""
    if isinstance(value, list | dict) and value and data.draw(st.booleans()):
        keys = list(range(len(value))) if isinstance(value, list) else list(value)
        key = data.draw(st.sampled_from(keys))
        copy: Any = list(value) if isinstance(value, list) else dict(value)
        copy[key] = _damaged(data, value[key])
        return copy
    return data.draw(JSON)


def _well_typed(d: Diagnostic) -> None:
    assert all(isinstance(v, str) for v in (d.code, d.rule, d.message, d.path))
    assert isinstance(d.severity, Severity) and all(type(v) is int for v in d.span)
    assert d.model is None or isinstance(d.model, str)
    if d.triton is not None:
        assert isinstance(d.triton.phase, str)
        assert d.triton.message is None or isinstance(d.triton.message, str)
    if d.fix is not None:
        assert isinstance(d.fix.description, str) and isinstance(d.fix.safe, bool)
        assert all(
            isinstance(e.text, str) and all(type(v) is int for v in e.span) for e in d.fix.edits
        )
    json.dumps(d.to_json())  # shown as JSON without a TypeError


def _reading(read: Any, content: Any) -> Any:
    try:
        return read(json.loads(json.dumps(content)))
    except DAMAGE:
        return None


@given(st.data())
def test_a_damaged_row_is_caught_or_well_typed(data: st.DataObject) -> None:
    row = _damaged(data, encode(data.draw(st.sampled_from(FINDINGS))))
    found = _reading(decode, row)
    if found is not None:
        _well_typed(found)


@given(st.data())
def test_damaged_packed_findings_are_caught_or_well_typed(data: st.DataObject) -> None:
    for found in _reading(unpack, _damaged(data, pack(encode(d) for d in FINDINGS))) or []:
        _well_typed(found)


@given(st.data())
def test_a_damaged_replay_is_refused_or_well_typed(data: st.DataObject) -> None:
    result = {"diagnostics": FINDINGS, "files": 2, "models": 2, "sources": ["/r/a/c.pbtxt"],
              "file_paths": ["/r/a/c.pbtxt"], "relinted": []}  # fmt: skip
    content = _damaged(data, record_replay(RUN, 0, [], {}, result, {}))
    found = validate(json.loads(json.dumps(content)), RUN)  # catches DAMAGE itself
    if found is None:
        return
    fields, _ = found
    assert set(fields) == set(result)
    assert type(fields["files"]) is int and type(fields["models"]) is int
    for name in ("sources", "file_paths", "relinted"):
        assert all(isinstance(v, str) for v in fields[name])
    for finding in fields["diagnostics"]:
        _well_typed(finding)
