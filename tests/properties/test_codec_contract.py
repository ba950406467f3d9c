"""The cache codec's contract on damaged content: `decode` (a row) and `unpack` (a file's rows)
either return findings or raise one of the errors their docstrings name, which the cache catches
and treats as absent. Any JSON value is tried, and rows of the right shape with a damaged field.
`make fuzz` runs these far longer (the `fuzz` profile, or atheris through tools/fuzz.py)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tritoncfg.diagnostics import Diagnostic, Fix, Severity, TritonVerdict
from tritoncfg.lintcache.codec import DAMAGE as DOCUMENTED
from tritoncfg.lintcache.codec import decode, encode, pack, unpack
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=10) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=40,
)

SAMPLE = Diagnostic(
    "TC203",
    "preferred-batch-size-exceeds-max",
    Severity.ERROR,
    "preferred_batch_size 8 is over max_batch_size 4",
    "repo/m/config.pbtxt",
    Span(3, 1, 3, 20),
    "m",
    TritonVerdict("VALIDATE", "dynamic batching preferred size must be <= max batch size"),
    Fix("drop it", (Edit(Span(3, 1, 3, 20), ""),), True),
)


def as_read(value: object) -> Any:
    """`value` as a cache file gives it back: through JSON text."""
    return json.loads(json.dumps(value))


def damaged(good: Any, data: st.DataObject) -> Any:
    """`good` with one element somewhere inside replaced by any JSON value."""
    if not isinstance(good, (list, dict)) or not good or data.draw(st.booleans()):
        return data.draw(json_values)
    keys = list(range(len(good))) if isinstance(good, list) else sorted(good)
    key = data.draw(st.sampled_from(keys))
    copy = list(good) if isinstance(good, list) else dict(good)
    copy[key] = damaged(good[key], data)  # type: ignore[index]
    return copy


def keeps_the_contract(action: Any, value: Any) -> None:
    with contextlib.suppress(DOCUMENTED):
        action(value)


def test_a_sound_row_and_table_read_back_as_written() -> None:
    assert decode(as_read(encode(SAMPLE))) == SAMPLE
    assert unpack(as_read(pack([encode(SAMPLE)] * 2))) == [SAMPLE, SAMPLE]


@given(json_values)
def test_decode_of_any_json_returns_or_raises_the_documented_errors(value: Any) -> None:
    keeps_the_contract(decode, value)


@given(json_values)
def test_unpack_of_any_json_returns_or_raises_the_documented_errors(value: Any) -> None:
    keeps_the_contract(unpack, value)


@given(st.data())
def test_a_damaged_row_returns_or_raises_the_documented_errors(data: st.DataObject) -> None:
    keeps_the_contract(decode, damaged(as_read(encode(SAMPLE)), data))


@given(st.data())
def test_a_damaged_table_returns_or_raises_the_documented_errors(data: st.DataObject) -> None:
    keeps_the_contract(unpack, damaged(as_read(pack([encode(SAMPLE)] * 2)), data))
