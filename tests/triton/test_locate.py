"""Finding the server, laying out pytriton's, the mirror repository, free ports (no server run)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tritoncfg.triton import locate
from tritoncfg.triton.locate import PYTHON_STUB, ServerNotFound, locate_server
from tritoncfg.triton.mirror import PathMap, mirror_repository
from tritoncfg.triton.ports import LOOPBACK, free_ports


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def fake_pytriton(root: Path) -> Path:
    """The nvidia-pytriton wheel's layout in a venv, with empty files."""
    site = root / "venv" / "lib" / "python3.11" / "site-packages"
    server = site / "pytriton" / "tritonserver"
    executable(root / "venv" / "bin" / "python")
    (server / "backends" / "python").mkdir(parents=True)
    (server / "backends" / "python" / "libtriton_python.so").touch()
    (server / "caches" / "local").mkdir(parents=True)
    (server / "python_backend_stubs" / "3.11").mkdir(parents=True)
    (server / "python_backend_stubs" / "3.11" / PYTHON_STUB).touch()
    (site / "nvidia_pytriton.libs").mkdir()
    return executable(server / "bin" / "tritonserver")


def test_pytriton_layout_is_recognised(tmp_path: Path) -> None:
    binary = fake_pytriton(tmp_path)
    found = locate_server(binary)
    assert found.origin == "--tritonserver (nvidia-pytriton)"
    assert found.backend_dir == binary.parent.parent / "backends"
    assert found.cache_dir == binary.parent.parent / "caches"
    assert found.env["PATH"] == str(tmp_path / "venv" / "bin")
    assert found.env["LD_LIBRARY_PATH"].endswith("nvidia_pytriton.libs")
    prepared = found.prepare(tmp_path / "work")
    assert (prepared / "python" / PYTHON_STUB).is_file()
    assert (prepared / "python" / "libtriton_python.so").is_file()
    assert not (found.backend_dir / "python" / PYTHON_STUB).exists()  # the wheel is not changed


def test_environment_puts_the_venv_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin")
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    env = locate_server(fake_pytriton(tmp_path)).environment()
    assert env["PATH"] == f"{tmp_path / 'venv' / 'bin'}{os.pathsep}/usr/bin"
    assert env["LD_LIBRARY_PATH"].endswith("nvidia_pytriton.libs")


def test_a_plain_server_uses_the_backends_beside_it(tmp_path: Path) -> None:
    binary = executable(tmp_path / "opt" / "bin" / "tritonserver")
    (tmp_path / "opt" / "backends").mkdir()
    found = locate_server(binary)
    assert (found.backend_dir, found.python_stub, found.env) == (
        tmp_path / "opt" / "backends",
        None,
        {},
    )
    assert found.prepare(tmp_path / "work") == found.backend_dir


def test_backend_dir_overrides(tmp_path: Path) -> None:
    found = locate_server(fake_pytriton(tmp_path), tmp_path / "mine")
    assert found.backend_dir == tmp_path / "mine" and found.python_stub is None


def test_not_an_executable(tmp_path: Path) -> None:
    (tmp_path / "tritonserver").write_text("")
    with pytest.raises(ServerNotFound, match="not an executable"):
        locate_server(tmp_path / "tritonserver")
    with pytest.raises(ServerNotFound, match="not an executable"):
        locate_server(tmp_path / "absent")


def test_nothing_found_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(locate, "NGC_ROOT", tmp_path / "no-ngc")
    monkeypatch.setattr(locate, "_installed_pytriton", lambda: None)
    with pytest.raises(ServerNotFound) as caught:
        locate_server()
    assert "tritoncfg[triton]" in str(caught.value) and "--tritonserver" in str(caught.value)


def test_found_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = executable(tmp_path / "bin" / "tritonserver")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert locate_server().binary == binary.resolve()


def test_mirror_links_files_and_copies_folders(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "m" / "1").mkdir(parents=True)
    (repo / "m" / "config.pbtxt").write_text('backend: "python"\n')
    (repo / "m" / "1" / "model.py").write_text("pass\n")
    (repo / ".git" / "objects").mkdir(parents=True)
    mirror = mirror_repository(repo, tmp_path / "mirror")
    assert (mirror / "m" / "1").is_dir() and not (mirror / "m" / "1").is_symlink()
    assert (mirror / "m" / "1" / "model.py").is_symlink()
    assert (mirror / "m" / "config.pbtxt").read_text() == 'backend: "python"\n'
    assert (mirror / ".git").is_symlink()  # hidden top-level folders are linked whole
    (mirror / "m" / "1" / "__pycache__").mkdir()  # what the python backend writes
    assert not (repo / "m" / "1" / "__pycache__").exists()
    rewrite = PathMap(mirror, repo)
    assert (
        rewrite(f"failed to read {mirror}/m/config.pbtxt")
        == f"failed to read {repo}/m/config.pbtxt"
    )


def test_free_ports_are_distinct_and_bindable() -> None:
    ports = free_ports(3)
    assert len(set(ports)) == 3
    for port in ports:
        with socket.socket() as sock:
            sock.bind((LOOPBACK, port))
