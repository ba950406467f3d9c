"""The scaffold passes its own CI on a fresh clone of its first commit (issue 22, items 1-3).

For each template, for `--from-model`, for warmup data `gen warmup --data-dir` wrote and for an
ensemble `gen ensemble` wrote: scaffold (`--tritoncfg-spec` this checkout), `git init`, `git add
-A`, `git commit`, `git clone`, then the steps of the scaffold's own workflow, read from its YAML,
in order, in the clone. The install step must install the spec given; it stands for the test's
own interpreter (which has this checkout), reached through a `tritoncfg` on PATH, so one
environment serves every case and nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import run
from scaffold.scaffoldkit import REPOSITORY, new

yaml = pytest.importorskip("yaml")
ROOT = Path(__file__).resolve().parents[2]
GIT = [
    "git",
    "-c",
    "user.name=ci",
    "-c",
    "user.email=ci@example.com",
    "-c",
    "init.defaultBranch=main",
]

CASES: dict[str, list[list[str]]] = {
    "onnx": [["-m", "clf"]],
    "tensorrt": [["-m", "engine", "-t", "tensorrt"]],
    "pytorch": [["-m", "torch", "-t", "pytorch"]],
    "python": [["-m", "pre", "-t", "python"]],
    "ensemble": [["-m", "pipe", "-t", "ensemble"]],
    "bls": [["-m", "model"], ["-m", "caller", "-t", "bls", "--target", "model"]],
}


def _git(*args: str, cwd: Path) -> None:
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def _scaffold(case: str, root: Path) -> None:
    """The project of `case`, as a team would make it."""
    spec = ["--tritoncfg-spec", str(ROOT)]
    if case == "from-model":
        from models.onnxkit import make_runnable

        source = make_runnable(
            root.parent / "classifier.onnx", input_shape=["n", 4], output_shape=["n", 4]
        )
        steps = [["--from-model", str(source)]]
    elif case == "gen warmup --data-dir":
        steps = [["-m", "clf"]]
    elif case == "gen ensemble":
        steps = [["-m", "pre", "-t", "python"], ["-m", "main", "-t", "python"]]
    else:
        steps = CASES[case]
    for args in steps:
        done = new(root, *args, *spec)
        assert done.returncode == 0, done.stderr
    repository = str(root / REPOSITORY)
    if case == "gen warmup --data-dir":
        written = run(
            "gen", "warmup", f"{repository}/clf", "--data", "random", "--data-dir", "--write"
        )
        assert written.returncode == 0, written.stderr
        assert list((root / REPOSITORY / "clf" / "warmup").glob("*.bin"))
    if case == "gen ensemble":
        args = ["--step", "pre", "--step", "main", "--repository", repository, "--write"]
        written = run("gen", "ensemble", "whole", *args)
        assert written.returncode == 0, written.stderr


def _clone_first_commit(root: Path) -> Path:
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "-q", "-m", "scaffold", cwd=root)
    clone = root.parent / "clone"
    _git("clone", "-q", str(root), str(clone), cwd=root.parent)
    return clone


def _tritoncfg_on_path(folder: Path) -> dict[str, str]:
    """An environment whose `tritoncfg` is this checkout, run by the test's interpreter."""
    folder.mkdir()
    shim = folder / "tritoncfg"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m tritoncfg "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in {"FORCE_COLOR", "VIRTUAL_ENV"}}
    env["PATH"] = f"{folder}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT)
    env["NO_COLOR"] = "1"
    return env


def _run_workflow(clone: Path, env: dict[str, str]) -> list[str]:
    """Each step of the clone's workflow, in order; returns what ran (and how each ended)."""
    workflow = yaml.safe_load((clone / ".github" / "workflows" / "tritoncfg.yml").read_text())
    (job,) = workflow["jobs"].values()
    ran: list[str] = []
    for step in job["steps"]:
        uses, command = step.get("uses", ""), step.get("run")
        if uses.startswith(("actions/checkout@", "actions/setup-python@")):
            continue  # the clone is checked out; the interpreter is this one
        if uses.startswith("github/codeql-action/upload-sarif@"):
            sarif = json.loads((clone / step["with"]["sarif_file"]).read_text())
            assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []
            ran.append(uses)
            continue
        assert command is not None, f"a step this test does not know: {step}"
        if command.startswith("pip install"):
            assert shlex.split(command) == ["pip", "install", str(ROOT)]
            ran.append(command)
            continue
        # GitHub's `bash` shell: bash --noprofile --norc -eo pipefail {0}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
            cwd=clone, env=env, capture_output=True, text=True, check=False, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
        ran.append(command)
    return ran


@pytest.mark.parametrize("case", [*CASES, "from-model", "gen warmup --data-dir", "gen ensemble"])
def test_the_workflow_passes_on_a_clone_of_the_first_commit(case: str, tmp_path: Path) -> None:
    root = tmp_path / "project"
    _scaffold(case, root)
    clone = _clone_first_commit(root)
    models = [p for p in (clone / REPOSITORY).iterdir() if (p / "config.pbtxt").is_file()]
    assert models and all((m / "1").is_dir() for m in models)  # every version folder arrived
    ran = _run_workflow(clone, _tritoncfg_on_path(tmp_path / "bin"))
    assert ran == [
        f"pip install {shlex.quote(str(ROOT))}",
        f"tritoncfg lint {REPOSITORY} --format github",
        f"tritoncfg fmt --check {REPOSITORY}",
        f"tritoncfg lint {REPOSITORY} --format sarif > tritoncfg.sarif",
        "github/codeql-action/upload-sarif@v3",
    ]
    if case == "gen warmup --data-dir":  # the data the config refers to is committed
        assert list((clone / REPOSITORY / "clf" / "warmup").glob("*.bin"))
    if case == "from-model":  # the model file is not
        assert not (clone / REPOSITORY / "classifier" / "1" / "model.onnx").exists()
        assert (root / REPOSITORY / "classifier" / "1" / "model.onnx").is_file()
