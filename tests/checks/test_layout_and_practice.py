"""Repository-layout rules (TC1xx) and the rules whose examples need more than one config."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lintkit import codes, lint_repo, make_model

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Severity

PY = {"1/model.py": "# never executed\n"}


def _by_code(diagnostics: list, code: str) -> list:  # type: ignore[type-arg]
    return [d for d in diagnostics if d.code == code]


def test_tc007_unreadable_config(tmp_path: Path) -> None:
    model = make_model(tmp_path / "repo", "m", None, files=PY)
    (model / "config.pbtxt").write_bytes(b'name: "m"\n# caf\xc3\xa9\n')
    assert "TC007" not in codes(lint_repo(tmp_path / "repo"))  # UTF-8 is read
    (model / "config.pbtxt").write_bytes(b'name: "m"\n# caf\xe9\n')
    (found,) = _by_code(lint_repo(tmp_path / "repo"), "TC007")
    assert "invalid UTF-8" in found.message and found.severity is Severity.ERROR


def test_tc009_checks_skipped_after_a_syntax_error(tmp_path: Path) -> None:
    model = make_model(tmp_path / "repo", "m", 'backend: "python"\nmax_batch_size: 8\n', files=PY)
    assert "TC009" not in codes(lint_repo(tmp_path / "repo"))
    (model / "config.pbtxt").write_text('backend: "python"\nmax_batch_size 8\n')
    diagnostics = lint_repo(tmp_path / "repo")
    (note,) = _by_code(diagnostics, "TC009")
    assert note.severity is Severity.INFO
    assert "skipped for model 'm' because its config does not parse" in note.message
    assert codes(diagnostics)[-1] == "TC009"  # the note closes its file's list


def test_tc101_hidden_directory_and_pass(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", 'backend: "python"\n', files=PY)
    assert "TC101" not in codes(lint_repo(tmp_path / "repo"))
    (tmp_path / "repo" / ".ipynb_checkpoints").mkdir()
    (found,) = _by_code(lint_repo(tmp_path / "repo"), "TC101")
    assert ".ipynb_checkpoints" in found.message


def test_tc102_symlink_outside_the_repository(tmp_path: Path) -> None:
    model = make_model(tmp_path / "repo", "m", 'backend: "python"\n', files=PY)
    assert "TC102" not in codes(lint_repo(tmp_path / "repo"))
    outside = tmp_path / "elsewhere.onnx"
    outside.write_text("x")
    os.symlink(outside, model / "1" / "model.onnx")
    assert _by_code(lint_repo(tmp_path / "repo"), "TC102")


@pytest.mark.skipif(
    os.geteuid() == 0, reason="running as root: chmod 000 does not stop root from reading"
)
def test_tc103_unreadable_directory(tmp_path: Path) -> None:
    model = make_model(tmp_path / "repo", "m", 'backend: "python"\n', files=PY)
    (model / "1").chmod(0)
    try:
        assert _by_code(lint_repo(tmp_path / "repo"), "TC103")
    finally:
        (model / "1").chmod(0o755)


def test_tc104_missing_config_by_mode(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", None, files=PY)
    (default,) = _by_code(lint_repo(tmp_path / "repo"), "TC104")
    assert default.severity is Severity.WARNING and default.triton is None
    (strict,) = _by_code(lint_repo(tmp_path / "repo", triton_mode="strict"), "TC104")
    assert strict.severity is Severity.ERROR
    assert strict.triton is not None and "No such file or directory" in (
        strict.triton.message or ""
    )
    make_model(tmp_path / "ok", "m", 'backend: "python"\n', files=PY)
    assert "TC104" not in codes(lint_repo(tmp_path / "ok"))


def test_tc106_ignored_version_directory(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", 'backend: "python"\n', files=PY, versions=("1", "v2", "01"))
    found = _by_code(lint_repo(tmp_path / "repo"), "TC106")
    reasons = sorted(d.triton.message for d in found if d.triton)
    assert reasons == [
        "ignore version directory '01' which contains leading zeros in its directory name",
        "ignore version directory 'v2' which fails to convert to integral number",
    ]
    make_model(tmp_path / "ok", "m", 'backend: "python"\n', files=PY, versions=("1", "10"))
    assert "TC106" not in codes(lint_repo(tmp_path / "ok"))


def test_tc108_unconventional_config_file(tmp_path: Path) -> None:
    model = make_model(tmp_path / "repo", "bls", None, files=PY)
    (model / "sync_config.pbtxt").write_text('name: "bls"\nbackend: "python"\n')
    result = lint(model / "sync_config.pbtxt")
    assert [d.severity for d in result.diagnostics if d.code == "TC108"] == [Severity.INFO]
    (model / "config.pbtxt").write_text('name: "bls"\nbackend: "python"\n')
    assert "TC108" not in [d.code for d in lint(model / "config.pbtxt").diagnostics]


def test_tc340_pytorch_without_outputs(tmp_path: Path) -> None:
    config = (
        'backend: "pytorch"\ninput [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
    )
    make_model(tmp_path / "repo", "m", config, files={"1/model.pt": ""})
    (found,) = _by_code(lint_repo(tmp_path / "repo"), "TC340")
    assert (
        found.triton
        and found.triton.message
        == "model configuration must contain at least one output, none were specified"
    )
    fixed = config + 'output [ { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
    make_model(tmp_path / "ok", "m", fixed, files={"1/model.pt": ""})
    assert "TC340" not in codes(lint_repo(tmp_path / "ok"))


@pytest.mark.parametrize(
    ("name", "bad"), [("../x/dali.py", "/"), ("a'b.py", "'"), ("dir/dali.py", "/")]
)
def test_tc341_dali_model_filename(tmp_path: Path, name: str, bad: str) -> None:
    config = f'backend: "dali"\ndefault_model_filename: "{name}"\n'
    make_model(tmp_path / "repo", "m", config, files={"1/model.dali": ""})
    (found,) = _by_code(lint_repo(tmp_path / "repo"), "TC341")
    assert (
        found.triton is not None
        and found.triton.message == f"contains an invalid character: '{bad}'"
    )
    make_model(
        tmp_path / "ok",
        "m",
        'backend: "dali"\ndefault_model_filename: "dali.py"\n',
        files={"1/dali.py": ""},
    )
    assert "TC341" not in codes(lint_repo(tmp_path / "ok"))


TRT = 'platform: "tensorrt_plan"\nmax_batch_size: 8\n'


def test_tc906_and_tc911_tensorrt_practice(tmp_path: Path) -> None:
    make_model(
        tmp_path / "repo",
        "m",
        TRT + "instance_group [ { kind: KIND_CPU } ]\n",
        files={"1/model.plan": ""},
    )
    found = codes(lint(tmp_path / "repo", LintOptions(gpus=(0,))).diagnostics)
    assert "TC906" in found and "TC911" in found
    warm = TRT + (
        'instance_group [ { kind: KIND_GPU } ]\nmodel_warmup [ { name: "w" batch_size: 1 '
        'inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 16 ] zero_data: true } } } ]\n'
    )
    make_model(tmp_path / "ok", "m", warm, files={"1/model.plan": ""})
    found = codes(lint(tmp_path / "ok", LintOptions(gpus=(0,))).diagnostics)
    assert "TC906" not in found and "TC911" not in found
