"""semantic_diff: field paths with old → new values, as protobuf and Triton see differences."""

from __future__ import annotations

import pytest

from tritoncfg.schema import ModelConfig, ModelInput
from tritoncfg.text import parse
from tritoncfg.triton.semantic_diff import Change, semantic_diff


def config(text: str) -> ModelConfig:
    parsed = parse(text)
    assert parsed.ok, parsed.errors
    return parsed.message


def lines(old: str, new: str) -> list[str]:
    return [str(c) for c in semantic_diff(config(old), config(new))]


def test_equal_configs_have_no_changes() -> None:
    text = 'name: "m" max_batch_size: 8 input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]'
    assert semantic_diff(config(text), config(text)) == []


def test_scalar_change_in_a_repeated_message() -> None:
    old = "instance_group [ { count: 1 kind: KIND_CPU } ]"
    new = "instance_group [ { count: 2 kind: KIND_CPU } ]"
    assert lines(old, new) == ["instance_group[0].count: 1 → 2"]


def test_enums_by_name_strings_quoted_bools_lowercase() -> None:
    old = 'backend: "python" instance_group [ { kind: KIND_CPU passive: false } ]'
    new = 'backend: "onnxruntime" instance_group [ { kind: KIND_GPU passive: true } ]'
    assert lines(old, new) == [
        'backend: "python" → "onnxruntime"',
        "instance_group[0].kind: KIND_CPU → KIND_GPU",
        "instance_group[0].passive: (absent) → true",
    ]


def test_default_scalar_equals_absent_but_empty_message_differs() -> None:
    # proto3: `max_batch_size: 0` is not stored; `dynamic_batching { }` is (Triton acts on it)
    assert lines("max_batch_size: 0", "") == []
    assert lines("", "dynamic_batching { }") == ["dynamic_batching: (absent) → { }"]


def test_added_and_removed_elements_of_repeated_fields() -> None:
    one = 'input [ { name: "a" data_type: TYPE_FP32 dims: [ 4, -1 ] } ]'
    two = one + ' input [ { name: "b" data_type: TYPE_INT32 dims: [ 1 ] } ]'
    assert lines(one, two) == [
        'input[1]: (absent) → { name: "b" data_type: TYPE_INT32 dims: [ 1 ] }'
    ]
    assert lines(two, one) == [
        'input[1]: { name: "b" data_type: TYPE_INT32 dims: [ 1 ] } → (absent)'
    ]


def test_repeated_scalars_compared_as_lists() -> None:
    old = "max_batch_size: 8 dynamic_batching { preferred_batch_size: [ 4 ] }"
    new = "max_batch_size: 8 dynamic_batching { preferred_batch_size: [ 4, 8 ] }"
    assert lines(old, new) == ["dynamic_batching.preferred_batch_size: [ 4 ] → [ 4, 8 ]"]


def test_maps_by_key() -> None:
    old = 'parameters { key: "a" value { string_value: "1" } } parameters { key: "b" value { string_value: "x" } }'
    new = 'parameters { key: "a" value { string_value: "2" } } parameters { key: "c" value { string_value: "y" } }'
    assert lines(old, new) == [
        'parameters["a"].string_value: "1" → "2"',
        'parameters["b"]: { string_value: "x" } → (absent)',
        'parameters["c"]: (absent) → { string_value: "y" }',
    ]


def test_oneof_switch_shows_both_sides() -> None:
    old = "version_policy { latest { num_versions: 1 } }"
    new = "version_policy { specific { versions: [ 1, 3 ] } }"
    assert lines(old, new) == [
        "version_policy.latest: { num_versions: 1 } → (absent)",
        "version_policy.specific: (absent) → { versions: [ 1, 3 ] }",
    ]


def test_nested_messages_render_on_one_line() -> None:
    new = 'sequence_batching { control_input [ { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] } ] }'
    (change,) = semantic_diff(ModelConfig(), config(new))
    assert change.path == "sequence_batching"
    assert change.new == (
        '{ control_input [ { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY '
        "int32_false_true: [ 0, 1 ] } ] } ] }"
    )
    assert change.kind == "added"


def test_change_kinds_and_json() -> None:
    change = Change("max_batch_size", "8", "16")
    assert change.kind == "changed"
    assert change.to_json() == {
        "path": "max_batch_size",
        "kind": "changed",
        "old": "8",
        "new": "16",
    }
    assert Change("x", None, "1").kind == "added"
    assert Change("x", "1", None).kind == "removed"


def test_messages_of_different_types_are_refused() -> None:
    with pytest.raises(TypeError):
        semantic_diff(ModelConfig(), ModelInput())
