"""`tritoncfg new`: every template and --from-model lint and fmt clean; nothing overwritten
without --force; bad names and tensors refused before anything is written."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from clikit import run
from scaffold.scaffoldkit import REPOSITORY, assert_clean, new, snapshot

from tritoncfg.schema import DataType, ModelConfig
from tritoncfg.text import parse

TEMPLATES = ("onnx", "tensorrt", "python", "pytorch", "ensemble", "bls")


def _config(root: Path, model: str) -> ModelConfig:
    parsed = parse((root / REPOSITORY / model / "config.pbtxt").read_text())
    assert parsed.ok, parsed.errors
    return parsed.message


def test_from_onnx_copies_the_model_and_writes_its_completed_config(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    source = make_runnable(
        tmp_path / "relu.onnx", input_shape=["batch", 4], output_shape=["batch", 4]
    )
    root = tmp_path / "demo"
    done = new(root, "--model", "clf", "--from-model", str(source))
    assert done.returncode == 0, done.stderr
    copied = root / REPOSITORY / "clf" / "1" / "model.onnx"
    assert copied.read_bytes() == source.read_bytes()
    config = _config(root, "clf")
    assert config.name == "clf" and config.backend == "onnxruntime"
    # the ONNX Runtime backend's auto-complete: a dynamic first dim means batching (default 4)
    assert config.max_batch_size == 4
    assert [(t.name, list(t.dims)) for t in config.input] == [("x", [4])]
    assert [(t.name, list(t.dims)) for t in config.output] == [("y", [4])]
    assert config.HasField("dynamic_batching")
    assert_clean(root)


def test_from_model_names_the_model_after_the_file(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    source = make_runnable(tmp_path / "resnet.onnx", input_shape=[1, 3], output_shape=[1, 3])
    done = new(tmp_path / "p", "--from-model", str(source))
    assert done.returncode == 0, done.stderr
    assert _config(tmp_path / "p", "resnet").name == "resnet"
    assert_clean(tmp_path / "p")


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_lints_and_formats_clean(tmp_path: Path, template: str) -> None:
    root = tmp_path / "demo"
    target: tuple[str, ...] = ()
    if template == "bls":  # a bls model calls a model of the repository
        assert new(root, "--model", "t", "--template", "python").returncode == 0
        target = ("--target", "t")
    done = new(root, "--model", "m", "--template", template, *target)
    assert done.returncode == 0, done.stderr
    assert (root / REPOSITORY / "m" / "config.pbtxt").is_file()
    assert_clean(root)


def test_the_projects_setting_is_what_lets_a_template_without_its_model_file_pass(
    tmp_path: Path,
) -> None:
    """The scaffold's tritoncfg.toml makes model files optional (CI lints a clone without the
    git-ignored binaries); asked to require them, lint reports what Triton would refuse."""
    root = tmp_path / "demo"
    assert new(root, "--model", "m", "--template", "onnx").returncode == 0
    assert 'model-files = "optional"' in (root / "tritoncfg.toml").read_text()
    assert_clean(root)
    required = run("lint", "--model-files", "required", str(root / REPOSITORY))
    assert required.returncode == 1 and "TC126" in required.stdout, required.stdout


def test_the_project_folder_stands_for_its_repository(tmp_path: Path) -> None:
    """`repository = "model_repository"` in the scaffold's tritoncfg.toml: `lint demo`, `fmt
    --check demo` and `complete demo` read the models, not .github/ (which Triton would take for
    a model, TC101/TC105, were the project folder itself the repository)."""
    root = tmp_path / "demo"
    assert new(root, "--model", "m", "--template", "python").returncode == 0
    linted = run("lint", str(root))
    assert linted.returncode == 0 and linted.stdout.startswith("All checks passed (1 model")
    assert run("fmt", "--check", str(root)).returncode == 0
    completed = run("complete", str(root))
    assert completed.returncode == 0 and 'name: "m"' in completed.stdout
    (root / "tritoncfg.toml").unlink()  # without the setting, the project folder is the repository
    assert "TC105" in run("lint", str(root)).stdout


def test_all_templates_together_lint_clean(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    for template in TEMPLATES:
        target = ("--target", "m_onnx") if template == "bls" else ()
        assert new(root, "-m", f"m_{template}", "-t", template, *target).returncode == 0
    assert_clean(root)


@pytest.mark.parametrize("template", ["python", "bls"])
def test_python_skeleton_follows_the_python_backend_api(tmp_path: Path, template: str) -> None:
    new(tmp_path / "d", "-m", "t", "-t", "python")
    new(tmp_path / "d", "-m", "m", "-t", template, "--target", "t")
    source = (tmp_path / "d" / REPOSITORY / "m" / "1" / "model.py").read_text()
    tree = ast.parse(source)  # parsed, never imported or run
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert cls.name == "TritonPythonModel"
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    assert set(methods) >= {"auto_complete_config", "initialize", "execute", "finalize"}
    decorators = [ast.unparse(d) for d in methods["auto_complete_config"].decorator_list]
    assert decorators == ["staticmethod"]
    assert "import triton_python_backend_utils as pb_utils" in source
    # the tensors it declares to auto-complete, only when config.pbtxt has none, are the config's
    inputs = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "DEFAULT_INPUTS"
    )
    assert inputs == [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [16]}]
    assert "MAX_BATCH_SIZE" not in source and "set_max_batch_size(" not in source


def test_ensemble_template_scaffolds_its_steps(tmp_path: Path) -> None:
    new(tmp_path / "d", "-m", "pipe", "-t", "ensemble")
    config = _config(tmp_path / "d", "pipe")
    steps = [s.model_name for s in config.ensemble_scheduling.step]
    assert steps == ["pipe_preprocess", "pipe_model"]
    for step in steps:
        assert (tmp_path / "d" / REPOSITORY / step / "1" / "model.py").is_file()


def test_tensors_from_options(tmp_path: Path) -> None:
    done = new(
        tmp_path / "d", "-m", "m", "-t", "onnx",
        "--input", "image:fp32:3,224,224", "--output", "scores:TYPE_FP16:-1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    config = _config(tmp_path / "d", "m")
    assert [(t.name, list(t.dims)) for t in config.input] == [("image", [3, 224, 224])]
    assert config.output[0].data_type == DataType.Value("TYPE_FP16")
    assert_clean(tmp_path / "d")


def test_second_new_onto_a_model_changes_nothing_and_force_replaces(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    assert new(root, "-m", "m", "-t", "python").returncode == 0
    before = snapshot(root)
    again = new(root, "-m", "m", "-t", "onnx", "--deploy", "k8s", "--storage-uri", "s3://b/r")
    assert again.returncode == 1
    assert "model exists" in again.stderr and "--force" in again.stderr
    assert snapshot(root) == before  # not even the manifest of the same call
    forced = new(root, "-m", "m", "-t", "onnx", "--force")
    assert forced.returncode == 0, forced.stderr
    model = root / REPOSITORY / "m"
    assert not (model / "1" / "model.py").exists()  # the old model is replaced, not merged
    assert _config(root, "m").backend == "onnxruntime"
    hidden = [p.name for p in (*root.iterdir(), *(root / REPOSITORY).iterdir())]
    assert not [n for n in hidden if ".new-" in n or ".old-" in n]  # no staging left
    assert_clean(root)


def test_another_model_keeps_edited_project_files(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    new(root, "-m", "a")
    (root / "README.md").write_text("# mine\n")
    assert new(root, "-m", "b").returncode == 0
    assert (root / "README.md").read_text() == "# mine\n"
    assert (root / REPOSITORY / "b" / "config.pbtxt").is_file()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../evil", "path separator"),
        ("a/b", "path separator"),
        ("..", "'..' is not a folder of its own"),
        (".hidden", "starts with '.': the folder would be hidden"),
        ("has space", "contains ' ': use letters"),
        ("a*b?", "contains '*', '?'"),
        ("", "empty model name"),
    ],
)
def test_bad_names_exit_2_and_write_nothing(tmp_path: Path, name: str, why: str) -> None:
    done = new(tmp_path / "d", "-m", name)
    assert done.returncode == 2
    assert why in done.stderr and "Traceback" not in done.stderr
    assert ("hidden" in done.stderr) == (name == ".hidden")  # that reason only where it holds
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(
    ("tensor", "why"),
    [
        ("x:FP32", "NAME:DTYPE:DIMS"),
        ("x:FLOAT:4", "unknown data type 'FLOAT'"),
        ("x:FP32:a,b", "are not integers"),
        ("x:FP32:0", "a dimension is a size > 0 or -1"),
    ],
)
def test_bad_tensors_exit_2(tmp_path: Path, tensor: str, why: str) -> None:
    done = new(tmp_path / "d", "-m", "m", "--input", tensor)
    assert done.returncode == 2
    assert why in done.stderr
    assert not (tmp_path / "d").exists()


def test_torchscript_needs_its_tensors(tmp_path: Path) -> None:
    source = tmp_path / "net.pt"
    source.write_bytes(b"PK\x03\x04 not read by tritoncfg")
    refused = new(tmp_path / "d", "--from-model", str(source))
    assert refused.returncode == 2 and "--input NAME:DTYPE:DIMS" in refused.stderr
    assert not (tmp_path / "d").exists()
    done = new(
        tmp_path / "d", "--from-model", str(source),
        "--input", "INPUT__0:FP32:8", "--output", "OUTPUT__0:FP32:2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        tmp_path / "d" / REPOSITORY / "net" / "1" / "model.pt"
    ).read_bytes() == source.read_bytes()
    assert _config(tmp_path / "d", "net").backend == "pytorch"
    assert_clean(tmp_path / "d")


def test_plan_without_tensorrt_says_why(tmp_path: Path) -> None:
    pytest.importorskip("tritoncfg.models.tensorrt")
    import importlib.util

    if importlib.util.find_spec("tensorrt") is not None:
        pytest.skip("tensorrt is installed here: the plan would be read (tests/models cover it)")
    source = tmp_path / "engine.plan"
    source.write_bytes(b"\x00" * 64)
    done = new(tmp_path / "d", "--from-model", str(source))
    assert done.returncode == 2
    assert "cannot inspect .plan here: the tensorrt Python package is not installed" in done.stderr
    assert not (tmp_path / "d").exists()


def test_unknown_model_file_type(tmp_path: Path) -> None:
    source = tmp_path / "model.bin"
    source.write_bytes(b"x")
    done = new(tmp_path / "d", "--from-model", str(source))
    assert done.returncode == 2 and "unknown model file type" in done.stderr


def test_no_options_without_a_terminal_does_not_prompt(tmp_path: Path) -> None:
    done = new(tmp_path / "d")  # stdin is a pipe here: scriptable, no questions
    assert done.returncode == 0, done.stderr
    assert "?" not in done.stdout and "Model" not in done.stdout
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == [
        ".github", ".gitignore", ".pre-commit-config.yaml", "README.md", REPOSITORY,
        "tritoncfg.toml",
    ]  # fmt: skip
    assert not any((tmp_path / "d" / REPOSITORY).iterdir())


def test_scaffold_is_a_copyable_unit(tmp_path: Path) -> None:
    """The project refers to nothing outside it: moved elsewhere it still lints clean."""
    new(tmp_path / "d", "-m", "m", "-t", "ensemble")
    shutil.move(tmp_path / "d", tmp_path / "moved")
    assert_clean(tmp_path / "moved")


def test_template_and_model_file_exclude_each_other(tmp_path: Path) -> None:
    source = tmp_path / "m.onnx"
    source.write_bytes(b"")
    done = new(tmp_path / "d", "--from-model", str(source), "--template", "python")
    assert done.returncode == 2 and "--template or --from-model, not both" in done.stderr
    assert not (tmp_path / "d").exists()


def test_bls_target_is_a_model_name(tmp_path: Path) -> None:
    done = new(tmp_path / "d", "-m", "m", "-t", "bls", "--target", "../x")
    assert done.returncode == 2 and "--target model name '../x'" in done.stderr
    assert new(tmp_path / "d", "-m", "classifier", "-t", "python").returncode == 0
    ok = new(tmp_path / "d", "-m", "m", "-t", "bls", "--target", "classifier")
    assert ok.returncode == 0, ok.stderr
    assert (
        'TARGET_MODEL = "classifier"'
        in (tmp_path / "d" / REPOSITORY / "m" / "1" / "model.py").read_text()
    )


def test_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    done = new(tmp_path / "f", "-m", "m")
    assert done.returncode == 2 and "exists and is not a directory" in done.stderr


def test_onnx_weights_in_external_files_are_copied_too(tmp_path: Path) -> None:
    from models.onnxkit import make_external

    source = make_external(tmp_path / "src" / "big.onnx")
    done = new(tmp_path / "d", "--from-model", str(source))
    assert done.returncode == 0, done.stderr
    version = tmp_path / "d" / REPOSITORY / "big" / "1"
    assert sorted(p.name for p in version.iterdir()) == [".gitkeep", "model.onnx", "weights.bin"]
    assert (version / "weights.bin").read_bytes() == (source.parent / "weights.bin").read_bytes()
    assert_clean(tmp_path / "d")


def test_onnx_with_a_missing_weights_file_is_refused(tmp_path: Path) -> None:
    from models.onnxkit import make_external

    source = make_external(tmp_path / "src" / "big.onnx")
    (source.parent / "weights.bin").unlink()
    done = new(tmp_path / "d", "--from-model", str(source))
    assert done.returncode == 2 and "its weights file 'weights.bin' is not beside it" in done.stderr
    assert not (tmp_path / "d").exists()


def test_onnx_tensors_come_from_the_file(tmp_path: Path) -> None:
    from models.onnxkit import make_runnable

    source = make_runnable(tmp_path / "m.onnx", input_shape=[1, 2], output_shape=[1, 2])
    done = new(tmp_path / "d", "--from-model", str(source), "--input", "x:FP32:2")
    assert done.returncode == 2 and "the file describes its tensors" in done.stderr


def test_python_skeletons_are_ruff_clean(tmp_path: Path) -> None:
    """What users get passes a formatter and linter at their defaults (no churn on first use)."""
    import subprocess
    import sys

    root = tmp_path / "d"
    new(root, "-m", "p", "-t", "python", "--input", "a:INT64:-1", "--input", "b:FP32:2")
    new(root, "-m", "b", "-t", "bls", "--target", "p")
    files = [str(p) for p in sorted((root / REPOSITORY).glob("*/1/model.py"))]
    assert len(files) == 2
    ruff = [sys.executable, "-m", "ruff"]
    for command in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        done = subprocess.run([*ruff, *command, *files], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_model_options_need_a_model(tmp_path: Path) -> None:
    done = new(tmp_path / "d", "--template", "python")
    assert done.returncode == 2 and "give --model NAME" in done.stderr
    assert not (tmp_path / "d").exists()


def _next(done: object) -> list[str]:
    lines = str(getattr(done, "stdout", "")).splitlines()
    return [line.removeprefix("next: ") for line in lines if line.startswith("next: ")]


def test_next_says_what_to_do_after_new(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    repository = root / REPOSITORY
    empty = new(root)
    assert empty.returncode == 0, empty.stderr
    assert _next(empty) == [
        f"tritoncfg new {root} --model NAME --template onnx (or --from-model FILE)"
    ]
    onnx = new(root, "--model", "clf")
    missing = repository / "clf" / "1" / "model.onnx"
    assert _next(onnx) == [
        f"put your model.onnx at {missing} (model files stay out of git)",
        f"tritoncfg lint {repository}",
    ]
    python = new(root, "--model", "pre", "--template", "python")  # model.py is written
    assert _next(python) == [f"tritoncfg lint {repository}"]
    assert run("lint", str(repository)).returncode == 0  # the hint runs


def test_a_tensor_given_twice_is_refused(tmp_path: Path) -> None:
    twice = ("--input", "a:FP32:4", "--input", "a:FP32:4")
    done = new(tmp_path / "d", "-m", "m", *twice)
    assert done.returncode == 2, done.stdout
    assert "--input 'a' is given twice" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "d").exists()
    outputs = new(tmp_path / "d", "-m", "m", "--output", "y:FP32:4", "--output", "y:FP16:2")
    assert outputs.returncode == 2 and "--output 'y' is given twice" in outputs.stderr
    # one name as an input and as an output is a valid config
    same = new(tmp_path / "d", "-m", "m", "--input", "a:FP32:4", "--output", "a:FP32:4")
    assert same.returncode == 0, same.stderr
    assert_clean(tmp_path / "d")


def test_force_replaces_the_model_and_keeps_edited_project_files(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    assert new(root, "-m", "m").returncode == 0
    (root / "README.md").write_text("# ours\n")
    (root / ".gitignore").write_text("*.onnx\nsecrets/\n")
    forced = new(root, "-m", "m", "-t", "python", "--force")
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.splitlines()[0] == f"replaced {root / REPOSITORY / 'm'}"
    assert "README" not in forced.stdout and ".gitignore" not in forced.stdout
    assert (root / "README.md").read_text() == "# ours\n"
    assert (root / ".gitignore").read_text() == "*.onnx\nsecrets/\n"
    assert _config(root, "m").backend == "python"
    # a project file that is gone is still created
    (root / "README.md").unlink()
    again = new(root, "-m", "m", "-t", "python", "--force")
    assert f"created {root / 'README.md'}" in again.stdout
