"""TC120-TC125: backend library resolution (`backend_model.cc:GetBackendLibraryProperties`) and the python backend's
model file, with and without `--backend-dir`."""

from __future__ import annotations

from pathlib import Path

from lintkit import found, lint_config, lint_repo, make_model


def backends(root: Path, *names: str, python_based: tuple[str, ...] = ()) -> Path:
    """A --backend-dir with empty libraries (and Python-based backends' model.py)."""
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / f"libtriton_{name}.so").write_text("")
    for name in python_based:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "model.py").write_text("")
    return root


NOT_FOUND = "Invalid argument: unable to find backend library for backend 'unknown', try specifying runtime on the model configuration."


def test_backend_library_not_found(tmp_path: Path) -> None:
    # QA autofill_noplatform/custom/unknown_backend.unknown: the backend comes from the dir name
    bdir = backends(tmp_path / "backends", "identity")
    make_model(tmp_path / "repo", "unknown_backend.unknown", "", versions=("1",))
    assert found(lint_repo(tmp_path / "repo", backend_dir=bdir), "TC120") == [
        ("1:1", "error", NOT_FOUND)
    ]


def test_backend_neither_standard_nor_configured_is_an_error(tmp_path: Path) -> None:
    config = 'backend: "unknown"\n'
    assert found(lint_config(tmp_path, config, files={}), "TC120") == [("1:10", "error", NOT_FOUND)]
    # a backend NGC containers ship is assumed present, and so is a configured one
    assert not found(lint_config(tmp_path / "std", 'backend: "identity"\n', files={}), "TC120")
    configured = lint_config(tmp_path / "cfg", config, files={}, backends=("unknown",))
    assert not found(configured, "TC120")


def test_misspelled_backend_gets_a_did_you_mean(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, 'backend: "onxruntime"\n', files={"1/model.onnx": ""})
    (tc120,) = [d for d in diagnostics if d.code == "TC120"]
    assert tc120.severity.value == "error" and "did you mean 'onnxruntime'?" in tc120.message


def test_runtime_of_an_unknown_backend_is_decided(tmp_path: Path) -> None:
    config = 'backend: "custom"\nruntime: "libcustom.so"\n'
    assert [sev for _, sev, _ in found(lint_config(tmp_path, config, files={}), "TC121")] == [
        "error"
    ]
    in_model = lint_config(tmp_path / "own", config, files={"libcustom.so": ""})
    assert "TC120" not in [d.code for d in in_model] and not found(in_model, "TC121")
    # a standard backend's folder holds only its own library: an error too (issue 23 item 11)
    standard = lint_config(tmp_path / "std", config.replace("custom", "identity", 1), files={})
    assert [sev for _, sev, _ in found(standard, "TC121")] == ["error"]


def test_backend_library_found_passes(tmp_path: Path) -> None:
    bdir = backends(tmp_path / "backends", "identity", python_based=("vllm",))
    for backend in ("identity", "vllm"):
        diagnostics = lint_config(
            tmp_path / backend, f'backend: "{backend}"\n', files={}, backend_dir=bdir
        )
        assert not found(diagnostics, "TC120")
    in_model = lint_config(
        tmp_path / "own", 'backend: "mine"\n', files={"1/libtriton_mine.so": ""}, backend_dir=bdir
    )
    assert not found(in_model, "TC120")


def test_runtime_library_not_found(tmp_path: Path) -> None:
    # QA special_cases/invalid_runtime
    bdir = backends(tmp_path / "backends", "identity")
    config = 'backend: "identity"\nruntime: "__invalid_runtime__"\n'
    diagnostics = lint_config(tmp_path, config, name="invalid_runtime", files={}, backend_dir=bdir)
    model = tmp_path / "repo" / "invalid_runtime"
    assert found(diagnostics, "TC121") == [
        (
            "2:10",
            "error",
            "unable to find backend library '__invalid_runtime__' for model 'invalid_runtime', "
            f"searched: '{model}/1' '{model}' '{bdir}/identity' ",
        )
    ]


def test_runtime_library_not_in_the_repository_is_an_error(tmp_path: Path) -> None:
    """Issue 23 item 11: `runtime: "libtriton_nope.so"`, refused by Triton 2.51, passed lint."""
    config = 'backend: "python"\nruntime: "libtriton_nope.so"\n'
    model = tmp_path / "repo" / "m"
    diagnostics = lint_config(tmp_path, config)
    assert found(diagnostics, "TC121") == [
        (
            "2:10",
            "error",
            "unable to find backend library 'libtriton_nope.so' for model 'm', "
            f"searched: '{model}/1' '{model}' '/opt/tritonserver/backends/python' ",
        )
    ]
    (d,) = [d for d in diagnostics if d.code == "TC121"]
    assert "[tool.tritoncfg] runtimes" in d.message and "--backend-dir" in d.message


