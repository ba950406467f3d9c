"""Test support for cloud repositories: one repository with findings of every kind, put into a
store through its fsspec filesystem, and findings compared with those of the same tree on disk."""

from __future__ import annotations

import shutil
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tritoncfg.api import LintResult, lint
from tritoncfg.diagnostics import Diagnostic

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "model_repository"

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
ONNX_CONFIG = (
    'backend: "onnxruntime"\n'
    'input [ { name: "wrong_in" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
)


@dataclass(frozen=True)
class Store:
    """A bucket (container) on a local server of one cloud."""

    url: Callable[[str], str]  # "prefix" -> the repository URL in Triton's form
    missing_bucket_url: str  # a URL whose bucket does not exist
    put: Callable[[Path, str], None]  # (local tree, prefix): upload the tree under the prefix
    kind: str  # "bucket" or "container"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_listening(
    port: int,
    timeout: float,
    server: str = "the server",
    exited: Callable[[], str | None] = lambda: None,
) -> None:
    """Return once something listens on 127.0.0.1:`port`; fail the test after `timeout`
    seconds, or at once with `exited()`'s message when it says the server process is gone."""
    deadline = time.monotonic() + timeout
    while True:
        if (why := exited()) is not None:
            pytest.fail(why)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"{server} did not listen on 127.0.0.1:{port} within {timeout:g} s")
            time.sleep(0.1)


def write_tree(root: Path, files: dict[str, str]) -> Path:
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


def make_repository(root: Path) -> Path:
    """The examples repository plus broken models, and an ONNX model the checks must open."""
    shutil.copytree(EXAMPLES, root)
    write_tree(root, BROKEN)
    write_tree(root, {"onnx_model/config.pbtxt": ONNX_CONFIG})
    _onnx_model(root / "onnx_model" / "1" / "model.onnx")
    return root


def upload_fs(fs: Any, local: Path, root: str) -> None:
    """Every file of `local` as an object under `root` (`bucket/prefix`) through an fsspec
    filesystem; an empty directory as a `dir/` marker object, as the consoles create folders."""
    for path in sorted(local.rglob("*")):
        key = f"{root}/{path.relative_to(local).as_posix()}"
        if path.is_dir() and not any(path.iterdir()):
            fs.pipe(key + "/", b"")
        elif path.is_file():
            fs.pipe(key, path.read_bytes())


def portable(diagnostics: list[Diagnostic], prefix: str) -> list[tuple[Any, ...]]:
    return [
        (d.code, d.severity, d.path.replace(prefix, "<repo>"), d.span, d.model,
         d.message.replace(prefix, "<repo>"))
        for d in diagnostics
    ]  # fmt: skip


def assert_same_as_local(repository: Path, url: str) -> LintResult:
    """Lint `repository` from disk and from `url` (the same tree in a store): every broken model
    did produce its finding, and the store gives the same findings, named by object URL."""
    local = lint(repository)
    remote = lint(url)
    found = {(d.code, d.model) for d in local.diagnostics}
    # a parse error, batching, an ensemble step, version dirs, and the ONNX model's tensors
    # (the .onnx was downloaded)
    assert {("TC001", "no_parse"), ("TC203", "bad_batching"), ("TC520", "pipeline")} <= found
    assert {("TC106", "v"), ("TC804", "onnx_model")} <= found
    assert portable(remote.diagnostics, url) == portable(local.diagnostics, str(repository))
    assert all(d.path.startswith(url + "/") for d in remote.diagnostics)
    assert remote.files == local.files and remote.models == local.models
    config = f"{url}/bad_batching/config.pbtxt"
    assert remote.sources[config] == (repository / "bad_batching/config.pbtxt").read_text()
    return remote
