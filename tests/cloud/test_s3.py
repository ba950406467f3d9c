"""`tritoncfg lint s3://…` against a real S3 API server: the same findings as from disk."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from clikit import run
from s3kit import BUCKET, upload

from tritoncfg.api import lint
from tritoncfg.diagnostics import Diagnostic

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "model_repository"

BROKEN = {
    "bad_batching/config.pbtxt": (
        'backend: "python"\nmax_batch_size: 4\n'
        "dynamic_batching { preferred_batch_size: [ 8 ] }\n"
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    ),
    "bad_batching/1/model.py": "# never executed\n",
    "bad_batching/labels.txt": "cat\ndog\n",
    "no_parse/config.pbtxt": 'backend: "python"\nmax_batch_size: [\n',
    "no_parse/1/model.py": "",
    "pipeline/config.pbtxt": (
        'platform: "ensemble"\nmax_batch_size: 4\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'ensemble_scheduling { step [ { model_name: "missing_model" model_version: -1\n'
        '  input_map { key: "x" value: "IN" } output_map { key: "y" value: "OUT" } } ] }\n'
    ),
    "v/config.pbtxt": 'backend: "python"\n',
    "v/01/model.py": "",
    "v/1/model.py": "",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def _onnx_model(path: Path) -> None:
    """A real ONNX model (y = x, float [2]) whose config names other tensors: TC80x fire."""
    helper = pytest.importorskip("onnx.helper")
    onnx = pytest.importorskip("onnx")
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def _portable(diagnostics: list[Diagnostic], prefix: str) -> list[tuple[Any, ...]]:
    return [
        (d.code, d.severity, d.path.replace(prefix, "<repo>"), d.span, d.model,
         d.message.replace(prefix, "<repo>"))
        for d in diagnostics
    ]  # fmt: skip


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """The examples repository plus broken models, and an ONNX model the checks must open."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES, root)
    _write(root, BROKEN)
    _write(root, {"onnx_model/config.pbtxt": (
        'backend: "onnxruntime"\n'
        'input [ { name: "wrong_in" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
    )})  # fmt: skip
    _onnx_model(root / "onnx_model" / "1" / "model.onnx")
    return root


def test_s3_findings_equal_the_local_ones(s3: Any, s3_server: str, repository: Path) -> None:
    upload(s3, repository, "team/repo")
    port = s3_server.rsplit(":", 1)[1]
    url = f"s3://127.0.0.1:{port}/{BUCKET}/team/repo"

    local = lint(repository)
    remote = lint(url)

    found = {(d.code, d.model) for d in local.diagnostics}
    # a parse error, batching, an ensemble step, version dirs, and the ONNX model's tensors
    # (the .onnx was downloaded): each broken model did produce its finding
    assert {("TC001", "no_parse"), ("TC203", "bad_batching"), ("TC520", "pipeline")} <= found
    assert {("TC106", "v"), ("TC804", "onnx_model")} <= found
    assert _portable(remote.diagnostics, url) == _portable(local.diagnostics, str(repository))
    assert all(d.path.startswith(url + "/") for d in remote.diagnostics)
    assert remote.files == local.files and remote.models == local.models
    config = f"{url}/bad_batching/config.pbtxt"
    assert remote.sources[config] == (repository / "bad_batching/config.pbtxt").read_text()


def test_cli_names_the_object_url_and_line(s3: Any, s3_server: str, tmp_path: Path) -> None:
    repository = _write(tmp_path / "repo", BROKEN)
    upload(s3, repository, "cli")
    url = f"s3://{s3_server.removeprefix('http://')}/{BUCKET}/cli"

    result = run("lint", url)

    assert result.returncode == 1, result.stderr
    assert f"{url}/bad_batching/config.pbtxt:3:" in result.stdout
    assert f"{url}/no_parse/config.pbtxt:" in result.stdout


def test_missing_prefix_is_not_a_repository(s3: Any, s3_server: str) -> None:
    url = f"s3://{s3_server.removeprefix('http://')}/{BUCKET}/nothing/here"
    result = run("lint", url)
    assert result.returncode == 2
    assert f"{url}: no objects under this prefix" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_bucket_is_a_clear_error(s3: Any, s3_server: str) -> None:
    url = f"s3://{s3_server.removeprefix('http://')}/no-such-bucket/repo"
    result = run("lint", url)
    assert result.returncode == 2
    assert result.stderr.startswith(f"tritoncfg: error: {url}: ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("fmt", "s3://bucket/repo"),
        ("lint", "--fix", "s3://bucket/repo"),
        ("complete", "--write", "gs://bucket/repo/model"),
    ],
)
def test_writing_commands_refuse_cloud_paths(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert "cloud repositories are read-only" in result.stderr
    assert args[-1] in result.stderr
