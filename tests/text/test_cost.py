"""What reading a config costs grows with the config and no faster: at most about 50 bytes of
memory per byte of config, even for shapes an attacker picks (one huge string literal, NUL bytes,
one very long line). The bounds are wide (several times the measured cost, a tenth or less of
what the quadratic or per-character code took), so they never flake; bench/cost_bench.py prints
the real figures."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from tritoncfg.text import ParsedConfig, parse
from tritoncfg.text.json_config import Converted, convert_text, parse_json
from tritoncfg.text.lexer import COMMENT, END, STRING, SYMBOL, LexError, tokenize

MEGABYTE = 1_000_000


def traced_peak(action: Callable[[], object]) -> int:
    """The peak of Python's allocations while `action` runs, in bytes."""
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def lex_error(source: str) -> LexError:
    with pytest.raises(LexError) as caught:
        tokenize(source)
    return caught.value


@pytest.mark.parametrize(
    "body",
    [
        "a" * MEGABYTE,  # was 122 MB: the regex engine kept a frame per character
        "\\n" * (MEGABYTE // 2),  # escapes only
        "a\\t" * (MEGABYTE // 3),
    ],
    ids=["plain", "escapes", "mixed"],
)
def test_a_megabyte_string_literal_lexes_in_bounded_memory(body: str) -> None:
    source = f'name: "{body}"\n'
    tokens: list[object] = []
    peak = traced_peak(lambda: tokens.extend(tokenize(source)))
    assert [token[:2] for token in tokens[2:]] == [(STRING, f'"{body}"'), (END, "")]  # type: ignore[index]
    assert peak < 8 * MEGABYTE, peak


@pytest.mark.parametrize(
    ("source", "message", "column"),
    [
        ('name: "' + "a" * MEGABYTE, "String literals cannot cross line boundaries.", 7),
        # was 105 MB: a tuple per byte before the first was checked
        ("\0" * MEGABYTE, "Invalid control characters encountered in text.", 1),
    ],
    ids=["unterminated-string", "nul-bytes"],
)
def test_a_bad_megabyte_is_one_error_in_bounded_memory(
    source: str, message: str, column: int
) -> None:
    peak = traced_peak(lambda: lex_error(source))
    error = lex_error(source)
    assert (error.message, error.line, error.column) == (message, 1, column)
    assert peak < 8 * MEGABYTE, peak


def test_a_long_line_gives_the_tokens_of_the_same_fields_on_short_lines() -> None:
    field = 'input { name: "x" dims: [ -1, 0x1F ] } # note'
    one_line = " ".join([field.split(" #")[0]] * 2_000) + " # note"
    assert len(one_line) > 50_000  # lexed match by match
    long_tokens = tokenize(one_line)
    short_tokens = tokenize(field)
    assert len(long_tokens) == 2_000 * (len(short_tokens) - 2) + 2  # comment and END once
    assert [t[:2] for t in long_tokens[: len(short_tokens) - 2]] == [
        t[:2] for t in short_tokens[:-2]
    ]
    assert long_tokens[-2][0] == COMMENT and long_tokens[-2][3] == len(one_line) - 5
    last_brace = long_tokens[-3]
    assert last_brace[:2] == (SYMBOL, "}") and last_brace[3] == len(one_line) - 7


def test_a_control_character_at_the_end_of_a_long_line_has_its_column() -> None:
    source = "max_batch_size: 4 " * 1_000 + "\x01"
    error = lex_error(source)
    assert (error.message, error.line, error.column) == (
        "Invalid control characters encountered in text.",
        1,
        18_001,
    )


@pytest.mark.parametrize(
    "body", ["a" * MEGABYTE, "\\n" * (MEGABYTE // 2)], ids=["plain", "escapes"]
)
def test_a_megabyte_json_string_reads_in_bounded_memory(body: str) -> None:
    source = '{"name": "m", "parameters": {"k": {"string_value": "' + body + '"}}}'
    parsed: list[ParsedConfig] = []
    peak = traced_peak(lambda: parsed.append(parse_json(source)))  # was 122 MB
    assert parsed[0].ok, parsed[0].errors
    assert parsed[0].message.parameters["k"].string_value == json.loads(f'"{body}"')
    assert peak < 12 * MEGABYTE, peak


def test_convert_to_json_holds_no_more_than_the_parse() -> None:
    """The tree and source map are freed before the JSON document is built, and the document's
    text is joined item by item: a megabyte of small inputs peaked at 70 bytes per byte (traced),
    now at the parse's own peak, 51."""
    lines = [f'input {{ name: "I{i}" data_type: TYPE_FP32 dims: [ 1, 3 ] }}' for i in range(16_000)]
    source = "\n".join(lines) + "\n"
    convert_text('input { name: "x" }', from_json=False, to_json=True)  # imports, schema facts
    converted: list[Converted] = []
    peak = traced_peak(
        lambda: converted.append(convert_text(source, from_json=False, to_json=True))
    )
    document = json.loads(converted[0].text)
    assert [tensor["name"] for tensor in document["input"]] == [f"I{i}" for i in range(16_000)]
    assert peak < 60 * len(source), peak / len(source)


# Runs the command and prints its peak RSS. A child forked from a large process (pytest after
# thousands of tests) reports that process's RSS as its own peak: Linux keeps the pre-exec high
# water mark in ru_maxrss. This small launcher is the parent the measured command is forked from.
_LAUNCHER = """
import os, subprocess, sys
with open(os.devnull, "wb") as null:
    process = subprocess.Popen([sys.executable, *sys.argv[1:]], stdout=null)
    _, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def peak_rss(*args: str) -> tuple[int, int, str]:
    """Exit status, peak resident bytes and stderr of a `python -m tritoncfg` run."""
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, "-m", "tritoncfg", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    code, peak = (int(word) for word in done.stdout.split())
    return code, peak, done.stderr


def config_of(tmp_path: Path, data: bytes) -> Path:
    (tmp_path / "m" / "1").mkdir(parents=True)
    path = tmp_path / "m" / "config.pbtxt"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("data", "status"),
    [
        # 1,040 MB before (about 260 bytes per byte)
        (b'name: "m"\nparameters { key: "k" value { string_value: "' + b"a" * 4 * MEGABYTE, 1),
        # 850 MB before, for an error at 1:1
        (b"\0" * 8 * MEGABYTE, 1),
    ],
    ids=["string-literal", "nul-bytes"],
)
@pytest.mark.parametrize("command", ["lint", "fmt"])
def test_hostile_megabytes_cost_tens_of_bytes_per_byte(
    tmp_path: Path, data: bytes, status: int, command: str
) -> None:
    path = config_of(tmp_path, data)
    code, peak, errors = peak_rss(command, str(path))
    assert "Traceback" not in errors and code == (status if command == "lint" else 2), errors
    assert "config.pbtxt:" in errors or command == "lint"  # lint writes to stdout
    assert peak < 100 * MEGABYTE + 40 * len(data), peak


class _Counting:
    """A text stream that keeps only how much was written to it."""

    def __init__(self) -> None:
        self.written = 0

    def write(self, text: str) -> int:
        self.written += len(text)
        return len(text)


def test_findings_are_rendered_without_holding_the_whole_output(tmp_path: Path) -> None:
    from tritoncfg.api import lint
    from tritoncfg.report.text import render_text

    # 20,000 unknown-field errors: 20 configs of 1,000 (a file reports at most MAX_TEXT_ERRORS)
    source = "max_batch_sise: 1\n" * 1_000
    sources = {}
    for index in range(20):
        sources[str(config_of(tmp_path / str(index), source.encode()))] = source
    found = lint(list(sources)).diagnostics
    assert sum(d.code == "TC002" for d in found) == 20_000
    sink = _Counting()
    peak = traced_peak(
        lambda: render_text(sink, found, sources, files=20, models=20)  # type: ignore[arg-type]
    )
    size = 20 * len(source)
    assert sink.written > 20 * size  # each finding: where, what, its line, a caret
    assert peak < 20 * size, peak / size  # was 87: every line kept, then joined


def test_a_name_misspelled_thousands_of_times_is_looked_up_once() -> None:
    """Each suggestion is a difflib search (100,000 of them were 30 s of one lint): a file that
    repeats the same wrong names asks for each (name, message or enum) once."""
    from tritoncfg.schema import lookup

    lookup._suggest_field.cache_clear()
    lookup._suggest_enum_value.cache_clear()
    source = "max_batch_sise: 1\ninstance_group { kind: KIND_GPUS }\n" * 500  # MAX_TEXT_ERRORS
    errors = parse(source).errors
    assert [e.suggestion for e in errors] == ["max_batch_size", "KIND_GPU"] * 500
    misses = (
        lookup._suggest_field.cache_info().misses,
        lookup._suggest_enum_value.cache_info().misses,
    )
    assert misses == (1, 1)


def test_scalars_of_the_same_word_share_their_parts() -> None:
    from tritoncfg.text.parser import parse_tree
    from tritoncfg.text.tree import Block, ListValue, Scalar

    document = parse_tree("input { data_type: TYPE_FP32 dims: [ 3, -3 ] }\n" * 2)
    scalars = []
    for field in document.fields:
        assert isinstance(field.value, Block)
        data_type, dims = field.value.fields
        assert isinstance(data_type.value, Scalar) and isinstance(dims.value, ListValue)
        scalars += [data_type.value, *(item.value for item in dims.value.items)]
    assert [(s.text, s.parts) for s in scalars] == [
        ("TYPE_FP32", ("TYPE_FP32",)), ("3", ("3",)), ("-3", ("3",))
    ] * 2  # fmt: skip
    first, second = scalars[:3], scalars[3:]
    assert all(a.parts is b.parts for a, b in zip(first, second, strict=True))
    assert first[1].parts is first[2].parts  # the sign is not a part


_FIXES_OF_DUPLICATES = """
import sys
from tritoncfg.api import lint
found = lint([sys.argv[1]]).diagnostics
fixes = [d.fix.description for d in found if d.code == "TC003" and d.fix is not None]
print(len(fixes), set(fixes))
"""


def test_a_fix_for_each_of_twenty_thousand_repeated_fields_in_linear_time(tmp_path: Path) -> None:
    """Each repeated field's fix searched the whole tree and split the whole source: quadratic,
    some minutes for these 20,000 (2,000 took 4 s, 8,000 49 s); now a few seconds. The limit
    only stops a run that went quadratic again; nothing is timed."""
    config = config_of(tmp_path, b'name: "m"\n' + b"max_batch_size: 4\n" * 20_001)
    done = subprocess.run(
        [sys.executable, "-c", _FIXES_OF_DUPLICATES, str(config.parent)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # the first MAX_TEXT_ERRORS of the 20,000 errors are reported, each with its fix
    assert done.stdout.strip() == "1000 {'remove the repeated max_batch_size'}"


def test_findings_of_a_repeated_error_share_their_texts(tmp_path: Path) -> None:
    from tritoncfg.api import lint

    config = config_of(tmp_path, b"max_batch_sise: 1\n" * 3)
    found = [d for d in lint([config]).diagnostics if d.code == "TC002"]
    assert [d.message for d in found] == [
        'Message type "inference.ModelConfig" has no field named "max_batch_sise". '
        'Did you mean "max_batch_size"?'
    ] * 3
    assert found[0].message is found[1].message is found[2].message
    assert all(d.triton is not None for d in found)
    verdicts = [d.triton.message for d in found if d.triton is not None]
    assert verdicts[0] is verdicts[1] is verdicts[2]