def test_runtime_library_in_the_version_or_model_folder_passes(tmp_path: Path) -> None:
    config = 'backend: "python"\nruntime: "libtriton_nope.so"\n'
    for where in ("1/libtriton_nope.so", "libtriton_nope.so"):
        files = {"1/model.py": "", where: ""}
        diagnostics = lint_config(tmp_path / where.replace("/", "_"), config, files=files)
        assert not found(diagnostics, "TC121")


def test_runtimes_setting_declares_a_host_library(tmp_path: Path) -> None:
    config = 'backend: "python"\nruntime: "libtriton_nope.so"\n'
    assert found(lint_config(tmp_path / "a", config), "TC121")
    assert not found(lint_config(tmp_path / "b", config, runtimes=("libtriton_nope.so",)), "TC121")
    # --backend-dir decides over the setting
    bdir = backends(tmp_path / "backends", "python")
    checked = lint_config(tmp_path / "c", config, backend_dir=bdir, runtimes=("libtriton_nope.so",))
    assert [sev for _, sev, _ in found(checked, "TC121")] == ["error"]


def test_runtimes_setting_from_the_settings_file(tmp_path: Path) -> None:
    from clikit import run

    config = 'backend: "python"\nruntime: "libtriton_nope.so"\n'
    make_model(tmp_path / "repo", "m", config, files={"1/model.py": ""})
    failed = run("lint", str(tmp_path / "repo"), "--no-cache")
    assert failed.returncode == 1 and "TC121" in failed.stdout
    (tmp_path / "repo" / "tritoncfg.toml").write_text('runtimes = ["libtriton_nope.so"]\n')
    passed = run("lint", str(tmp_path / "repo"), "--no-cache")
    assert passed.returncode == 0, passed.stdout


def test_runtime_library_found_passes(tmp_path: Path) -> None:
    config = 'backend: "custom"\nruntime: "libcustom.so"\n'
    assert not found(lint_config(tmp_path, config, files={"libcustom.so": ""}), "TC121")
    bdir = backends(tmp_path / "backends", "identity")
    std = 'backend: "identity"\nruntime: "libtriton_identity.so"\n'
    assert not found(lint_config(tmp_path / "std", std, files={}, backend_dir=bdir), "TC121")


def test_python_based_runtime_needs_the_python_backend(tmp_path: Path) -> None:
    bdir = backends(tmp_path / "backends", "identity", python_based=("vllm",))
    config = 'backend: "vllm"\nruntime: "model.py"\n'
    (message,) = [
        m for _, _, m in found(lint_config(tmp_path, config, files={}, backend_dir=bdir), "TC121")
    ]
    assert message is not None
    assert message.startswith("unable to find backend library 'libtriton_python.so' for model 'm'")
    assert message.endswith(f"'{bdir}/vllm' '{bdir}/python' ")


def test_runtime_escapes_backend_directory(tmp_path: Path) -> None:
    # QA special_cases/runtime_escape
    config = 'backend: "identity"\nruntime: "../dummy_runtime/libtriton_identity.so"\n'
    files = {"dummy_runtime/libtriton_identity.so": ""}
    diagnostics = lint_config(tmp_path, config, name="runtime_escape", files=files)
    model = tmp_path / "repo" / "runtime_escape"
    assert found(diagnostics, "TC122") == [
        (
            "2:10",
            "error",
            "backend library name '../dummy_runtime/libtriton_identity.so' escapes backend "
            f"directory '{model}/1', for model 'runtime_escape', check model config runtime field",
        )
    ]
    assert not found(diagnostics, "TC121")


def test_runtime_inside_its_directory_passes(tmp_path: Path) -> None:
    config = 'backend: "identity"\nruntime: "sub/../libtriton_identity.so"\n'
    assert not found(lint_config(tmp_path, config, files={}), "TC122")


def test_python_based_backend_model_missing(tmp_path: Path) -> None:
    bdir = backends(tmp_path / "backends", "python", python_based=("vllm",))
    config = 'backend: "vlm"\nruntime: "model.py"\n'
    assert found(lint_config(tmp_path, config, files={}, backend_dir=bdir), "TC123") == [
        (
            "2:10",
            "error",
            "unable to find Python backend based backend library 'model.py' for model 'm', "
            f"searched: '{bdir}/vlm/model.py'",
        )
    ]
    ok = 'backend: "vllm"\nruntime: "model.py"\n'
    assert not found(lint_config(tmp_path / "ok", ok, files={}, backend_dir=bdir), "TC123")


def test_runtime_model_py_on_the_python_backend(tmp_path: Path) -> None:
    """Issue 23 item 11: `runtime: "model.py"` on the python backend makes Triton 2.51 look for
    <backends>/python/model.py, which is not there; lint passed it."""
    config = 'backend: "python"\nruntime: "model.py"\n'
    diagnostics = lint_config(tmp_path, config)
    assert found(diagnostics, "TC123") == [
        (
            "2:10",
            "error",
            "unable to find Python backend based backend library 'model.py' for model 'm', "
            "searched: '/opt/tritonserver/backends/python/model.py'",
        )
    ]
    (d,) = [d for d in diagnostics if d.code == "TC123"]
    assert "remove `runtime`" in d.message
    assert not found(diagnostics, "TC121")  # libtriton_python.so: a standard backend's


