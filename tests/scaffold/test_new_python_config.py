"""The python, bls and ensemble templates keep config.pbtxt the one source of the tensors and
max_batch_size: editing the config alone leaves a model the python backend loads (#22: the
model.py used to state them again, and its auto_complete_config then raised)."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from scaffold.scaffoldkit import REPOSITORY, new

from tritoncfg.models.python_autocomplete import read_autocomplete_calls

RETURN = "        return auto_complete_model_config\n"


@pytest.mark.parametrize("template", ["python", "bls", "ensemble"])
def test_editing_the_config_alone_keeps_the_model_loadable(tmp_path: Path, template: str) -> None:
    root = tmp_path / "demo"
    assert new(root, "-m", "t", "-t", "python").returncode == 0
    target = ("--target", "t") if template == "bls" else ()
    assert new(root, "-m", "m", "-t", template, *target).returncode == 0
    repository = root / REPOSITORY
    python_models = sorted(p.parent.parent for p in repository.glob("m*/1/model.py"))
    assert python_models
    for model in (*python_models, repository / "t"):
        config = model / "config.pbtxt"
        text = config.read_text()
        assert "max_batch_size: 8" in text
        config.write_text(text.replace("max_batch_size: 8", "max_batch_size: 16"))
        # auto_complete_config states nothing the config could contradict
        assert read_autocomplete_calls(model / "1" / "model.py") == ()
    if template == "ensemble":  # the ensemble batches within its steps
        ensemble = repository / "m" / "config.pbtxt"
        ensemble.write_text(ensemble.read_text().replace("max_batch_size: 8", "max_batch_size: 16"))
    linted = run("lint", str(repository))
    assert linted.returncode == 0 and linted.stdout.startswith("All checks passed"), linted.stdout
    # the rule reads these files: a stated max_batch_size below the config's is reported
    model_py = python_models[0] / "1" / "model.py"
    source = model_py.read_text()
    assert RETURN in source
    model_py.write_text(
        source.replace(
            RETURN, "        auto_complete_model_config.set_max_batch_size(8)\n" + RETURN
        )
    )
    reported = run("lint", str(repository))
    assert reported.returncode == 1 and "TC127" in reported.stdout, reported.stdout
