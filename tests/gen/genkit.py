"""Test support for the generators: real corpus models copied into a scratch repository, made
loadable (a version directory with a model file), formatted with `tritoncfg fmt`, and the round
trip every generator must pass."""

from __future__ import annotations

import subprocess
from pathlib import Path

from clikit import run
from corpus import REAL_WORLD, copy_tree, require_corpus

from tritoncfg.api import lint
from tritoncfg.diagnostics import Severity
from tritoncfg.text import parse

# corpus models (relative to ../shared/corpus/real_world) that lint without errors once their
# model file is there: a python model (model.py is never run) and an ONNX Runtime model
PYTHON_MODEL = "server/qa/python_models/identity_fp32"
ONNX_MODEL = (
    "tutorials/Conceptual_Guide/Part_2-improving_resource_utilization/model_repository/"
    "text_recognition"
)


def corpus_model(rel: str, repo: Path) -> Path:
    """The corpus model `rel` in `repo`, loadable, its config in `fmt` style; skips when the
    corpus is absent."""
    source = require_corpus(REAL_WORLD) / rel
    target = repo / source.name
    copy_tree(source, target)
    version = target / "1"
    version.mkdir(exist_ok=True)
    backend = parse((target / "config.pbtxt").read_text()).message.backend
    if backend == "python":
        (version / "model.py").write_text("# never imported by tritoncfg\n")
    else:
        from models.onnxkit import FLOAT, make_onnx

        make_onnx(
            version / "model.onnx",
            [("input.1", FLOAT, ["b", 1, 32, 100])],
            [("308", FLOAT, ["b", 26, 37])],
        )
    done = run("fmt", str(target))
    assert done.returncode == 0, done.stderr
    return target


def step_model(
    repo: Path,
    name: str,
    inputs: list[tuple[str, list[int | str]]],
    outputs: list[tuple[str, list[int | str]]],
    mbs: int = 8,
) -> None:
    """An ONNX Runtime model `name` in `repo` for an ensemble step: FP32 tensors, its config
    leaving them to Triton's auto-complete from the model file."""
    from models.onnxkit import FLOAT, make_onnx

    make_onnx(
        repo / name / "1" / "model.onnx",
        [(n, FLOAT, shape) for n, shape in inputs],
        [(n, FLOAT, shape) for n, shape in outputs],
    )
    (repo / name / "config.pbtxt").write_text(
        f'# {name}\nbackend: "onnxruntime"\nmax_batch_size: {mbs}\n'
    )


def errors(path: Path) -> list[str]:
    """The error findings of a model or repository (proof that lint ran: the file parsed)."""
    result = lint(path)
    assert result.files >= 1
    return [f"{d.code} {d.message}" for d in result.diagnostics if d.severity is Severity.ERROR]


def comment_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


def round_trip(model: Path, *args: str) -> tuple[str, str]:
    """Generate for `model` (diff, then --write); check the written file lints clean, is
    fmt-stable and kept every comment byte for byte. Returns (before, after)."""
    config = model / "config.pbtxt"
    before = config.read_text()
    shown = run("gen", *args, str(model))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("--- "), shown.stdout
    assert config.read_text() == before  # the diff alone changes nothing
    written = run("gen", *args, str(model), "--write")
    assert written.returncode == 0, written.stderr
    assert "Traceback" not in written.stderr
    after = config.read_text()
    assert after != before
    assert _applied(before, shown.stdout, after) == after  # the diff shown is what is written
    assert errors(model.parent) == []
    fmt = run("fmt", "--check", str(config))
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    assert comment_lines(after) == comment_lines(before)
    return before, after


def _applied(before: str, diff: str, after: str) -> str:
    """`before` with a unified diff applied by patch(1); without patch, `after` when every
    added line of the diff is in it."""
    import shutil
    import tempfile

    if shutil.which("patch") is None:
        added = [line[1:] for line in diff.splitlines() if line.startswith("+")][1:]
        assert all(line in after.splitlines() for line in added)
        return after
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "config.pbtxt"
        target.write_text(before)
        subprocess.run(
            ["patch", "-s", str(target)], input=diff, text=True, check=True, capture_output=True
        )
        return target.read_text()
