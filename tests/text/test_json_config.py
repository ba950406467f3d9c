"""JSON configs: the position-aware reader, binding into ModelConfig, lint/fmt/complete of a
.json file, `convert` and `schema model-config`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from clikit import run
from corpus import REAL_WORLD, require_corpus
from google.protobuf import json_format, text_format

from tritoncfg.schema import ModelConfig
from tritoncfg.schema.json_schema import model_config_schema
from tritoncfg.settings import CONFIG_SCHEMA
from tritoncfg.text import parse
from tritoncfg.text.json_config import message_to_json, parse_json
from tritoncfg.text.json_reader import format_json, read_json
from tritoncfg.text.parser import SyntaxProblem

CONFIG = """{
  "name": "m",
  "backend": "onnxruntime",
  "max_batch_size": 4,
  "input": [
    {"name": "x", "data_type": "TYPE_FP32", "dims": ["3", 4]}
  ],
  "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [3]}],
  "dynamic_batching": {
    "preferred_batch_size": [2, 8],
    "max_queue_delay_microseconds": 100
  },
  "parameters": {"k": {"string_value": "v"}}
}
"""


def write_model(root: Path, text: str = CONFIG, name: str = "config.json") -> Path:
    model = root / "m"
    (model / "1").mkdir(parents=True)
    path = model / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the reader ----------------------------------------------------------------------------


def test_reader_keeps_positions_and_values() -> None:
    node = read_json('{\n  "a": [1, 2.5, "\\u00e9"],\n  "b": {"c": null, "d": true}\n}')
    assert node.plain() == json.loads('{"a": [1, 2.5, "é"], "b": {"c": null, "d": true}}')
    assert str(node.members[1].key_span) == "3:3"
    assert str(node.members[1].value.members[1].value.span) == "3:25"


@pytest.mark.parametrize(
    ("text", "where", "needle"),
    [
        ("", "1:1", "Expected a JSON value"),
        ('{"a": 1,}', "1:9", "Expected a string key"),
        ('{"a" 1}', "1:6", 'Expected ":"'),
        ("[1 2]", "1:4", 'Expected "," or "]"'),
        ('{"a": 1} x', "1:10", "after the JSON value"),
        ('\n  {"a": tru}', "2:9", "Expected a JSON value"),
        ('"a\x00"', "1:1", "control character"),
        ("\ufeff{}", "1:1", "byte order mark"),
        ("[" * 101, "1:101", "recursion limit of 100"),
    ],
)
def test_reader_rejects_bad_json_at_its_position(text: str, where: str, needle: str) -> None:
    with pytest.raises(SyntaxProblem) as caught:
        read_json(text)
    assert needle in caught.value.message
    assert str(caught.value.span) == where


# -- binding -------------------------------------------------------------------------------


def test_json_gives_the_same_message_as_json_format() -> None:
    parsed = parse_json(CONFIG)
    assert parsed.ok, parsed.errors
    assert parsed.message == json_format.Parse(CONFIG, ModelConfig())
    assert (
        str(parsed.span_of(("dynamic_batching", "preferred_batch_size", 1), value=True)) == "10:33"
    )
    assert str(parsed.span_of(("input", 0, "dims"))) == "6:45"
    assert str(parsed.span_of(("parameters", "k"))) == "13:18"


def test_enum_names_are_matched_case_insensitively_as_triton_does() -> None:
    parsed = parse_json('{"input": [{"name": "x", "data_type": "type_fp32", "dims": [1]}]}')
    assert parsed.ok, parsed.errors
    assert parsed.message.input[0].data_type == ModelConfig().input.add(data_type=11).data_type


@pytest.mark.parametrize(
    ("text", "kind", "where", "needle"),
    [
        ('{\n  "max_batch_sise": 4\n}', "unknown-field", "2:3", 'no field named "max_batch_sise"'),
        ('{"max_batch_size": "four"}', "invalid-value", "1:20", "max_batch_size"),
        (
            '{"input": [{"name": "x"}, {"name": "y", "data_type": "TYPE_FP33"}]}',
            "unknown-enum-value",
            "1:54",
            "TYPE_FP33",
        ),
        (
            '{"dynamic_batching": {}, "sequence_batching": {}}',
            "oneof-conflict",
            "1:26",
            'oneof "scheduling_choice"',
        ),
        ("[1]", "syntax", "1:1", "must be a JSON object"),
    ],
)
def test_errors_point_at_the_json_that_causes_them(
    text: str, kind: str, where: str, needle: str
) -> None:
    parsed = parse_json(text)
    assert [error.kind for error in parsed.errors] == [kind]
    assert needle in parsed.errors[0].message
    assert str(parsed.errors[0].span) == where


def test_corpus_configs_round_trip_through_json() -> None:
    """Every real-world config that parses gives the same message from its JSON form."""
    root = require_corpus(REAL_WORLD)
    checked = 0
    for path in sorted(root.rglob("*.pbtxt")):
        parsed = parse(path.read_text(encoding="utf-8", errors="replace"))
        if not parsed.ok:
            continue
        back = parse_json(json.dumps(message_to_json(parsed.message)))
        assert back.ok, (path, back.errors)
        assert back.message == parsed.message, path
        checked += 1
    assert checked > 300


# -- the commands --------------------------------------------------------------------------


def test_lint_reports_preferred_batch_size_at_its_json_line(tmp_path: Path) -> None:
    path = write_model(tmp_path)
    result = run("lint", str(path), "--format", "json")
    assert result.returncode == 1, result.stderr
    found = [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "TC203"]
    assert len(found) == 1
    assert found[0]["path"].endswith("config.json")
    assert (found[0]["line"], found[0]["column"]) == (10, 33)
    assert "unconventional" not in result.stdout


def test_lint_reports_a_json_syntax_error_with_triton_s_override_message(tmp_path: Path) -> None:
    path = write_model(tmp_path, '{\n  "name": "m",\n  "max_batch_size": 4,,\n}')
    result = run("lint", str(path))
    assert result.returncode == 1
    assert "config.json:3:23: TC001" in result.stdout, result.stdout
    assert "Invalid config override" in result.stdout
    assert "Traceback" not in result.stderr


def test_lint_fix_leaves_a_json_config_alone(tmp_path: Path) -> None:
    path = write_model(tmp_path)
    before = path.read_text()
    result = run("lint", "--fix", "--unsafe-fixes", str(path))
    assert result.returncode == 1, result.stderr
    assert "TC203" in result.stdout
    assert path.read_text() == before


def test_fmt_formats_json_and_is_then_clean(tmp_path: Path) -> None:
    path = write_model(tmp_path, '{"name":"m","input":[{"name":"x","dims":[1,2]}]}')
    assert run("fmt", str(path)).returncode == 0
    assert path.read_text() == format_json(path.read_text())
    assert '"dims": [1, 2]' in path.read_text()
    assert run("fmt", "--check", str(path)).returncode == 0
    assert json.loads(path.read_text()) == {"name": "m", "input": [{"name": "x", "dims": [1, 2]}]}


def test_complete_reads_json_and_refuses_to_write_it(tmp_path: Path) -> None:
    # the model file is not part of this test (TC126 would refuse the model)
    (tmp_path / "tritoncfg.toml").write_text('model-files = "optional"\n')
    path = write_model(tmp_path, CONFIG.replace("[2, 8]", "[2, 4]"))
    result = run("complete", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    completed = json.loads(result.stdout)
    assert completed["dynamic_batching"]["preferred_batch_size"] == [2, 4]
    assert completed["input"][0]["dims"] == [3, 4]  # 64-bit integers as numbers, as Triton writes
    before = path.read_text()
    refused = run("complete", "--write", str(path))
    assert refused.returncode == 2
    assert "--write edits text-format configs only" in refused.stderr
    assert path.read_text() == before


def test_complete_of_a_json_config_triton_refuses_exits_1_at_the_json_line(tmp_path: Path) -> None:
    (tmp_path / "tritoncfg.toml").write_text('model-files = "optional"\n')
    path = write_model(tmp_path)  # preferred batch size 8 above max_batch_size 4
    result = run("complete", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{path}:10:33: error: dynamic batching preferred size must be <= max batch size" in (
        result.stderr
    )


PBTXT = """# the model
name: "m"  # its name
max_batch_size: 4
input [ { name: "x", data_type: TYPE_FP32, dims: [ 3 ] } ]
"""


def test_convert_pbtxt_to_json_and_back(tmp_path: Path) -> None:
    source = tmp_path / "config.pbtxt"
    source.write_text(PBTXT)
    result = run("convert", str(source), "--to", "json")
    assert result.returncode == 0, result.stderr
    assert "2 comments dropped: JSON has no comments" in result.stderr
    data = json.loads(result.stdout)
    assert data["max_batch_size"] == 4 and data["input"][0]["dims"] == [3]
    target = tmp_path / "config.json"
    assert run("convert", str(source), "--to", "json", "-o", str(target)).returncode == 0
    back = run("convert", str(target), "--to", "pbtxt")
    assert back.returncode == 0, back.stderr
    assert text_format.Parse(back.stdout, ModelConfig()) == text_format.Parse(PBTXT, ModelConfig())
    assert back.stderr == ""


def test_convert_pbtxt_to_pbtxt_keeps_comments_and_reports_bad_input(tmp_path: Path) -> None:
    source = tmp_path / "config.pbtxt"
    source.write_text(PBTXT)
    result = run("convert", str(source), "--to", "pbtxt")
    assert "# the model" in result.stdout and "# its name" in result.stdout
    source.write_text("max_batch_size 4\n")
    broken = run("convert", str(source), "--to", "json")
    assert broken.returncode == 2
    assert f'{source}:1:16: Expected ":"' in broken.stderr
    assert "Traceback" not in broken.stderr


# -- the schema ----------------------------------------------------------------------------


def validator() -> jsonschema.Draft202012Validator:
    schema = model_config_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_schema_command_prints_the_generated_schema() -> None:
    result = run("schema", "model-config")
    assert result.returncode == 0
    assert json.loads(result.stdout) == model_config_schema()


def test_settings_schema_under_both_names() -> None:
    for args in (("schema", "settings"), ("config-schema",)):
        result = run(*args)
        assert result.returncode == 0, args
        assert json.loads(result.stdout) == CONFIG_SCHEMA
    assert "config-schema" not in run("--help").stdout


def test_schema_accepts_every_real_world_config_as_json() -> None:
    root = require_corpus(REAL_WORLD)
    check = validator()
    checked = 0
    for path in sorted(root.rglob("*.pbtxt")):
        parsed = parse(path.read_text(encoding="utf-8", errors="replace"))
        if not parsed.ok:
            continue
        for document in (
            message_to_json(parsed.message),  # as Triton's HTTP API writes it
            json_format.MessageToDict(parsed.message, preserving_proto_field_name=True),
        ):
            errors = [e.message for e in check.iter_errors(document)]
            assert not errors, (path, errors[:3])
        checked += 1
    assert checked > 300


MUTATIONS = [
    ("unknown field", lambda d: d.update(max_batch_sise=4)),
    ("enum name", lambda d: d.update(input=[{"name": "x", "data_type": "TYPE_FP33"}])),
    ("type", lambda d: d.update(max_batch_size="four")),
    ("int32 range", lambda d: d.update(max_batch_size=2**31)),
    ("list", lambda d: d.update(input={"name": "x"})),
    ("oneof", lambda d: d.update(dynamic_batching={}, sequence_batching={})),
    ("nested", lambda d: d.update(dynamic_batching={"preferred_batch_size": ["x"]})),
    ("map value", lambda d: d.update(parameters={"k": {"string_value": 1}})),
]


@pytest.mark.parametrize(("label", "mutate"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_schema_rejects_mutated_configs_that_triton_rejects(label: str, mutate: object) -> None:
    check = validator()
    document = json.loads(CONFIG)
    assert not list(check.iter_errors(document))
    mutate(document)  # type: ignore[operator]
    assert list(check.iter_errors(document)), label
    assert not parse_json(json.dumps(document)).ok, label  # the JSON path agrees


ANY_CASE = CONFIG.replace('"TYPE_FP32"', '"type_fp32"', 1).replace('"TYPE_FP32"', '"Type_Fp32"')
ANY_CASE = ANY_CASE.replace(
    '"name": "m",', '"name": "m",\n  "instance_group": [{"kind": "kind_cpu"}],'
)


def test_schema_accepts_an_enum_name_in_any_letter_case_as_triton_does() -> None:
    """Triton's `JsonToModelConfig` parses with `case_insensitive_enum_parsing`."""
    check = validator()
    document = json.loads(ANY_CASE)
    assert document["input"][0]["data_type"] == "type_fp32"  # the mutation is in place
    assert not [e.message for e in check.iter_errors(document)]
    assert parse_json(ANY_CASE).ok
    for name in (
        ModelConfig.DESCRIPTOR.fields_by_name["input"]
        .message_type.fields_by_name["data_type"]
        .enum_type.values_by_name
    ):
        for spelling in (name, name.lower(), name.title()):
            document["input"][0]["data_type"] = spelling
            assert check.is_valid(document), spelling
    for wrong in ("type_fp33", "TYPE_FP32 ", "typefp32", "xTYPE_FP32"):
        document["input"][0]["data_type"] = wrong
        assert not check.is_valid(document), wrong
        assert not parse_json(json.dumps(document)).ok, wrong  # the JSON path agrees
    # the pattern mirrors protobuf's upper-casing only while every enum name is upper case
    names = re.findall(r'"enum": \[([^\]]*)\]', json.dumps(model_config_schema()))
    assert names and all(n == n.upper() for n in names if "NaN" not in n)


