"""`new --template bls --target MODEL`: the target is a model of the repository, and the bls
model forwards the target's tensors (names, data types, dims) and batch size, read from the
target's config as Triton completes it."""

from __future__ import annotations

import ast
from pathlib import Path

from clikit import run
from scaffold.scaffoldkit import REPOSITORY, assert_clean, new, snapshot

from tritoncfg.schema import DataType, ModelConfig
from tritoncfg.text import parse


def _config(root: Path, model: str) -> ModelConfig:
    parsed = parse((root / REPOSITORY / model / "config.pbtxt").read_text())
    assert parsed.ok, parsed.errors
    return parsed.message


def _tensors(config: ModelConfig) -> list[tuple[str, str, list[int]]]:
    return [
        (t.name, DataType.Name(t.data_type), list(t.dims)) for t in (*config.input, *config.output)
    ]


def _defaults(root: Path, model: str) -> list[object]:
    """DEFAULT_INPUTS + DEFAULT_OUTPUTS of the model.py (parsed, never run)."""
    tree = ast.parse((root / REPOSITORY / model / "1" / "model.py").read_text())
    values = {
        ast.unparse(n.targets[0]): ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign)
    }
    return [*values["DEFAULT_INPUTS"], *values["DEFAULT_OUTPUTS"]]


def test_bls_forwards_the_targets_tensors(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    source = make_runnable(
        tmp_path / "classifier.onnx", input_shape=["n", 3, 32, 32], output_shape=["n", 3, 32, 32]
    )
    root = tmp_path / "demo"
    assert new(root, "--from-model", str(source)).returncode == 0
    done = new(root, "-m", "router", "-t", "bls", "--target", "classifier")
    assert done.returncode == 0, done.stderr
    router, classifier = _config(root, "router"), _config(root, "classifier")
    assert _tensors(router) == [("x", "TYPE_FP32", [3, 32, 32]), ("y", "TYPE_FP32", [3, 32, 32])]
    assert _tensors(router) == _tensors(classifier)
    assert router.max_batch_size == classifier.max_batch_size == 4
    assert _defaults(root, "router") == [
        {"name": "x", "data_type": "TYPE_FP32", "dims": [3, 32, 32]},
        {"name": "y", "data_type": "TYPE_FP32", "dims": [3, 32, 32]},
    ]
    assert_clean(root)


def test_a_target_completed_from_its_model_file(tmp_path: Path) -> None:
    """A target whose config leaves its tensors to the ONNX Runtime backend's auto-complete."""
    from models.onnxkit import make_runnable

    root = tmp_path / "demo"
    assert new(root).returncode == 0
    target = root / REPOSITORY / "net"
    make_runnable(target / "1" / "model.onnx", input_shape=[2, 5], output_shape=[2, 5])
    (target / "config.pbtxt").write_text('backend: "onnxruntime"\n')
    done = new(root, "-m", "caller", "-t", "bls", "--target", "net")
    assert done.returncode == 0, done.stderr
    caller = _config(root, "caller")
    assert _tensors(caller) == [("x", "TYPE_FP32", [2, 5]), ("y", "TYPE_FP32", [2, 5])]
    assert caller.max_batch_size == 0 and not caller.HasField("dynamic_batching")
    linted = run("lint", str(root / REPOSITORY / "caller"))
    assert linted.returncode == 0, linted.stdout


def test_a_target_that_is_not_there_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    assert new(root, "-m", "a", "-t", "python").returncode == 0
    before = snapshot(root)
    missing = new(root, "-m", "router", "-t", "bls", "--target", "classifier")
    assert missing.returncode == 2, missing.stdout
    assert f"--target 'classifier': {root / REPOSITORY / 'classifier'} is not a model" in (
        missing.stderr
    )
    assert f"The models of {root / REPOSITORY}: a" in missing.stderr
    assert "Traceback" not in missing.stderr
    none = new(root, "-m", "router", "-t", "bls")
    assert none.returncode == 2 and "name it with --target MODEL" in none.stderr
    itself = new(root, "-m", "router", "-t", "bls", "--target", "router")
    assert itself.returncode == 2 and "is the bls model itself" in itself.stderr
    given = new(root, "-m", "r", "-t", "bls", "--target", "a", "--input", "INPUT0:FP32:4")
    assert given.returncode == 2 and "come from the target's config" in given.stderr
    assert snapshot(root) == before
    fresh = new(tmp_path / "empty", "-m", "router", "-t", "bls", "--target", "classifier")
    assert fresh.returncode == 2 and "has no models yet" in fresh.stderr
    assert not (tmp_path / "empty").exists()


def test_a_target_whose_config_does_not_parse_is_named(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    assert new(root, "-m", "a", "-t", "python").returncode == 0
    config = root / REPOSITORY / "a" / "config.pbtxt"
    config.write_text(config.read_text() + "max_batch_siz: 4\n")
    done = new(root, "-m", "router", "-t", "bls", "--target", "a")
    assert done.returncode == 2
    assert f"--target 'a': {config}: line " in done.stderr and "max_batch_siz" in done.stderr
