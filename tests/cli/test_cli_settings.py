"""Configuration discovery ([tool.tritoncfg], tritoncfg.toml), validation, and the CLI options."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.settings import CONFIG_SCHEMA, SettingsError, find_config, load_settings

CONFIG = 'backend: "python"\nmax_batch_size: 8\n'  # TC903: batching model without dynamic_batching


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_model(tmp_path / "models", "m", CONFIG, files={"1/model.py": ""})
    return tmp_path


def _codes(result_stdout: str) -> set[str]:
    return {d["code"] for d in json.loads(result_stdout)["diagnostics"]}


def test_pyproject_table_found_by_walking_up(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tritoncfg]\nignore = ["TC903"]\n')
    assert find_config(project / "models" / "m") == project / "pyproject.toml"
    result = run("lint", str(project / "models"), "--format", "json")
    assert "TC903" not in _codes(result.stdout)


def test_pyproject_without_table_is_skipped_for_tritoncfg_toml_above(project: Path) -> None:
    (project / "tritoncfg.toml").write_text('severity-overrides = { TC903 = "error" }\n')
    (project / "models" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(project / "models") == project / "tritoncfg.toml"
    result = run("lint", str(project / "models"), "--format", "json")
    assert result.returncode == 1  # the override made the warning an error


def test_isolated_and_explicit_config(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.tritoncfg]\nignore = ["TC903"]\n')
    assert "TC903" in _codes(
        run("lint", str(project / "models"), "--format", "json", "--isolated").stdout
    )
    other = project / "other.toml"
    other.write_text('select = ["TC1"]\n')
    assert "TC903" not in _codes(
        run("lint", str(project / "models"), "--format", "json", "--config", str(other)).stdout
    )


def test_cli_flags_beat_the_configuration(project: Path) -> None:
    (project / "tritoncfg.toml").write_text('ignore = ["TC903"]\nwarnings-as-errors = true\n')
    result = run("lint", str(project / "models"), "--format", "json", "--extend-select", "TC903")
    assert "TC903" in _codes(result.stdout)
    assert result.returncode == 1  # warnings-as-errors from the file


def test_unknown_key_gets_a_suggestion(project: Path) -> None:
    (project / "tritoncfg.toml").write_text('ignore = ["TC903"]\nselct = ["TC1"]\n')
    result = run("lint", str(project / "models"))
    assert result.returncode == 2
    assert 'unknown key "selct"; did you mean "select"?' in result.stderr
    assert str(project / "tritoncfg.toml") in result.stderr


def test_a_tool_table_outside_pyproject_says_where_it_is_read(project: Path) -> None:
    (project / "pyproject-ci.toml").write_text('[tool.tritoncfg]\nselect = ["TC1"]\n')
    result = run("lint", str(project / "models"), "--config", str(project / "pyproject-ci.toml"))
    assert result.returncode == 2
    assert 'unknown key "tool"; only a file named pyproject.toml is read for its' in result.stderr
    (project / "pyproject.toml").write_text('[tool.tritoncfg]\nselect = ["TC1"]\n')
    named = run("lint", str(project / "models"), "--config", str(project / "pyproject.toml"))
    assert named.returncode in (0, 1), named.stderr  # the same table, read


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('triton-mode = "lenient"\n', "triton-mode"),
        ("gpus = [-1]\n", "gpus"),
        ('severity-overrides = { TC903 = "fatal" }\n', "severity-overrides.TC903"),
        ("select = 3\n", "select"),
        ("select = [\n", "invalid TOML"),
    ],
)
def test_invalid_values_are_rejected_with_the_key(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "tritoncfg.toml"
    path.write_text(text)
    with pytest.raises(SettingsError, match=needle.replace(".", r"\.")):
        load_settings(tmp_path)


@pytest.mark.parametrize(
    ("name", "text", "position"),
    [
        ("tritoncfg.toml", 'ignore = ["TC903"]\n  selct = ["TC1"]\n', ":2:3: unknown key"),
        ("tritoncfg.toml", 'select = ["TC9"]\n[severity-overrides]\nTC903 = "x"\n', ":2:1: "),
        ("tritoncfg.toml", 'select = ["TC9"\nx = 1\n', ":2:1: invalid TOML"),
        ("tritoncfg.toml", "select = [\n", ":2:1: invalid TOML"),
        (  # in pyproject.toml, only the [tool.tritoncfg] table's own line counts
            "pyproject.toml",
            '[tool.other]\nselect = 1\n\n[tool.tritoncfg]\nselect = "TC9"\n',
            ":5:1: select: 'TC9' is not of type 'array'",
        ),
        (
            "pyproject.toml",
            '[tool.tritoncfg]\nselect = ["TC9"]\n[tool.tritoncfg.severity-overrides]\nTC903 = 1\n',
            ":3:1: severity-overrides.TC903",
        ),
    ],
)
def test_settings_errors_say_where_in_the_file(
    tmp_path: Path, name: str, text: str, position: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SettingsError) as raised:
        load_settings(tmp_path)
    assert str(raised.value).startswith(f"{path}{position}"), raised.value


def test_config_schema_command_prints_the_schema() -> None:
    result = run("config-schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema == CONFIG_SCHEMA
    jsonschema.Draft202012Validator.check_schema(schema)


def test_unknown_selector_is_a_usage_error(project: Path) -> None:
    result = run("lint", str(project / "models"), "--select", "TC99x")
    assert result.returncode == 2
    assert "unknown rule selector 'TC99x'" in result.stderr


def test_rules_and_explain_commands() -> None:
    rows = json.loads(run("rules", "--format", "json").stdout)
    assert {"code", "rule", "severity", "phase", "summary", "fixable"} == set(rows[0])
    assert any(r["code"] == "TC002" and r["rule"] == "unknown-field" for r in rows)
    explained = run("explain", "unknown-field")
    assert explained.returncode == 0
    assert "TC002" in explained.stdout and "What it does" in explained.stdout
    assert run("explain", "TC9999").returncode == 2


def test_rules_piped_print_one_whole_line_per_rule() -> None:
    from tritoncfg.checks import RULES

    result = run("rules")  # stdout is a pipe here, as in `tritoncfg rules > rules.txt`
    assert result.returncode == 0
    header, *lines = result.stdout.splitlines()
    assert header.split()[:3] == ["code", "rule", "severity"]
    assert len(lines) == len(RULES)
    for line, code in zip(lines, sorted(RULES), strict=True):
        rule = RULES[code]
        assert line.split()[:4] == [code, rule.name, rule.severity.value, rule.phase]
        assert line.endswith(rule.summary)


def test_quiet_and_statistics(project: Path) -> None:
    quiet = run("lint", str(project / "models"), "--quiet")
    assert "Found" not in quiet.stdout and "TC903" in quiet.stdout
    stats = run("lint", str(project / "models"), "--statistics")
    assert any(line.split()[:2] == ["1", "TC903"] for line in stats.stdout.splitlines())