def test_convert_and_lint_read_enum_names_in_any_letter_case(tmp_path: Path) -> None:
    path = write_model(tmp_path, ANY_CASE)
    converted = run("convert", str(path), "--to", "pbtxt")
    assert converted.returncode == 0, converted.stderr
    upper = ANY_CASE.replace("type_fp32", "TYPE_FP32").replace("Type_Fp32", "TYPE_FP32")
    expected = json_format.Parse(upper.replace("kind_cpu", "KIND_CPU"), ModelConfig())
    assert text_format.Parse(converted.stdout, ModelConfig()) == expected
    assert "data_type: TYPE_FP32" in converted.stdout and "kind: KIND_CPU" in converted.stdout
    linted = run("lint", str(path), "--format", "json")
    found = json.loads(linted.stdout)["diagnostics"]
    # the config was read and checked: TC203 (preferred size 8 above 4) at its JSON line
    assert [(d["line"], d["column"]) for d in found if d["code"] == "TC203"] == [(11, 33)]
    assert not [d for d in found if d["code"].startswith("TC00")], found


def test_an_enum_name_that_matches_in_no_case_is_still_an_error(tmp_path: Path) -> None:
    path = write_model(tmp_path, ANY_CASE.replace('"type_fp32"', '"type_fp33"'))
    converted = run("convert", str(path), "--to", "pbtxt")
    assert converted.returncode == 2
    assert f"{path}:7:32: " in converted.stderr and "type_fp33" in converted.stderr
    assert "Traceback" not in converted.stderr
    linted = run("lint", str(path), "--format", "json")
    assert linted.returncode == 1
    (found,) = [d for d in json.loads(linted.stdout)["diagnostics"] if d["code"] == "TC005"]
    assert (found["line"], found["column"]) == (7, 32)


