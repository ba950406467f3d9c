"""Linting some files of a repository (pre-commit) also checks the models that depend on them:
the ensembles that run them, transitively."""

from __future__ import annotations

from pathlib import Path

from clikit import run
from dependents_layout import LAYOUT, STEP


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
