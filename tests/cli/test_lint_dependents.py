"""Linting some files of a repository (pre-commit) also checks the models that depend on them:
the ensembles that run them, transitively."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from clikit import run
from dependents_layout import ENSEMBLE, LAYOUT, STEP

from tritoncfg import workspace
from tritoncfg.api import lint_project
from tritoncfg.repository.reuse import SETTLE_NS


def _write(root: Path, layout: dict[str, str]) -> None:
    for rel, text in layout.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_one_changed_step_checks_its_ensembles(tmp_path: Path) -> None:
    _write(tmp_path, LAYOUT)
    step = tmp_path / "models" / "step" / "config.pbtxt"
    before = run("lint", str(step))
    assert before.returncode == 0, before.stdout
    assert "(3 models, 3 config files)" in before.stdout  # step, ens and outer; not other
    step.write_text(STEP.replace('name: "y"', 'name: "y2"'))  # rename the step's output
    after = run("lint", str(step))
    assert after.returncode == 1
    assert "ens/config.pbtxt:5:" in after.stdout and "TC532" in after.stdout
    assert "outer/config.pbtxt" in after.stdout and "TC522" in after.stdout
    assert "models/other" not in after.stdout


def test_excluded_ensembles_are_not_added(tmp_path: Path) -> None:
    _write(tmp_path, LAYOUT)
    (tmp_path / "tritoncfg.toml").write_text('exclude = ["models/ens"]\n')
    result = run("lint", str(tmp_path / "models" / "step" / "config.pbtxt"))
    assert "(1 model, 1 config file)" in result.stdout, result.stdout


def test_ensemble_in_the_selected_alternative_config_is_found(tmp_path: Path) -> None:
    layout = dict(LAYOUT)
    # the ensemble lives in configs/prod.pbtxt; its config.pbtxt is a plain python model
    layout["models/ens/configs/prod.pbtxt"] = layout.pop("models/ens/config.pbtxt")
    layout["models/ens/config.pbtxt"] = STEP.replace('"step"', '"ens"')
    layout["models/ens/1/model.py"] = "# never executed\n"
    _write(tmp_path, layout)
    step = tmp_path / "models" / "step" / "config.pbtxt"
    step.write_text(STEP.replace('name: "y"', 'name: "y2"'))
    result = run("lint", "--model-config-name", "prod", str(step))
    assert result.returncode == 1 and "ens/configs/prod.pbtxt" in result.stdout, result.stdout


@pytest.mark.parametrize("written", ['"st" "ep"', '"st\\x65p"', "'st'  # joined\n  'ep'"])
def test_an_ensemble_naming_the_step_in_pieces_or_escapes_is_found(
    tmp_path: Path, written: str
) -> None:
    """Only ensembles whose bytes may name the step are parsed: a name the bytes do not show
    as written (escapes, adjacent literals) still gets the ensemble parsed."""
    layout = dict(LAYOUT)
    layout["models/ens/config.pbtxt"] = layout["models/ens/config.pbtxt"].replace(
        'model_name: "step"', f"model_name: {written}"
    )
    _write(tmp_path, layout)
    step = tmp_path / "models" / "step" / "config.pbtxt"
    step.write_text(STEP.replace('name: "y"', 'name: "y2"'))
    result = run("lint", "--no-cache", str(step))
    assert result.returncode == 1, result.stdout
    assert "ens/config.pbtxt" in result.stdout and "TC532" in result.stdout
    assert "outer/config.pbtxt" in result.stdout


def test_the_cache_remembers_which_configs_name_no_model_and_sees_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second pre-commit run reads none of the unchanged configs that are no ensemble, or
    that name no linted model; a config changed since is read again."""
    _write(tmp_path, LAYOUT)
    for index in range(5):  # plain models
        _write(tmp_path, {f"models/p{index}/config.pbtxt": STEP.replace('"step"', f'"p{index}"')})
    time.sleep(SETTLE_NS / 1e9 + 0.2)  # the cache trusts only settled stamps
    monkeypatch.chdir(tmp_path)  # the cache goes beside the project: tmp_path/.tritoncfg_cache
    other = tmp_path / "models" / "other" / "config.pbtxt"
    read: list[str] = []
    reading = workspace.read_regular

    def counted(path: Path | str, **kwargs: Any) -> bytes:
        read.append(str(path))
        return reading(path, **kwargs)

    monkeypatch.setattr(workspace, "read_regular", counted)
    first = lint_project(other)
    assert first.models == 1 and sorted(read) == sorted(
        str(p) for p in tmp_path.glob("models/*/config.pbtxt") if p != other
    )
    assert list(tmp_path.glob(".tritoncfg_cache/mentions-*.json"))
    read.clear()
    again = lint_project(other)
    assert read == [] and again.diagnostics == first.diagnostics and again.models == 1
    # p0 becomes an ensemble that runs `other`: its stamp changed, so it is read and found
    p0 = tmp_path / "models" / "p0" / "config.pbtxt"
    p0.write_text(ENSEMBLE.format(name="p0", step="other", i="x", o="y"))
    changed = lint_project(other)
    assert read == [str(p0)] and changed.models == 2
    assert str(p0) in changed.file_paths


def test_the_cache_remembers_each_ensembles_steps_and_sees_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second pre-commit run of a step parses none of the ensembles that run it (the cache
    keeps their step names by their configs' stamps); an ensemble changed since is parsed again,
    and one that no longer runs the step is no longer linted with it."""
    _write(tmp_path, LAYOUT)
    time.sleep(SETTLE_NS / 1e9 + 0.2)  # the cache trusts only settled stamps
    monkeypatch.chdir(tmp_path)  # the cache goes beside the project: tmp_path/.tritoncfg_cache
    step = tmp_path / "models" / "step" / "config.pbtxt"
    parsed: list[str] = []
    ensemble_steps = workspace._ensemble_steps

    def counted(ws: Any, anchor: Any, name: str) -> Any:
        parsed.append(name)
        return ensemble_steps(ws, anchor, name)

    monkeypatch.setattr(workspace, "_ensemble_steps", counted)
    first = lint_project(step)
    assert first.models == 3 and sorted(parsed) == ["ens", "outer"]
    parsed.clear()
    again = lint_project(step)
    assert parsed == [] and again.models == 3
    assert again.diagnostics == first.diagnostics and again.file_paths == first.file_paths
    # ens now runs `other`; "step" is still one of its strings (an input_map key)
    ens = tmp_path / "models" / "ens" / "config.pbtxt"
    ens.write_text(ENSEMBLE.format(name="ens", step="other", i="step", o="y"))
    changed = lint_project(step)
    assert parsed == ["ens"] and changed.models == 1, changed.file_paths
