"""TC110-TC116: backend autofill (`AutoCompleteBackendFields`), platform/backend validation
(`ValidateModelConfig`) and the version policy (`model_lifecycle.cc`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintkit import found, lint_config, lint_repo, make_model

PY = 'backend: "python"\n'


def undetermined(name: str) -> str:
    return (
        f"Invalid model name: Could not determine backend for model '{name}' with no backend in "
        "model configuration. Expected model name of the form 'model.<backend_name>'."
    )


def test_backend_not_determined(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, "max_batch_size: 8\n", name="no_delimiter", files={})
    assert found(diagnostics, "TC110") == [("1:1", "error", undetermined("no_delimiter"))]
    assert not found(diagnostics, "TC111")  # the same cause, reported once


def test_backend_not_determined_names_the_detection_directory(tmp_path: Path) -> None:
    # `AutoCompleteBackendFields`: detection looks in the byte-wise first subdirectory only
    make_model(tmp_path, "m", "", files={"2/model.onnx": ""}, versions=("10", "2"))
    (diagnostic,) = [d for d in lint_repo(tmp_path) if d.code == "TC110"]
    assert "'10/'" in diagnostic.message


def test_backend_from_directory_suffix_passes(tmp_path: Path) -> None:
    assert not found(lint_config(tmp_path, "", name="m.identity", files={}), "TC110")


def test_unknown_platform(tmp_path: Path) -> None:
    assert found(lint_config(tmp_path, 'platform: "python"\n'), "TC111") == [
        ("1:11", "error", "unexpected platform type 'python' for m")
    ]


def test_unknown_default_model_filename(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, 'default_model_filename: "foo.bin"\n', files={})
    assert found(diagnostics, "TC111") == [("1:25", "error", "unexpected platform type '' for m")]


def test_known_platform_passes(tmp_path: Path) -> None:
    assert not found(lint_config(tmp_path, 'platform: "onnxruntime_onnx"\n', files={}), "TC111")


def test_ensemble_with_backend(tmp_path: Path) -> None:
    config = 'name: "has_backend"\nplatform: "ensemble"\nbackend: "python"\n'
    assert found(lint_config(tmp_path, config, name="has_backend", files={}), "TC112") == [
        (
            "3:10",
            "error",
            "Ensemble model 'has_backend' must have platform type 'ensemble' and empty backend type",
        )
    ]


def test_ensemble_without_backend_passes(tmp_path: Path) -> None:
    assert not found(lint_config(tmp_path, 'platform: "ensemble"\n', files={}), "TC112")


@pytest.mark.parametrize(
    ("config", "span", "got"),
    [
        # QA special_cases/invalid_platform
        (
            'platform: "onnxruntim"\ndefault_model_filename: "model.onnx"\n',
            "1:11",
            "onnxruntim, onnxruntime",
        ),
        (
            'platform: "tensorrt_plan"\nbackend: "onnxruntime"\n',
            "1:11",
            "tensorrt_plan, onnxruntime",
        ),
        ('platform: "libtorch"\n', "1:11", "libtorch, pytorch"),
        ('backend: "tensorflow"\n', "1:10", ", tensorflow"),
    ],
)
def test_platform_backend_mismatch(tmp_path: Path, config: str, span: str, got: str) -> None:
    assert found(lint_config(tmp_path, config, files={}), "TC113") == [
        (span, "error", f"unexpected 'platform' and 'backend' pair, got:{got}")
    ]


@pytest.mark.parametrize(
    "config",
    [
        'platform: "torch_aoti"\nbackend: "pytorch"\n',
        'platform: "tensorflow_savedmodel"\n',
        'backend: "python"\nplatform: "anything"\n',  # unknown backends accept any platform
    ],
)
def test_platform_backend_pairs_pass(tmp_path: Path, config: str) -> None:
    assert not found(lint_config(tmp_path, config, files={}), "TC113")


NO_VERSION = "at least one version must be available under the version policy of model 'm'"


def test_latest_zero_selects_no_version(tmp_path: Path) -> None:
    assert found(lint_config(tmp_path, PY + "version_policy { latest {} }\n"), "TC115") == [
        ("2:25", "error", NO_VERSION)
    ]


def test_specific_with_no_present_version(tmp_path: Path) -> None:
    config = PY + "version_policy { specific { versions: [ 2, 3 ] } }\n"
    diagnostics = lint_config(tmp_path, config)
    assert found(diagnostics, "TC115") == [("2:29", "error", NO_VERSION)]
    assert found(diagnostics, "TC116") == [
        (
            "2:41",
            "warning",
            "version 2 is specified for model 'm', but the version directory is not present",
        ),
        (
            "2:44",
            "warning",
            "version 3 is specified for model 'm', but the version directory is not present",
        ),
    ]


def test_no_version_directory_is_left_to_tc105(tmp_path: Path) -> None:
    make_model(tmp_path, "m", PY + "version_policy { latest {} }\n", versions=())
    diagnostics = lint_repo(tmp_path)
    assert found(diagnostics, "TC105") and not found(diagnostics, "TC115")
    make_model(tmp_path / "ok", "m", PY + "version_policy { latest {} }\n")
    assert not found(lint_repo(tmp_path / "ok"), "TC105")


@pytest.mark.parametrize(
    "policy",
    [
        "",
        "version_policy { latest { num_versions: 2 } }\n",
        "version_policy { all {} }\n",
        "version_policy {}\n",
        "version_policy { specific { versions: [ 1 ] } }\n",
    ],
)
def test_policies_that_select_a_version_pass(tmp_path: Path, policy: str) -> None:
    diagnostics = lint_config(tmp_path, PY + policy)
    assert not found(diagnostics, "TC115") and not found(diagnostics, "TC116")


def test_some_specific_version_missing(tmp_path: Path) -> None:
    config = PY + "version_policy { specific { versions: [ 1, 3 ] } }\n"
    diagnostics = lint_config(tmp_path, config)
    assert found(diagnostics, "TC116") == [
        (
            "2:44",
            "warning",
            "version 3 is specified for model 'm', but the version directory is not present",
        )
    ]
    assert not found(diagnostics, "TC115")
