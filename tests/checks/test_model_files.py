"""TC126: the model file each standard backend opens (onnxruntime.cc, tensorrt instance_state.cc,
pytorch model_state.cc, tensorflow.cc, openvino.cc), and the `model-files = "optional"` opt-out."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from lintkit import lint_repo, make_model

IO = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def _found(root: Path, **options: object) -> list[tuple[str, str, str | None]]:
    diagnostics = lint_repo(root, **options)
    return [
        (d.severity.value, d.message, d.triton.message if d.triton else None)
        for d in diagnostics
        if d.code == "TC126"
    ]


@pytest.mark.parametrize(
    ("head", "missing", "triton"),
    [
        ('backend: "onnxruntime"', "model.onnx", "failed to stat file {p}"),
        ('platform: "onnxruntime_onnx"', "model.onnx", "failed to stat file {p}"),
        (
            'backend: "tensorrt"',
            "model.plan",
            "unable to load plan file to auto complete config: {p}",
        ),
        ('backend: "pytorch"', "model.pt", "unable to find '{p}' for model instance 'm_0'"),
        (
            'platform: "torch_aoti"',
            "model.pt2",
            'PyTorch inductor model file "{p}" is unreachable or inaccessible.',
        ),
        (
            'platform: "tensorflow_savedmodel"',
            "model.savedmodel",
            "unable to find '{p}' for model instance 'm_0'",
        ),
        (
            'platform: "tensorflow_graphdef"',
            "model.graphdef",
            "unable to find '{p}' for model instance 'm_0'",
        ),
        ('backend: "openvino"', "model.xml", "unable to find '{p}' for model 'm'"),
    ],
)
def test_missing_model_file_per_backend(
    tmp_path: Path, head: str, missing: str, triton: str
) -> None:
    config = f'name: "m"\n{head}\nmax_batch_size: 0\n{IO}'
    make_model(tmp_path, "m", config, files={"1/README": "model files come later\n"})
    path = tmp_path / "m" / "1" / missing
    found = _found(tmp_path, gpus=(0,))
    assert [(sev, triton_message) for sev, _, triton_message in found] == [
        ("error", triton.format(p=path))
    ]
    assert f"has no '{missing}'" in found[0][1]
    # the opt-out turns it off, and with the file present nothing is reported
    assert _found(tmp_path, gpus=(0,), model_files="optional") == []
    if missing == "model.savedmodel":
        path.mkdir()
    else:
        path.write_bytes(b"")
    assert _found(tmp_path, gpus=(0,)) == []


def test_strict_mode_names_the_instance(tmp_path: Path) -> None:
    config = f'name: "m"\nbackend: "tensorrt"\nmax_batch_size: 0\n{IO}'
    make_model(tmp_path, "m", config)
    path = tmp_path / "m" / "1" / "model.plan"
    assert [t for _, _, t in _found(tmp_path, gpus=(0,), triton_mode="strict")] == [
        f"unable to find '{path}' for model instance 'm_0'"
    ]


def test_onnx_directory_model_needs_its_model_onnx(tmp_path: Path) -> None:
    config = f'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 0\n{IO}'
    make_model(tmp_path, "m", config, files={"1/model.onnx/weights.bin": ""})
    inner = tmp_path / "m" / "1" / "model.onnx" / "model.onnx"
    assert [t for _, _, t in _found(tmp_path)] == [
        f"unable to find '{inner}' for model instance 'm'"
    ]


def test_default_model_filename_and_every_loaded_version(tmp_path: Path) -> None:
    config = (
        f'name: "m"\nbackend: "onnxruntime"\ndefault_model_filename: "net.onnx"\n'
        f"version_policy {{ all {{}} }}\nmax_batch_size: 0\n{IO}"
    )
    make_model(
        tmp_path, "m", config, files={"1/model.onnx": "", "2/net.onnx": ""}, versions=("1", "2")
    )
    diagnostics = [d for d in lint_repo(tmp_path) if d.code == "TC126"]
    assert [(d.span.line, d.span.column) for d in diagnostics] == [(3, 25)]
    assert "version 1 of onnxruntime model 'm' has no 'net.onnx'" in diagnostics[0].message


def test_python_and_custom_backends_are_not_tc126(tmp_path: Path) -> None:
    make_model(tmp_path, "p", 'backend: "python"\n')
    make_model(tmp_path, "c", 'backend: "identity"\n')
    diagnostics = lint_repo(tmp_path)
    assert {d.code for d in diagnostics} >= {"TC125"}  # the rules ran; python's file is TC125
    assert not [d for d in diagnostics if d.code == "TC126"]
    assert not [d for d in lint_repo(tmp_path, model_files="optional") if d.code == "TC125"]


def test_cli_fails_and_the_opt_out_passes(tmp_path: Path) -> None:
    config = f'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 0\n{IO}'
    make_model(tmp_path / "repo", "m", config)
    failed = run("lint", str(tmp_path / "repo"))
    assert failed.returncode == 1 and "TC126" in failed.stdout
    passed = run("lint", "--model-files", "optional", str(tmp_path / "repo"))
    assert passed.returncode == 0, passed.stdout
    (tmp_path / "repo" / "tritoncfg.toml").write_text('model-files = "optional"\n')
    configured = run("lint", str(tmp_path / "repo"))
    assert configured.returncode == 0 and "TC126" not in configured.stdout
    (tmp_path / "repo" / "tritoncfg.toml").write_text('model-files = "maybe"\n')
    bad = run("lint", str(tmp_path / "repo"))
    assert bad.returncode == 2 and "model-files" in bad.stderr


def test_negative_version_is_read_by_the_backend_as_uint64(tmp_path: Path) -> None:
    # core: std::stoll("-3") == -3, kept as int64 (model_lifecycle.cc:VersionsToLoad); backends
    # get it as uint64 (TRITONBACKEND_ModelVersion) and join <model>/18446744073709551613/
    make_model(tmp_path / "py", "m", 'backend: "python"\n', files={"-3/model.py": ""}, versions=())
    onnx = f'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 0\n{IO}'
    make_model(tmp_path / "ort", "m", onnx, files={"-3/model.onnx": ""}, versions=())
    for repo, code, triton in (
        ("py", "TC125", "Python model file not found in '{p}'"),
        ("ort", "TC126", "failed to stat file {p}"),
    ):
        path = (
            tmp_path
            / repo
            / "m"
            / "18446744073709551613"
            / ("model.py" if repo == "py" else "model.onnx")
        )
        for files in ("required", "optional"):  # a negative version never loads: reported even
            found = [d for d in lint_repo(tmp_path / repo, model_files=files) if d.code == code]
            assert [d.triton.message if d.triton else None for d in found] == [
                triton.format(p=path)
            ]
            assert "read by the backend as the unsigned 18446744073709551613" in found[0].message


@pytest.mark.parametrize("dirname", ["+5", " 7", "1abc", "-0"])
def test_version_names_that_stoll_reads_are_loaded_from_the_plain_number(
    tmp_path: Path, dirname: str
) -> None:
    # std::stoll skips leading space, takes a sign and ignores trailing text; the backend then
    # reads <model>/<number>/, not the directory that holds the file
    number = {"+5": "5", " 7": "7", "1abc": "1", "-0": "0"}[dirname]
    make_model(tmp_path, "m", 'backend: "python"\n', files={f"{dirname}/model.py": ""}, versions=())
    found = [d for d in lint_repo(tmp_path) if d.code == "TC125"]
    assert [d.triton.message if d.triton else None for d in found] == [
        f"Python model file not found in '{tmp_path / 'm' / number / 'model.py'}'"
    ]
