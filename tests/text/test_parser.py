"""Parser behaviour: C++ TextFormat semantics, spans, did-you-mean, comments attached to nodes."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from tritoncfg.schema import ModelConfig
from tritoncfg.text import Span, parse
from tritoncfg.text.parser import parse_tree
from tritoncfg.text.tree import Block, ListValue


def _python_accepts(source: str) -> bool:
    try:
        text_format.Parse(source, ModelConfig())
    except text_format.ParseError:
        return False
    return True


# Where Python's text_format and C++ TextFormat::Parser (what Triton runs) disagree, tritoncfg
# follows C++. Each row pins one difference: (source, C++ accepts, why).
CPP_DIFFERENCES = [
    (
        "model_transaction_policy { decoupled: 0x1 }",
        True,
        "C++ reads a bool as an integer <= 1, hex included",
    ),
    ("model_transaction_policy { decoupled: 00 }", True, "C++ bool: octal 00 is the integer 0"),
    ("max_batch_size: 1_000", False, "C++ tokenizer: '_' after a number needs a space"),
    ("max_batch_size: 0o17", False, "C++ has no 0o prefix: '0' then identifier 'o17'"),
    ("max_batch_size: 0b1", False, "C++ has no 0b prefix"),
    ("input { dims: [ - 1 ] }", True, "C++: '-' is its own token, whitespace may follow"),
    ("max_batch_size: - # sign\n 1", True, "C++: comments may sit between '-' and the number"),
    ("input { data_type: 010 }", True, "C++ enum numbers use ParseInteger: octal 010 is 8"),
    (
        "sequence_batching { direct { minimum_slot_utilization: inff } }",
        False,
        "C++ knows inf/infinity/nan only",
    ),
    (
        "dynamic_batching { priority_levels: -0 }",
        False,
        "C++: '-' before an unsigned is 'Expected integer, got: -'",
    ),
]


@pytest.mark.parametrize(("source", "cpp_accepts", "why"), CPP_DIFFERENCES)
def test_cpp_semantics_where_python_text_format_differs(
    source: str, cpp_accepts: bool, why: str
) -> None:
    assert parse(source).ok is cpp_accepts, why
    assert _python_accepts(source) is not cpp_accepts, "python text_format now agrees: drop the pin"


def test_cpp_difference_values() -> None:
    assert parse(
        "model_transaction_policy { decoupled: 0x1 }"
    ).message.model_transaction_policy.decoupled
    assert list(parse("input { dims: [ - 1, 010, 0x10 ] }").message.input[0].dims) == [-1, 8, 16]
    assert parse("input { data_type: 010 }").message.input[0].data_type == 8


@pytest.mark.parametrize(
    ("source", "accepts"),
    [
        (
            "max_batch_size: 0 max_batch_size: 8",
            True,
        ),  # first value is the default: C++ HasField is false
        ("max_batch_size: 8 max_batch_size: 8", False),
        ('name: "" name: "x"', True),
        (
            "dynamic_batching { } dynamic_batching { }",
            False,
        ),  # a sub-message given twice always fails
        ("dynamic_batching { } sequence_batching { }", False),
        ("version_policy { latest { } all { } }", False),
        (
            "model_warmup { inputs { key: 'a' value { zero_data: false random_data: true } } }",
            False,
        ),
        (
            "sequence_batching { direct { minimum_slot_utilization: -0.0 minimum_slot_utilization: 1 } }",
            False,
        ),
        ("max_batch_size: 08", False),
        ("max_batch_size: 3000000000", False),
        ("max_batch_size: 1.0", False),
        ("backend: python", False),
        ("model_transaction_policy { decoupled: yes }", False),
        ("name: 'a' \"b\"", True),
        ("dynamic_batching < max_queue_delay_microseconds: 5 >", True),
        ('name: "a"; max_batch_size: 1,', True),
        ("input []", True),
        ("input { dims: [1,] }", False),
        ("max_batch_size 8", False),
        ("[ext.field]: 1", False),
        ('name: "unterminated', False),
        ("sequence_batching { direct { minimum_slot_utilization: NaN } }", True),
        ("instance_group { kind: 7 }", True),  # proto3 enums are open
    ],
)
def test_verdicts_match_text_format(source: str, accepts: bool) -> None:
    assert parse(source).ok is accepts
    assert _python_accepts(source) is accepts


def test_adjacent_strings_and_escapes() -> None:
    message = parse('name: \'a\' "b" "\\x41\\101\\u00e9"').message
    assert message.name == "abAAé"


def test_map_entries_last_wins() -> None:
    config = parse(
        'parameters { key: "a" value { string_value: "1" } }\n'
        'parameters { key: "a" value { string_value: "2" } }\n'
    )
    assert config.ok
    assert config.message.parameters["a"].string_value == "2"
    assert config.span_of(("parameters", "a")) == Span(2, 1, 2, 11)
    assert config.span_of(("parameters", "a", "value", "string_value"), value=True).line == 2


def test_unknown_field_names_the_message_type_and_suggests() -> None:
    config = parse(
        'name: "m"\ninput {\n  name: "x"\n  data_tipe: TYPE_FP32\n}\nmax_batch_sise: 4\n'
    )
    first, second = config.errors
    assert first.kind == "unknown-field"
    assert first.message == 'Message type "inference.ModelInput" has no field named "data_tipe".'
    assert first.message_type == "inference.ModelInput"
    assert first.suggestion == "data_type"
    assert first.span == Span(4, 3, 4, 12)
    assert second.suggestion == "max_batch_size"
    assert (second.span.line, second.span.column) == (6, 1)


@pytest.mark.parametrize(
    ("value", "suggestion"),
    [("KIND_GPUS", "KIND_GPU"), ("kind_cpu", "KIND_CPU")],
)
def test_unknown_enum_value_suggests(value: str, suggestion: str) -> None:
    (error,) = parse(f"instance_group {{ kind: {value} }}").errors
    assert error.kind == "unknown-enum-value"
    assert error.message == f'Unknown enumeration value of "{value}" for field "kind".'
    assert error.suggestion == suggestion
    assert error.span.column == 24


def test_data_type_aliases_suggest_triton_names() -> None:
    (error,) = parse("input { data_type: TYPE_FLOAT32 }").errors
    assert error.suggestion == "TYPE_FP32"


def test_every_independent_error_of_a_file_is_reported() -> None:
    config = parse(
        "max_batch_sise: 1\n"
        "input { data_type: TYPE_FLOAT32 dims: [ 1.5 ] }\n"
        "backend: python\n"
        "dynamic_batching { }\nsequence_batching { }\n"
    )
    kinds = [e.kind for e in config.errors]
    assert kinds == [
        "unknown-field",
        "unknown-enum-value",
        "invalid-value",
        "invalid-value",
        "oneof-conflict",
    ]
    assert [e.span.line for e in config.errors] == [1, 2, 2, 3, 5]


def test_syntax_error_position() -> None:
    config = parse('name: "m"\ninput {\n  name: "x"\n')
    (error,) = config.errors
    assert error.kind == "syntax"
    assert error.message == 'Expected "}", found end of input.'
    assert config.document is None


def test_missing_colon_before_scalar() -> None:
    (error,) = parse("max_batch_size 8").errors
    assert error.message == 'Expected ":", found "8".'
    assert (error.span.line, error.span.column) == (1, 16)


def test_source_map_points_at_each_element() -> None:
    config = parse('input [\n  {\n    name: "x"\n    dims: [ 3, 224, 224 ]\n  }\n]\n')
    assert config.span_of(("input", 0, "dims", 2), value=True) == Span(4, 21, 4, 24)
    assert config.span_of(("input", 0, "name"), value=True) == Span(3, 11, 3, 14)
    # a missing field points at its nearest written parent
    assert config.span_of(("input", 0, "reshape")).line == 2


def test_comments_attach_to_their_nodes() -> None:
    document = parse_tree(
        "# header\n\n"
        'name: "m"  # trailing\n'
        "input [  # open list\n"
        "  # before item\n"
        "  {  # open block\n"
        "    dims: [ 1 ]\n"
        "    # end of block\n"
        "  }  # after item\n"
        "]\n"
        "# end of file\n"
    )
    name, inputs = document.fields
    assert [c.text for c in name.leading] == ["# header"]
    assert name.blank_before
    assert name.trailing is not None and name.trailing.text == "# trailing"
    assert isinstance(inputs.value, ListValue)
    assert inputs.value.open_comment is not None
    item = inputs.value.items[0]
    assert [c.text for c in item.leading] == ["# before item"]
    assert item.trailing is not None and item.trailing.text == "# after item"
    assert isinstance(item.value, Block)
    assert item.value.open_comment is not None and item.value.open_comment.text == "# open block"
    assert [c.text for c in item.value.end_comments] == ["# end of block"]
    assert [c.text for c in document.end_comments] == ["# end of file"]
    assert len(list(document.comments())) == 8


# -- the parse path's shortcuts (lexed-line reuse, plain values, plain scalar fields) give what
# the general path gives --------------------------------------------------------------------


def test_a_line_seen_before_gets_the_position_of_its_own_line() -> None:
    line = "  dims: [ 3, 224, 224 ]"
    parse(f"input {{\n{line}\n}}\n")  # lexed once, here on line 2
    config = parse(f"\n\ninput {{\n\n{line}\n}}\ninput {{ {line.strip()} }}\n")
    assert config.span_of(("input", 0, "dims", 1), value=True) == Span(5, 14, 5, 17)
    assert config.span_of(("input", 1, "dims", 0), value=True) == Span(7, 17, 7, 18)


def test_a_bad_line_reports_its_line_each_time() -> None:
    for source, line in (("max_batch_size: 08\n", 1), ("\n\nmax_batch_size: 08\n", 3)):
        (error,) = parse(source).errors
        assert error.message == "Numbers starting with leading zero must be in octal."
        assert (error.span.line, error.span.column) == (line, 17)


def test_plain_and_commented_list_items_build_the_same_nodes() -> None:
    document = parse_tree("input {\n  dims: # before\n  [ 1, -2, # after\n 3 ]\n}\n")
    (inputs,) = document.fields
    assert isinstance(inputs.value, Block)
    (dims,) = inputs.value.fields
    assert isinstance(dims.value, ListValue)
    items = dims.value.items
    # a comment between the name and `[` leads the first item
    assert [[c.text for c in item.leading] for item in items] == [["# before"], [], []]
    assert [item.value.text for item in items] == ["1", "-2", "3"]
    second = items[1]
    assert second.trailing is not None and second.trailing.text == "# after"
    assert second.value.span == Span(3, 8, 3, 10)  # the sign starts the value


def test_a_scalar_field_after_one_that_did_not_convert() -> None:
    config = parse('max_batch_size: "x"\nmax_batch_size: 4\nmax_batch_size: 5\n')
    assert [(e.kind, e.span.line) for e in config.errors] == [
        ("invalid-value", 1),
        ("duplicate-field", 3),
    ]
    assert config.message.max_batch_size == 4
    location = config.location(("max_batch_size",))
    assert location is not None and location.field.line == 2


def test_a_proto3_scalar_left_at_its_default_may_be_written_again() -> None:
    config = parse("max_batch_size: 0\nmax_batch_size: 4\n")  # C++: HasField is false for 0
    assert config.ok
    assert config.message.max_batch_size == 4
    location = config.location(("max_batch_size",))
    assert location is not None and location.field.line == 2
