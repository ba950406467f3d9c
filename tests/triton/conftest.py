"""A real Triton for the tests: Triton 2.51 from `nvidia-pytriton`, in its own virtual environment.

The environment is built once from the package registry (about 30 s to 3 min) and reused
across runs (a marker file records what it holds); a lock keeps two sessions from building it at
once. One server serves the whole session: explicit model control, HTTP and gRPC on 127.0.0.1.
Every test that needs it skips, saying why, when it cannot be set up. TRITONCFG_NO_TRITON=1
skips them on purpose; TRITONCFG_TEST_TRITON_VENV puts the environment elsewhere.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tritoncfg.triton.locate import ServerDistribution, ServerNotFound, locate_server
from tritoncfg.triton.process import ServerOptions, ServerStartError, TritonServer

sys.path.insert(0, str(Path(__file__).resolve().parent))  # triton_cases.py, beside the tests

ROOT = Path(__file__).resolve().parents[2]
PYTRITON = "nvidia-pytriton==0.7.0"
# the server's python stub needs numpy<2 (nvidia-pytriton's stub was built against numpy 1.x)
REQUIREMENTS = (PYTRITON, "numpy<2")
VENV = Path(
    os.environ.get(
        "TRITONCFG_TEST_TRITON_VENV",
        Path(tempfile.gettempdir()) / "tritoncfg-test-triton-venv-0.7.0",
    )
)
MARKER = ".tritoncfg-test-ready"
BUILD_TIMEOUT = 600


def _tritoncfg_requirements() -> list[str]:
    """tritoncfg's own runtime dependencies, so that the CLI runs in that environment too (as it
    would for a user who installed tritoncfg[triton,server]); tritoncfg itself comes from
    PYTHONPATH, never installed there."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"])


def _wanted() -> str:
    return "\n".join((*REQUIREMENTS, *_tritoncfg_requirements())) + "\n"


def _build_venv() -> None:
    """Create or reuse VENV; raises RuntimeError with pip's last words when it cannot."""
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV.parent / f"{VENV.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = VENV / MARKER
        if marker.is_file() and marker.read_text(encoding="utf-8") == _wanted():
            return
        python = VENV / "bin" / "python"
        steps = [
            [sys.executable, "-m", "venv", "--clear", str(VENV)],
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             *_wanted().split("\n")[:-1]],
        ]  # fmt: skip
        for step in steps:
            try:
                done = subprocess.run(
                    step, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
                )
            except subprocess.TimeoutExpired:
                raise RuntimeError(f"{' '.join(step[:4])}... took over {BUILD_TIMEOUT} s") from None
            if done.returncode != 0:
                tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
                raise RuntimeError(f"{' '.join(step[:4])}... failed:\n{tail}")
        marker.write_text(_wanted(), encoding="utf-8")


@dataclass(frozen=True)
class TritonEnv:
    """The environment with the server: its python (for CLI runs) and the server binary."""

    venv: Path
    distribution: ServerDistribution

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def server_args(self) -> tuple[str, ...]:
        """This server for `verify`, whatever else is on PATH."""
        return ("--tritonserver", str(self.distribution.binary))

    def start_or_skip(
        self, repository: Path, work: Path, options: ServerOptions | None = None
    ) -> TritonServer:
        """A server on `repository`; the test is skipped when none starts on this machine."""
        try:
            return TritonServer.start(
                self.distribution, repository, work, options or ServerOptions()
            )
        except ServerStartError as exc:
            pytest.skip(f"the Triton server does not start here: {exc}")

    def run_cli(
        self, *args: str, cwd: Path | None = None, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        """`python -m tritoncfg ARGS` in that environment, this checkout on PYTHONPATH."""
        env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PYTHONPATH")}
        env.update(NO_COLOR="1", PYTHONPATH=str(ROOT))
        return subprocess.run(
            [str(self.python), "-m", "tritoncfg", *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="session")
def triton_env() -> TritonEnv:
    if os.environ.get("TRITONCFG_NO_TRITON"):
        pytest.skip("TRITONCFG_NO_TRITON is set: tests with a real Triton are off")
    if not sys.platform.startswith("linux"):
        pytest.skip("the nvidia-pytriton server runs on Linux only")
    try:
        _build_venv()
    except (RuntimeError, OSError) as exc:
        pytest.skip(f"cannot set up a Triton server ({PYTRITON} in {VENV}): {exc}")
    site = next((VENV / "lib").glob("python3*/site-packages"), None)
    binary = None if site is None else site / "pytriton" / "tritonserver" / "bin" / "tritonserver"
    try:
        distribution = locate_server(binary)
    except ServerNotFound as exc:
        pytest.skip(f"cannot set up a Triton server: {exc}")
    return TritonEnv(VENV, distribution)


@dataclass
class SharedServer:
    """The session's server and the repository it serves (tests lay models out in it)."""

    server: TritonServer
    repository: Path
    env: TritonEnv
    work: Path

    def restart(self) -> list[str]:
        """Start a fresh server on the same repository after this one died; returns the last
        lines the dead one logged (what it was doing when it went)."""
        tail = self.server.log.tail(30)
        self.server.stop()
        work = Path(tempfile.mkdtemp(prefix="restart-", dir=self.work))  # its own backends/ copy
        self.server = self.env.start_or_skip(self.repository, work, ServerOptions(grpc=True))
        return tail

    def clear(self) -> None:
        """Empty the repository (the models already unloaded stay unloaded)."""
        import shutil

        for entry in self.repository.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


@pytest.fixture(scope="session")
def triton_server(
    triton_env: TritonEnv, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedServer]:
    work = tmp_path_factory.mktemp("triton-server")
    repository = work / "repository"
    repository.mkdir()
    shared = SharedServer(
        triton_env.start_or_skip(repository, work, ServerOptions(grpc=True)),
        repository,
        triton_env,
        work,
    )
    try:
        yield shared
    finally:
        shared.server.stop()  # the one running now (restart() replaces a server that died)