def test_a_repository_s_config_json_is_not_read_and_the_finding_says_how_to_convert(
    tmp_path: Path,
) -> None:
    """Triton reads config.pbtxt only: a model directory with just a config.json is linted as a
    model without a config, and TC104 says how to make the pbtxt."""
    path = write_model(tmp_path)
    result = run("lint", str(tmp_path), "--format", "json")
    codes = {d["code"]: d for d in json.loads(result.stdout)["diagnostics"]}
    assert "TC203" not in codes  # the JSON was not read
    assert "config.json beside it is never read" in codes["TC104"]["message"]
    converted = run(
        "convert", str(path), "--to", "pbtxt", "-o", str(path.with_name("config.pbtxt"))
    )
    assert converted.returncode == 0, converted.stderr
    again = json.loads(run("lint", str(tmp_path), "--format", "json").stdout)["diagnostics"]
    (line,) = [d["line"] for d in again if d["code"] == "TC203"]
    pbtxt = path.with_name("config.pbtxt").read_text().split("\n")
    assert "preferred_batch_size" in pbtxt[line - 1]


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_of_thousands_of_digits_is_an_error_at_its_position(sign: str) -> None:
    # int() refuses over 4,300 digits (Python's int-string limit): it was a ValueError traceback
    parsed = parse_json('{\n  "max_batch_size": ' + sign + "9" * 5_000 + "\n}")
    assert [(e.kind, e.span.line, e.span.column) for e in parsed.errors] == [("syntax", 2, 21)]
    assert parsed.errors[0].message.startswith("Integer with 5000 digits: at most 4300 are read")
    at_the_limit = parse_json('{"max_batch_size": ' + sign + "9" * 4_300 + "}")
    assert [e.kind for e in at_the_limit.errors] == ["invalid-value"]  # read, then out of range
