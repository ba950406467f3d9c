"""Finding a `tritonserver` to run: --tritonserver, PATH, the NGC container, or nvidia-pytriton.

The NGC container (`/opt/tritonserver`) has every backend, GPU ones included. The `nvidia-pytriton`
wheel (extra `tritoncfg[triton]`) bundles a Triton 2.51 server with the python backend only; it
runs on a CPU-only machine once laid out the way pytriton itself lays it out: the python backend
stub for the interpreter's version copied into a backends folder, the wheel's vendored libraries
on LD_LIBRARY_PATH, and the wheel's virtual environment first on PATH (the stub's interpreter
finds its site-packages, numpy<2 included, through it).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from tritoncfg.record import field, record

NGC_ROOT = Path("/opt/tritonserver")
PYTHON_STUB = "triton_python_backend_stub"
PYTRITON = "nvidia-pytriton"


class ServerNotFound(Exception):
    """No usable tritonserver; the message says where tritoncfg looked and what to do."""


@record(frozen=True)
class ServerDistribution:
    """A tritonserver binary and what it needs around it to run."""

    binary: Path
    origin: str  # how it was found, for messages: "--tritonserver", "PATH", ...
    backend_dir: Path  # Triton's --backend-directory (prepared into a work dir for pytriton)
    cache_dir: Path | None = None
    env: dict[str, str] = field(default_factory=dict)  # set on top of os.environ
    python_stub: Path | None = None  # pytriton: copied into <backends>/python/ before start

    def prepare(self, workdir: Path) -> Path:
        """The backend directory to start with: pytriton's backends copied beside its stub."""
        if self.python_stub is None:
            return self.backend_dir
        target = workdir / "backends"
        shutil.copytree(self.backend_dir, target, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(self.python_stub, target / "python" / PYTHON_STUB)
        return target

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        for key, value in self.env.items():
            env[key] = (
                f"{value}{os.pathsep}{env[key]}" if key in _PATH_LISTS and env.get(key) else value
            )
        return env


_PATH_LISTS = ("PATH", "LD_LIBRARY_PATH")


def _pytriton_layout(binary: Path, origin: str) -> ServerDistribution | None:
    """`<site-packages>/pytriton/tritonserver/bin/tritonserver`, with its stubs and libraries."""
    server_root = binary.parent.parent
    stubs = server_root / "python_backend_stubs"
    if not stubs.is_dir():
        return None
    site_packages = server_root.parent.parent
    python_dir = site_packages.parent  # <venv>/lib/python3.11
    version = python_dir.name.removeprefix("python")
    if not (stubs / version / PYTHON_STUB).is_file():
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
    stub = stubs / version / PYTHON_STUB
    if not stub.is_file():
        raise ServerNotFound(
            f"{binary}: nvidia-pytriton has no python backend stub for Python {version} in {stubs}"
        )
    env: dict[str, str] = {}
    libs = site_packages / "nvidia_pytriton.libs"
    if libs.is_dir():
        env["LD_LIBRARY_PATH"] = str(libs)
    venv_bin = python_dir.parent.parent / "bin"
    if (venv_bin / "python").exists():
        env["PATH"] = str(venv_bin)
    caches = server_root / "caches"
    return ServerDistribution(
        binary,
        origin if origin == PYTRITON else f"{origin} ({PYTRITON})",
        server_root / "backends",
        caches if caches.is_dir() else None,
        env,
        stub,
    )


def _distribution(binary: Path, origin: str, backend_dir: Path | None) -> ServerDistribution:
    found = _pytriton_layout(binary, origin)
    if found is None:
        beside = binary.parent.parent / "backends"
        default = beside if beside.is_dir() else NGC_ROOT / "backends"
        found = ServerDistribution(binary, origin, default)
    if backend_dir is not None:
        found = ServerDistribution(
            found.binary, found.origin, backend_dir, found.cache_dir, found.env, None
        )
    return found


def _installed_pytriton() -> Path | None:
    try:
        spec = importlib.util.find_spec("pytriton")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = (
        Path(next(iter(spec.submodule_search_locations))) / "tritonserver" / "bin" / "tritonserver"
    )
    return binary if binary.is_file() else None


def locate_server(
    tritonserver: Path | None = None, backend_dir: Path | None = None
) -> ServerDistribution:
    """The server to run. Raises ServerNotFound (with what was tried) when there is none."""
    if tritonserver is not None:
        binary = Path(shutil.which(str(tritonserver)) or tritonserver)
        if not binary.is_file() or not os.access(binary, os.X_OK):
            raise ServerNotFound(f"--tritonserver {tritonserver}: not an executable file")
        return _distribution(binary.resolve(), "--tritonserver", backend_dir)
    on_path = shutil.which("tritonserver")
    if on_path is not None:
        return _distribution(Path(on_path).resolve(), "PATH", backend_dir)
    ngc = NGC_ROOT / "bin" / "tritonserver"
    if ngc.is_file():
        return _distribution(ngc, str(NGC_ROOT), backend_dir)
    pytriton = _installed_pytriton()
    if pytriton is not None:
        return _distribution(pytriton, PYTRITON, backend_dir)
    raise ServerNotFound(
        "no tritonserver found (looked for --tritonserver, PATH, "
        f"{ngc} and an installed nvidia-pytriton); install one with "
        "`pip install 'tritoncfg[triton]'`, run inside the NGC Triton container, "
        "or pass --tritonserver BIN"
    )
