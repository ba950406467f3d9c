"""`tritoncfg.api.lint_project`: the project's settings, merged with the caller's overrides, as
`tritoncfg lint` reads them. Each precedence case is checked once, through the API."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.api import (
    LintOverrides,
    OptionError,
    SettingsError,
    lint,
    lint_project,
    lint_setup,
    project,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.settings import Settings

# TC903 (warning): batching without dynamic_batching; TC402: KIND_GPU, an error with `gpus = "none"`
CONFIG = 'backend: "python"\nmax_batch_size: 8\ninstance_group [{ kind: KIND_GPU }]\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    make_model(tmp_path / "models", "m", CONFIG, files={"1/model.py": ""})
    return tmp_path / "models"


def _settings(repo: Path, text: str) -> None:
    (repo.parent / "tritoncfg.toml").write_text(text, encoding="utf-8")


def _found(repo: Path, overrides: LintOverrides | None = None) -> dict[str, Severity]:
    result = lint_project(repo, overrides)
    assert result.models == 1  # the model was linted: an absent code means something
    return {d.code: d.severity for d in result.diagnostics}


def test_same_findings_as_the_cli_on_a_repository_with_settings(repo: Path) -> None:
    _settings(repo, 'gpus = "none"\nignore = ["TC913"]\nseverity-overrides = { TC903 = "info" }\n')
    result = lint_project(repo)
    shown = json.loads(run("lint", str(repo), "--format", "json").stdout)["diagnostics"]
    assert [(d.code, d.severity.value, d.message) for d in result.diagnostics] == [
        (d["code"], d["severity"], d["message"]) for d in shown
    ]
    assert {d.code for d in result.diagnostics} >= {"TC402", "TC903"}
    assert "TC913" not in {d.code for d in result.diagnostics}
    # the plain API call, without the project's settings, finds what they turned off
    assert "TC913" in {d.code for d in lint(repo).diagnostics}


def test_an_option_beats_the_setting(repo: Path) -> None:
    _settings(repo, 'gpus = "none"\ntriton-mode = "strict"\n')
    assert _found(repo)["TC402"] is Severity.ERROR  # no GPU on the host
    assert _found(repo, LintOverrides(gpus="0")).get("TC402") is not Severity.ERROR


def test_select_replaces_and_ignore_adds_to_the_settings(repo: Path) -> None:
    _settings(repo, 'select = ["TC9"]\nignore = ["TC913"]\n')
    assert set(_found(repo)) & {"TC903", "TC913", "TC402"} == {"TC903"}
    assert "TC402" in _found(repo, LintOverrides(select=["TC4"]))
    assert "TC903" not in _found(repo, LintOverrides(ignore=["TC903"]))


def test_a_rule_the_caller_names_is_not_ignored_by_the_settings(repo: Path) -> None:
    _settings(repo, 'ignore = ["TC903"]\n')
    assert "TC903" not in _found(repo)
    assert "TC903" in _found(repo, LintOverrides(extend_select=["TC903"]))


def test_severity_overrides_merge_with_the_callers_winning(repo: Path) -> None:
    _settings(repo, 'severity-overrides = { TC903 = "error", TC913 = "warning" }\n')
    found = _found(repo, LintOverrides(severity_overrides={"TC903": "info"}))
    assert (found["TC903"], found["TC913"]) == (Severity.INFO, Severity.WARNING)


def test_warnings_as_errors_from_the_settings_and_turned_off(repo: Path) -> None:
    _settings(repo, 'warnings-as-errors = true\nignore = ["TC4"]\n')
    result = lint_project(repo)
    assert not result.has_errors and result.count(Severity.WARNING) and result.failed
    assert not lint_project(repo, LintOverrides(warnings_as_errors=False)).failed


def test_cache_from_the_settings_and_the_override(repo: Path) -> None:
    cache = repo.parent / ".tritoncfg_cache"
    _settings(repo, "cache = false\n")
    lint_project(repo)
    assert not cache.exists()
    lint_project(repo, LintOverrides(cache=True))
    assert cache.is_dir()


def test_paths_in_the_settings_are_relative_to_the_settings_file(repo: Path) -> None:
    _settings(repo, 'backend-dir = "backends"\nexclude = ["models/m"]\n')
    setup = project(repo).setup
    assert setup.options.backend_dir == repo.parent / "backends"
    assert setup.filters.excluded(repo / "m")
    given = lint_setup(Settings(), LintOverrides(backend_dir=Path("/opt/b"))).options
    assert given.backend_dir == Path("/opt/b")


def test_triton_mode_model_files_and_the_rest_override_their_setting(repo: Path) -> None:
    _settings(
        repo,
        'triton-mode = "strict"\nmodel-files = "optional"\nrate-limit = "off"\n'
        'gpu-memory = "24GiB"\ntriton-version = "2.40"\nmodel-config-name = "a"\n'
        'rate-limit-resource = ["R:1"]\n',
    )
    configured = project(repo).setup.options
    assert (configured.triton_mode, configured.model_files) == ("strict", "optional")
    assert (configured.rate_limit, configured.gpu_memory) == (False, 24 * 2**30)
    assert (configured.triton_version, configured.config_name) == ("2.40", "a")
    assert configured.rate_limit_resources == (("R", 1, None),)
    given = project(
        repo,
        LintOverrides(
            triton_mode="default",
            model_files="required",
            rate_limit="execution_count",
            gpu_memory=1000,
            triton_version="2.51",
            model_config_name="b",
            rate_limit_resources=["S:2:0"],
        ),
    ).setup.options
    assert (given.triton_mode, given.model_files) == ("default", "required")
    assert (given.rate_limit, given.gpu_memory) == (True, 1000)
    assert (given.triton_version, given.config_name) == ("2.51", "b")
    assert given.rate_limit_resources == (("S", 2, 0),)


def test_isolated_and_an_explicit_settings_file(repo: Path) -> None:
    _settings(repo, 'ignore = ["TC903"]\n')
    assert "TC903" in _found_with(repo, isolated=True)
    other = repo.parent / "other.toml"
    other.write_text('select = ["TC4"]\n', encoding="utf-8")
    assert set(_found_with(repo, config=other)) <= {"TC402"}


def _found_with(repo: Path, *, config: Path | None = None, isolated: bool = False) -> set[str]:
    result = lint_project(repo, config=config, isolated=isolated)
    assert result.models == 1
    return {d.code for d in result.diagnostics}


def test_a_project_folder_stands_for_the_repository_its_settings_name(repo: Path) -> None:
    _settings(repo, 'repository = "models"\n')
    assert project(repo.parent).paths == (repo.parent / "models",)
    assert "TC903" in {d.code for d in lint_project(repo.parent).diagnostics}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (LintOverrides(gpus="zero"), "--gpus expects"),
        (LintOverrides(rate_limit="on"), "--rate-limit expects"),
        (LintOverrides(gpu_memory="lots"), "--gpu-memory:"),
        (LintOverrides(triton_version="1.0"), "--triton-version:"),
        (LintOverrides(rate_limit_resources=["R"]), "--rate-limit-resource:"),
        (
            LintOverrides(severity_overrides={"TC903": "fatal"}),
            "severity override TC903=fatal: 'fatal' is not a severity; use error, warning",
        ),
        (LintOverrides(select=["TC99x"]), "unknown rule selector 'TC99x'"),
    ],
)
def test_bad_values_raise_option_error(repo: Path, overrides: LintOverrides, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        lint_project(repo, overrides)


def test_bad_settings_and_missing_paths_raise(repo: Path) -> None:
    with pytest.raises(OptionError, match="no such file or directory"):
        lint_project(repo / "nope")
    _settings(repo, 'per-path-ignores = { "x/*" = ["TC999"] }\n')
    with pytest.raises(OptionError, match="TC999"):
        lint_project(repo)
    _settings(repo, "selct = []\n")
    with pytest.raises(SettingsError, match='did you mean "select"'):
        lint_project(repo)


def test_the_api_doc_example_runs(repo: Path) -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", text, re.S)
    (repo.parent / "model_repository").symlink_to(repo)
    _settings(repo, "warnings-as-errors = true\n")  # TC903 then fails the run
    done = subprocess.run(
        [sys.executable, "-c", example],
        cwd=repo.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "TC903" in done.stdout and done.stdout.endswith("fails\n")


def test_settings_overrides_go_between_the_file_and_the_overrides(repo: Path) -> None:
    """`--config 'KEY = VALUE'` from Python: over the file's values (a table merged key by key),
    under the caller's overrides; the cache folder moves with `cache-dir` or `cache_dir`."""
    _settings(repo, 'severity-overrides = { TC402 = "info" }\ncache = false\n')
    merged = lint_project(
        repo, settings_overrides={"severity-overrides": {"TC903": "error"}, "gpus": "none"}
    )
    found = {d.code: d.severity for d in merged.diagnostics}
    assert found["TC903"] is Severity.ERROR and found["TC402"] is Severity.INFO
    beaten = lint_project(
        repo,
        LintOverrides(select=["TC9"], gpus="0"),
        settings_overrides={"select": ["TC4"], "gpus": "none"},
    )
    codes = {d.code for d in beaten.diagnostics}
    assert "TC903" in codes and all(c.startswith("TC9") for c in codes)  # the caller's select
    with pytest.raises(SettingsError, match='--config: unknown key "gpu"'):
        lint_project(repo, settings_overrides={"gpu": "none"})
    setup = project(repo, settings_overrides={"cache": True, "cache-dir": "c"}).setup
    assert setup.cache_dir == repo.parent / "c"  # the settings file's folder
    moved = project(
        repo, LintOverrides(cache_dir=repo.parent / "d"), settings_overrides={"cache": True}
    )
    assert moved.setup.cache_dir == repo.parent / "d"
