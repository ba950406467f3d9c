"""docs/new.md's example runs as written: each `$ ` command of its console blocks, in order, in
one folder, prints what the page shows (standard output and error together)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from clikit import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "new.md"


def _steps() -> list[tuple[list[str], str]]:
    steps: list[tuple[list[str], str]] = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(), re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            steps.append((shlex.split(command), output))
    return steps


def test_the_worked_example_prints_what_the_page_shows(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    make_runnable(tmp_path / "clf.onnx", input_shape=["batch", 4], output_shape=["batch", 4])
    steps = _steps()
    assert len(steps) >= 6
    for argv, expected in steps:
        if argv[0] == "cat":
            assert (tmp_path / argv[1]).read_text() == expected, argv
            continue
        assert argv[0] == "tritoncfg"
        done = run(*argv[1:], cwd=tmp_path)
        assert done.stdout + done.stderr == expected, argv
    assert (tmp_path / "demo" / "deploy" / "k8s" / "tritonserver.yaml").is_file()


def test_the_page_names_every_new_option_and_the_model_files_gitignore_leaves_out() -> None:
    from tritoncfg.cli.new import new_command
    from tritoncfg.scaffold.ignore import MODEL_FILES

    page = DOC.read_text()
    synopsis = page.split("```\n", 2)[1]
    options = {
        f"--{name.replace('_', '-')}"
        for name in new_command.__annotations__
        if name not in {"path", "inputs", "outputs", "return"}
    }
    assert {o for o in options if o not in synopsis} == set()
    paragraph = page.split("`.gitignore` leaves out model files (", 1)[1].split(")", 1)[0]
    assert re.findall(r"`([^`]+)`", paragraph) == list(MODEL_FILES)