def test_runtime_model_py_of_python_based_backends_passes(tmp_path: Path) -> None:
    for backend in ("vllm", "pytorch"):
        config = f'backend: "{backend}"\nruntime: "model.py"\n'
        diagnostics = lint_config(tmp_path / backend, config, files={"1/model.pt": ""})
        assert not {d.code for d in diagnostics} & {"TC120", "TC121", "TC123"}
    # a backend the settings declare may be Python-based; an unknown one is reported
    config = 'backend: "mine"\nruntime: "model.py"\n'
    assert not found(lint_config(tmp_path / "cfg", config, backends=("mine",)), "TC123")
    assert found(lint_config(tmp_path / "unknown", config), "TC123")


def test_repo_agent_not_found(tmp_path: Path) -> None:
    config = 'backend: "python"\nmodel_repository_agents { agents [ { name: "nope" } ] }\n'
    message = "unable to find 'libtritonrepoagent_nope.so' for repo agent 'nope', searched: "
    assert found(lint_config(tmp_path / "a", config), "TC124") == [
        ("2:44", "error", message + "/opt/tritonserver/repoagents")
    ]
    assert not found(lint_config(tmp_path / "cfg", config, repo_agents=("nope",)), "TC124")
    typo = lint_config(tmp_path / "t", config.replace("nope", "chcksum"))
    assert "did you mean 'checksum'?" in next(d.message for d in typo if d.code == "TC124")
    install = tmp_path / "tritonserver"
    bdir = backends(install / "backends", "python")
    (install / "repoagents" / "checksum").mkdir(parents=True)
    (install / "repoagents" / "checksum" / "libtritonrepoagent_checksum.so").write_text("")
    assert found(lint_config(tmp_path / "b", config, backend_dir=bdir), "TC124") == [
        ("2:44", "error", message + str(install / "repoagents"))
    ]
    checksum = config.replace("nope", "checksum")
    assert not found(lint_config(tmp_path / "c", checksum, backend_dir=bdir), "TC124")
    assert not found(lint_config(tmp_path / "d", checksum), "TC124")


def test_python_model_file_missing(tmp_path: Path) -> None:
    config = 'backend: "python"\n'
    diagnostics = lint_config(tmp_path, config, files={"1/model.py.bak": ""})
    expected = tmp_path / "repo" / "m" / "1" / "model.py"
    assert found(diagnostics, "TC125") == [
        ("1:1", "error", f"Python model file not found in '{expected}'")
    ]


def test_python_model_file_named_by_default_model_filename(tmp_path: Path) -> None:
    config = 'backend: "python"\ndefault_model_filename: "main.py"\n'
    diagnostics = lint_config(tmp_path, config, files={"1/model.py": ""})
    assert [(s, sev) for s, sev, _ in found(diagnostics, "TC125")] == [("2:25", "error")]
    ok = lint_config(tmp_path / "ok", config, files={"1/main.py": ""})
    assert not found(ok, "TC125")


def test_python_model_file_only_for_loaded_versions(tmp_path: Path) -> None:
    # the default policy loads the highest version only
    make_model(tmp_path, "m", 'backend: "python"\n', files={"2/model.py": ""}, versions=("1", "2"))
    assert not found(lint_repo(tmp_path), "TC125")
    make_model(
        tmp_path / "all",
        "m",
        'backend: "python"\nversion_policy { all {} }\n',
        files={"2/model.py": ""},
        versions=("1", "2"),
    )
    assert [m for _, _, m in found(lint_repo(tmp_path / "all"), "TC125")] == [
        f"Python model file not found in '{tmp_path / 'all' / 'm' / '1' / 'model.py'}'"
    ]


def test_python_based_backends_need_no_model_file(tmp_path: Path) -> None:
    config = 'backend: "vllm"\nruntime: "model.py"\n'
    assert not found(lint_config(tmp_path, config, files={}), "TC125")


def test_backends_and_repo_agents_settings(tmp_path: Path) -> None:
    from clikit import run

    config = 'backend: "mine"\nmodel_repository_agents { agents [ { name: "audit" } ] }\n'
    make_model(tmp_path / "repo", "m", config, files={"1/model.py": ""})
    failed = run("lint", str(tmp_path / "repo"))
    assert failed.returncode == 1 and "TC120" in failed.stdout and "TC124" in failed.stdout
    (tmp_path / "repo" / "tritoncfg.toml").write_text(
        'backends = ["mine"]\nrepo-agents = ["audit"]\n'
    )
    passed = run("lint", str(tmp_path / "repo"))
    assert passed.returncode == 0, passed.stdout
