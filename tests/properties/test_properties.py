"""Property-based tests: for configs generated from the schema, valid and mutated, parse, lint,
fmt, complete and the JSON path never raise; fmt keeps meaning and comments; lint exits 0, 1 or 2.

Bounded and derandomized in `make test` (the `ci` profile, conftest.py); `make fuzz` runs them
far longer when atheris is not there."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import jsonschema
from hypothesis import given
from hypothesis import strategies as st
from properties.strategies import config_texts, configs, mutated
from typer.testing import CliRunner

from tritoncfg.api import lint
from tritoncfg.cli.app import app
from tritoncfg.complete.full import complete_model
from tritoncfg.schema import ModelConfig
from tritoncfg.schema.json_schema import model_config_schema
from tritoncfg.text import parse
from tritoncfg.text.json_config import message_to_json, parse_json
from tritoncfg.text.parser import SyntaxProblem
from tritoncfg.text.printer import format_source
from tritoncfg.workspace import load


def texts() -> st.SearchStrategy[str]:
    """Valid config texts and mutated ones, half and half."""
    valid = config_texts().map(lambda pair: pair[1])
    return st.one_of(valid, valid.flatmap(mutated))


def comment_texts(text: str) -> list[str]:
    parsed = parse(text)
    assert parsed.document is not None
    return [comment.text for comment in parsed.document.comments()]


@given(config_texts())
def test_valid_configs_parse_to_what_protobuf_printed(pair: tuple[ModelConfig, str]) -> None:
    config, text = pair
    parsed = parse(text)
    assert parsed.ok, parsed.errors
    assert parsed.message == config


@given(texts())
def test_parse_never_raises(text: str) -> None:
    parsed = parse(text)
    assert parsed.ok or parsed.errors
    for error in parsed.errors:
        assert error.span.line >= 1 and error.span.column >= 1


@given(texts())
def test_fmt_keeps_meaning_and_comments_and_is_stable(text: str) -> None:
    try:
        formatted = format_source(text)
    except SyntaxProblem as problem:
        assert problem.span.line >= 1
        assert parse(text).document is None  # fmt refuses exactly what does not parse
        return
    before, after = parse(text), parse(formatted)
    assert after.ok == before.ok
    if before.ok:
        assert after.message == before.message
    assert comment_texts(formatted) == comment_texts(text)
    assert format_source(formatted) == formatted


@given(texts())
def test_lint_and_complete_never_raise(text: str) -> None:
    with tempfile.TemporaryDirectory() as work:
        model = Path(work) / "m"
        (model / "1").mkdir(parents=True)
        (model / "config.pbtxt").write_text(text, encoding="utf-8")
        result = lint([model])
        assert result.models == 1
        for loaded in load([model]).models:
            if loaded.config is not None and loaded.config.ok:
                complete_model(loaded, model_io=None, gpus=(0,))


RUNNER = CliRunner()
SCHEMA = jsonschema.Draft202012Validator(model_config_schema())


@given(texts())
def test_lint_command_exits_zero_one_or_two(text: str) -> None:
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "m" / "config.pbtxt"
        config.parent.mkdir()
        config.write_text(text, encoding="utf-8")
        result = RUNNER.invoke(app, ["lint", "--color", "never", str(config)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert result.exit_code in (0, 1, 2)


@given(configs())
def test_json_round_trips_to_the_same_config(config: ModelConfig) -> None:
    parsed = parse_json(json.dumps(message_to_json(config)))
    assert parsed.ok, parsed.errors
    assert parsed.message == config


@given(configs().flatmap(lambda c: mutated(json.dumps(message_to_json(c), indent=1))))
def test_json_path_never_raises(text: str) -> None:
    parsed = parse_json(text)
    assert parsed.ok or parsed.errors
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "m" / "config.json"
        config.parent.mkdir()
        config.write_text(text, encoding="utf-8")
        assert lint([config]).files == 1


@given(configs())
def test_generated_configs_as_json_validate_against_the_schema(config: ModelConfig) -> None:
    from google.protobuf import json_format

    document = message_to_json(config)
    assert not [error.message for error in SCHEMA.iter_errors(document)]
    canonical = json_format.MessageToDict(config, preserving_proto_field_name=True)
    assert not [error.message for error in SCHEMA.iter_errors(canonical)]
