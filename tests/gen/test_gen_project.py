"""Generators read the project's settings as `tritoncfg lint` does: a fresh `tritoncfg new`
project (model files not committed, `model-files = "optional"`) takes every generator, and a
setting that matters (model files required) still blocks one."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from scaffold.scaffoldkit import REPOSITORY, new

from tritoncfg.text import parse


def _project(root: Path) -> Path:
    """A project from `tritoncfg new` with an onnx, a tensorrt and a python model and no model
    file: lint passes on it as scaffolded."""
    for name, template in (("clf", "onnx"), ("det", "tensorrt"), ("post", "python")):
        done = new(root, "--model", name, "--template", template)
        assert done.returncode == 0, done.stderr
    assert not (root / REPOSITORY / "clf" / "1" / "model.onnx").exists()  # no model file
    _lints_clean(root)
    return root


def _lints_clean(root: Path) -> None:
    linted = run("lint", str(root))
    assert linted.returncode == 0, linted.stdout + linted.stderr
    last = linted.stdout.strip().splitlines()[-1]
    assert last.startswith(("All checks passed", "Found 0 errors, 0 warnings")), linted.stdout


def _require_model_files(root: Path) -> None:
    settings = root / "tritoncfg.toml"
    text = settings.read_text()
    assert 'model-files = "optional"' in text
    settings.write_text(text.replace('model-files = "optional"', 'model-files = "required"'))


@pytest.mark.parametrize(
    "args",
    [
        ("dynamic-batching", "--preferred", "4", "--max-queue-delay-us", "100"),
        ("instance-group", "--kind", "gpu", "--count", "2"),
        ("warmup",),
    ],
)
@pytest.mark.parametrize("model", ["clf", "det"])
def test_each_generator_runs_on_a_fresh_project(
    args: tuple[str, ...], model: str, tmp_path: Path
) -> None:
    root = _project(tmp_path / "demo")
    config = root / REPOSITORY / model / "config.pbtxt"
    before = config.read_text()
    shown = run("gen", *args, str(root / REPOSITORY / model))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("--- ") and config.read_text() == before
    written = run("gen", *args, str(root / REPOSITORY / model), "--write")
    assert written.returncode == 0, written.stderr
    assert config.read_text() != before
    _lints_clean(root)
    assert run("fmt", "--check", str(root)).returncode == 0


def test_a_required_model_file_still_blocks(tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    _require_model_files(root)
    linted = run("lint", str(root))
    assert linted.returncode == 1 and "TC126" in linted.stdout  # the setting is read
    model = root / REPOSITORY / "clf"
    before = (model / "config.pbtxt").read_text()
    done = run("gen", "dynamic-batching", "--preferred", "4", str(model), "--write")
    assert done.returncode == 1
    assert "TC126" in done.stderr and "the model has errors already" in done.stderr
    assert (model / "config.pbtxt").read_text() == before


def test_ensemble_from_the_project_folder(tmp_path: Path) -> None:
    """--repository PROJECT means the project's model repository, as for lint; the result is
    checked under the project's settings."""
    root = _project(tmp_path / "demo")
    args = ["gen", "ensemble", "pipe", "--step", "clf", "--step", "post"]
    shown = run(*args, "--repository", str(root))
    assert shown.returncode == 0, shown.stderr
    target = root / REPOSITORY / "pipe"
    assert f"+++ {target / 'config.pbtxt'}" in shown.stdout and not target.exists()
    written = run(*args, "--repository", str(root), "--write")
    assert written.returncode == 0, written.stderr
    steps = parse((target / "config.pbtxt").read_text()).message.ensemble_scheduling.step
    assert [s.model_name for s in steps] == ["clf", "post"]
    assert (target / "1").is_dir()
    _lints_clean(root)


