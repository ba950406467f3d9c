"""Heavy libraries load only when a model file needs them: a plain `tritoncfg lint` (the
pre-commit hook) never imports onnx, onnxruntime, tensorrt, torch or numpy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lintkit import make_model

# xml.etree: only for an OpenVINO model.xml; pathspec: only with exclude / per-path-ignores;
# yaml: only for the manifests of `new --deploy`
HEAVY = (
    "onnx", "onnxruntime", "tensorrt", "torch", "numpy", "xml.etree.ElementTree", "pathspec", "yaml",
)  # fmt: skip


def run(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=cwd,
    )


def lint_then(path: Path, check: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`tritoncfg lint PATH` in a fresh interpreter (in `cwd`), then `check` (Python), then `ok`."""
    return run(
        "import runpy, sys\n"
        f"sys.argv = ['tritoncfg', 'lint', {str(path)!r}]\n"
        "try:\n"
        "    runpy.run_module('tritoncfg', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n" + check + "print('ok')\n",
        cwd,
    )


def test_importing_the_checks_and_the_cli_loads_no_model_library() -> None:
    done = run(
        "import sys, tritoncfg.checks, tritoncfg.cli.app\n"
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    assert done.returncode == 0, done.stderr


def test_linting_a_repository_without_model_files_loads_no_model_library(tmp_path: Path) -> None:
    make_model(tmp_path, "a", 'backend: "onnxruntime"\nmax_batch_size: 8\n')  # no model.onnx
    make_model(tmp_path, "b", 'backend: "python"\n', files={"1/model.py": "import numpy\n"})
    make_model(tmp_path, "c", 'platform: "tensorrt_plan"\n')
    done = lint_then(
        tmp_path,
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\nassert not loaded, loaded\n",
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr


def test_linting_a_torchscript_model_loads_no_model_library(tmp_path: Path) -> None:
    """The PyTorch backend's model.pt is never opened by lint (only probe's worker loads it)."""
    make_model(
        tmp_path,
        "a",
        'platform: "pytorch_libtorch"\nmax_batch_size: 8\n'
        'input [{ name: "INPUT__0" data_type: TYPE_FP32 dims: [4] }]\n'
        'output [{ name: "OUTPUT__0" data_type: TYPE_FP32 dims: [4] }]\n',
        files={"1/model.pt": "PK\x03\x04 not read\n"},
    )
    done = lint_then(
        tmp_path,
        "assert 'tritoncfg.cli.lint_core' in sys.modules  # the lint really ran\n"
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\nassert not loaded, loaded\n",
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr
    assert "a/config.pbtxt" in done.stdout  # the model was linted (findings name its config)


def test_linting_an_onnx_model_does_load_onnx(tmp_path: Path) -> None:
    from models.onnxkit import FLOAT, make_onnx

    make_model(tmp_path, "a", 'backend: "onnxruntime"\n')
    make_onnx(tmp_path / "a" / "1" / "model.onnx", [("x", FLOAT, [4])], [("y", FLOAT, [4])])
    done = run(
        "import sys\n"
        "from tritoncfg.api import lint\n"
        f"lint({str(tmp_path)!r})\n"
        "assert 'onnx' in sys.modules\n"
        "assert 'onnxruntime' not in sys.modules and 'tensorrt' not in sys.modules\n"
    )
    if done.returncode != 0 and "No module named 'onnx'" in done.stderr:
        pytest.skip("onnx is not installed")
    assert done.returncode == 0, done.stderr


def test_the_probe_command_module_loads_no_runtime_and_lint_never_reaches_probe() -> None:
    done = run(
        "import sys, tritoncfg.cli.probe, tritoncfg.probe.plan, tritoncfg.probe.report\n"
        f"loaded = [m for m in {HEAVY!r} + ('rich',) if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    assert done.returncode == 0, done.stderr


def test_linting_an_onnx_model_never_imports_probe_or_onnxruntime(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    make_model(tmp_path, "a", 'backend: "onnxruntime"\nmax_batch_size: 4\n')
    make_runnable(tmp_path / "a" / "1" / "model.onnx", input_shape=["N", 4], output_shape=["N", 4])
    done = lint_then(
        tmp_path,
        "probe = [m for m in sys.modules if m.startswith('tritoncfg.probe')]\n"
        "assert not probe, probe\n"
        "assert 'onnx' in sys.modules and 'onnxruntime' not in sys.modules\n",
    )
    if done.returncode != 0 and "No module named 'onnx'" in done.stderr:
        pytest.skip("onnx is not installed")
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr


def test_linting_one_config_imports_only_the_lint_run_and_no_typer_or_rich(tmp_path: Path) -> None:
    make_model(tmp_path, "a", 'backend: "onnxruntime"\nmax_batch_size: 8\n')
    done = lint_then(
        tmp_path / "a" / "config.pbtxt",
        "assert 'tritoncfg.cli.lint_core' in sys.modules  # the lint really ran\n"
        "others = ('cli.fmt', 'cli.complete', 'cli.verify', 'cli.probe', 'cli.diff', 'cli.rules',\n"
        "          'cli.convert', 'cli.new', 'cli.gen', 'gen', 'probe', 'scaffold', 'triton',\n"
        "          'cli.app', 'cli.lint')\n"
        "loaded = [m for m in others if 'tritoncfg.' + m in sys.modules]\n"
        "libraries = ('typer', 'typer._click', 'click', 'rich', 'pydantic')\n"
        "loaded += [m for m in libraries if m in sys.modules]\n"
        "assert not loaded, loaded\n",
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr
    assert "TC903" in done.stdout  # the config was linted, not refused


# what a lint the cache replays whole never imports: the parser, the schema (protobuf), the
# check context and the lint run (cli/main.py's fast path; tritoncfg.text, tritoncfg.checks
# and tritoncfg.api load these names on first use)
NOT_ON_REPLAY = (
    "google.protobuf", "tritoncfg.schema", "tritoncfg.text.bind", "tritoncfg.text.parser",
    "tritoncfg.text.tree", "tritoncfg.checks.core.context", "tritoncfg.checks.core.engine",
    "tritoncfg.checks.parse.text_format", "tritoncfg.complete", "tritoncfg.workspace",
    "tritoncfg.lintrun", "tritoncfg.lintdriver.routing",
)  # fmt: skip


def lint_twice(
    config: Path, ran: str, watched: tuple[str, ...], cwd: Path
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """`tritoncfg lint CONFIG` twice in fresh interpreters with the lint cache (kept in `cwd`),
    once the files' stamps have settled (the cache trusts only those). Both runs import `ran`
    (how the lint ran); the first prints which of `watched` it imported, the second must
    import none of them."""
    import time

    from tritoncfg.repository.reuse import SETTLE_NS

    time.sleep(SETTLE_NS / 1e9 + 0.1)
    check = (
        f"assert {ran!r} in sys.modules  # the lint really ran that way\n"
        f"loaded = [m for m in {watched!r} if m in sys.modules]\n"
    )
    first = lint_then(config, check + "print('first run loaded', loaded)\n", cwd)
    second = lint_then(config, check + "assert not loaded, loaded\n", cwd)
    assert second.returncode == 0 and second.stdout.strip().endswith("ok"), (
        second.stdout + second.stderr
    )
    return first, second


def test_a_lint_the_cache_replays_imports_no_parser_schema_or_rules(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "a", 'backend: "onnxruntime"\nmax_batch_size: 8\n')
    config = tmp_path / "repo" / "a" / "config.pbtxt"
    first, replayed = lint_twice(config, "tritoncfg.lintcache", NOT_ON_REPLAY, tmp_path)
    assert "'tritoncfg.lintrun'" in first.stdout, first.stdout + first.stderr  # linted afresh
    assert (tmp_path / ".tritoncfg_cache").is_dir()
    assert "TC903" in replayed.stdout  # the replayed findings, rendered with their snippet


# what a lint of one config in a larger repository (pre-commit) never imports when the cache has
# that model: it looks for the ensembles that run it and routes the repository rules' findings
# (tritoncfg.lintdriver.routing), but parses no config
NOT_WHEN_CACHED = (
    "google.protobuf", "tritoncfg.schema", "tritoncfg.text.bind", "tritoncfg.text.parser",
    "tritoncfg.complete", "tritoncfg.models.io",
)  # fmt: skip


def test_a_cached_model_in_a_larger_repository_is_linted_without_the_schema(
    tmp_path: Path,
) -> None:
    make_model(tmp_path / "repo", "a", 'backend: "onnxruntime"\nmax_batch_size: 8\n')
    make_model(tmp_path / "repo", "b", 'backend: "onnxruntime"\n')
    make_model(
        tmp_path / "repo",
        "pipeline",  # an ensemble that does not run `a`: its strings show it, it is not parsed
        'platform: "ensemble"\nensemble_scheduling { step [ { model_name: "b" '
        'model_version: -1 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } '
        "} ] }\n",
    )
    config = tmp_path / "repo" / "a" / "config.pbtxt"
    # model by model (routing), with the cache
    first, cached = lint_twice(config, "tritoncfg.lintdriver.routing", NOT_WHEN_CACHED, tmp_path)
    assert "'google.protobuf'" in first.stdout, first.stdout + first.stderr  # parsed afresh
    assert "a/config.pbtxt" in cached.stdout and "TC903" in cached.stdout  # a's findings
    assert "pipeline" not in cached.stdout  # the ensemble is not linted with it
