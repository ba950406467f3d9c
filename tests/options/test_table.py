"""Each lint option is declared once (tritoncfg/options/table.py): the settings schema's keys,
`LintOverrides`' fields, `tritoncfg lint`'s options and LintOptions' fields are the table's,
every declared example is valid, and the docs tables are the generated ones."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tritoncfg.checks import LintOptions
from tritoncfg.lintoptions import LintOverrides, lint_setup
from tritoncfg.options.markdown import regenerate, sections
from tritoncfg.options.table import BY_KEY, LINT_OPTIONS
from tritoncfg.settings import CONFIG_SCHEMA, KEYS, load_settings

ROOT = Path(__file__).resolve().parents[2]
COMMAND_LINE = [o for o in LINT_OPTIONS if o.flag]


def _lint_command() -> Any:
    import typer.main

    from tritoncfg.cli.app import app

    root = typer.main.get_command(app)
    command = root.get_command(root.make_context("tritoncfg", ["lint", "a"]), "lint")
    assert command is not None
    return command


def test_the_schema_keys_are_the_tables() -> None:
    assert len(BY_KEY) == len(LINT_OPTIONS)  # no key declared twice
    assert list(KEYS) == [o.key for o in LINT_OPTIONS]
    for option in LINT_OPTIONS:
        assert CONFIG_SCHEMA["properties"][option.key]["description"] == option.summary


def test_the_override_fields_are_the_command_line_options() -> None:
    fields = [f.name for f in dataclasses.fields(LintOverrides)]
    assert sorted(fields) == sorted(o.field for o in COMMAND_LINE if o.field)
    assert "rate_limit_resources" in fields and "exclude" not in fields  # settings only


def test_lints_options_are_the_tables_flags() -> None:
    """Every option with a flag is one of lint's, spelled as declared, with its help; and no
    other option of lint is a setting."""
    by_name = {param.name: param for param in _lint_command().params}
    for option in COMMAND_LINE:
        param = by_name[option.flag_name.replace("-", "_")]
        assert param.param_type_name == "option", option.key
        assert [*param.opts, *param.secondary_opts] == option.flag.split("/"), option.key
        assert param.help == option.help and param.default is None, option.key
        assert param.multiple == option.repeatable, option.key
    flags = {form for o in COMMAND_LINE for form in (o.flag or "").split("/")}
    others = {
        opt
        for param in by_name.values()
        for opt in getattr(param, "opts", [])
        if param.name not in {o.flag_name.replace("-", "_") for o in COMMAND_LINE}
    }
    assert not others & flags
    assert not {f"--{key}" for key in KEYS} & others  # a setting is never an own option


def test_the_targets_are_lint_options_fields() -> None:
    targets = [o.target for o in LINT_OPTIONS if o.target]
    assert sorted(targets) == sorted(f.name for f in dataclasses.fields(LintOptions))


def _example(option_key: str) -> Any:
    return tomllib.loads(f"v = {BY_KEY[option_key].example}")["v"]


@pytest.mark.parametrize("key", KEYS)
def test_each_example_is_valid_for_its_schema(key: str) -> None:
    jsonschema.validate(_example(key), CONFIG_SCHEMA["properties"][key])


def test_the_generated_example_is_a_usable_settings_file(tmp_path: Path) -> None:
    """docs/linting.md's example (generated from the table) loads, and every value reaches
    lint: the options read it as written there."""
    text = (ROOT / "docs" / "linting.md").read_text(encoding="utf-8")
    example = text.split("<!-- generated: settings-example -->\n```toml\n", 1)[1].split("```")[0]
    (tmp_path / "tritoncfg.toml").write_text(example.replace("[tool.tritoncfg]\n", ""))
    settings = load_settings(tmp_path)
    assert set(settings.values) == set(KEYS)
    setup = lint_setup(settings)
    assert setup.options.gpus == (0, 1) and setup.options.gpu_memory == 80 * 2**30
    assert setup.options.rate_limit_resources == (("R", 4, None), ("GPU_MEM", 2, 0))
    assert setup.options.config_name == "h100" and setup.options.runtimes == (
        "libtriton_custom.so",
    )
    assert setup.cache_dir == tmp_path.resolve() / ".tritoncfg_cache"
    # the caller's values win over each of them
    stated = LintOverrides(gpus="none", rate_limit_resources=["X:1"], cache=False)
    given = lint_setup(settings, stated)
    assert given.options.gpus == () and given.options.rate_limit_resources == (("X", 1, None),)
    assert given.cache_dir is None


def test_the_command_line_states_each_option_as_its_override() -> None:
    from tritoncfg.cli.lint_options import overrides

    args = [
        "a",
        "--triton-mode=strict",
        "--gpus=0,1",
        "--select=TC1,TC2",
        "--select=TC9",
        "--severity-override=TC901=error",
        "--rate-limit-resource=R:2",
        "--no-cache",
        "--no-respect-gitignore",
    ]
    params = _lint_command().make_context("lint", args).params
    assert overrides(params) == LintOverrides(
        triton_mode="strict",
        gpus="0,1",
        select=("TC1", "TC2", "TC9"),
        severity_overrides={"TC901": "error"},
        rate_limit_resources=("R:2",),
        cache=False,
        respect_gitignore=False,
    )


def test_the_docs_tables_are_current() -> None:
    for name, generated in sections().items():
        text = (ROOT / name).read_text(encoding="utf-8")
        assert regenerate(text, generated) == text, f"{name} is stale: run `make docs`"


def test_a_section_the_docs_lack_is_an_error() -> None:
    with pytest.raises(ValueError, match="no <!-- generated: x -->"):
        regenerate("no markers here\n", {"x": "body"})