def test_ensemble_findings_name_the_real_paths(tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    _require_model_files(root)
    done = run(
        "gen", "ensemble", "pipe", "--step", "clf", "--step", "post", "--repository", str(root)
    )
    assert done.returncode == 1
    assert "TC522" in done.stderr  # step clf has no model.onnx: Triton would not load it
    assert str(root / REPOSITORY / "clf" / "1" / "model.onnx") in done.stderr
    assert "tritoncfg-gen-" not in done.stderr  # no scratch path
    assert not (root / REPOSITORY / "pipe").exists()


def test_settings_that_cannot_be_used_are_a_usage_error(tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    (root / "tritoncfg.toml").write_text('model-files = "sometimes"\n')
    done = run("gen", "warmup", str(root / REPOSITORY / "clf"))
    assert done.returncode == 2 and "tritoncfg.toml:1:1: model-files" in done.stderr


@pytest.mark.parametrize("installed", [True, False])
def test_the_backends_setting_decides_as_for_lint(installed: bool, tmp_path: Path) -> None:
    """A custom backend is an error (TC120) unless the settings list it as installed: gen
    follows the same settings as lint, either way."""
    root = tmp_path / "proj"
    model = root / "models" / "custom"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'backend: "mybackend"\nmax_batch_size: 4\n'
        'input [\n  {\n    name: "X"\n    data_type: TYPE_FP32\n    dims: [ 2 ]\n  }\n]\n'
        'output [\n  {\n    name: "Y"\n    data_type: TYPE_FP32\n    dims: [ 2 ]\n  }\n]\n'
    )
    backends = 'backends = ["mybackend"]\n' if installed else ""
    (root / "tritoncfg.toml").write_text(f'repository = "models"\n{backends}')
    linted = run("lint", str(root))
    assert (linted.returncode == 0) is installed, linted.stdout
    assert ("TC120" in linted.stdout) is not installed
    done = run("gen", "dynamic-batching", str(model), "--preferred", "2", "--write")
    assert (done.returncode == 0) is installed, done.stderr
    assert ("TC120" in done.stderr) is not installed
    assert ("preferred_batch_size" in (model / "config.pbtxt").read_text()) is installed


def test_model_files_optional_as_for_lint(tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    _require_model_files(root)
    model = root / REPOSITORY / "clf"
    args = ("gen", "dynamic-batching", "--preferred", "4", str(model))
    assert run(*args).returncode == 1  # TC126: the model file is required
    assert run("lint", str(root), "--model-files", "optional").returncode == 0
    done = run(*args, "--model-files", "optional", "--write")
    assert done.returncode == 0, done.stderr
    assert list(parse((model / "config.pbtxt").read_text()).message.dynamic_batching
                .preferred_batch_size) == [4]  # fmt: skip


@pytest.mark.parametrize(
    "generator",
    [("dynamic-batching", "--preferred", "4"), ("warmup",), ("instance-group", "--kind", "cpu")],
)
def test_config_and_isolated_choose_the_settings_as_for_lint(
    generator: tuple[str, ...], tmp_path: Path
) -> None:
    root = _project(tmp_path / "demo")
    model = root / REPOSITORY / "clf"
    lax = tmp_path / "lax.toml"
    lax.write_text((root / "tritoncfg.toml").read_text())
    _require_model_files(root)
    assert run("gen", *generator, str(model)).returncode == 1  # the project's settings apply
    inline = ("--config", 'model-files = "optional"')  # a setting in TOML, as lint takes it
    for option in (
        ("--config", str(lax)),
        ("--isolated", "--model-files", "optional"),
        inline,
        ("--isolated", *inline),
    ):
        assert run("lint", str(root / REPOSITORY), *option).returncode == 0
        done = run("gen", *generator, str(model), *option)
        assert done.returncode == 0 and done.stdout.startswith("--- "), done.stderr
    for bad, message in (
        (("--isolated", "--config", str(lax)), "cannot be used with --isolated"),
        (("--config", "model_files"), "no such settings file"),
        (("--config", "modl-files = 1"), 'unknown key "modl-files"'),
    ):
        done = run("gen", *generator, str(model), *bad)
        assert done.returncode == 2 and message in done.stderr, done.stderr


def test_ensemble_takes_the_settings_options(tmp_path: Path) -> None:
    root = _project(tmp_path / "demo")
    _require_model_files(root)
    args = ("gen", "ensemble", "pipe", "--step", "clf", "--repository", str(root))
    assert run(*args).returncode == 1
    done = run(*args, "--model-files", "optional")
    assert done.returncode == 0 and "+++ " in done.stdout, done.stderr
