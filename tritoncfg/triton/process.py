"""Running one `tritonserver` of our own: explicit model control, 127.0.0.1, free ports, its own
temp folder, and always stopped (process group), whatever way the caller leaves.

    with TritonServer.start(distribution, repository, workdir) as server:
        server.http.load("m")
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from tritoncfg.processes.supervise import exited, signal_group
from tritoncfg.record import field, record
from tritoncfg.triton.locate import ServerDistribution
from tritoncfg.triton.logs import LogTail
from tritoncfg.triton.ports import LOOPBACK, free_ports
from tritoncfg.triton.rest import TritonHTTP, TritonHTTPError

START_ATTEMPTS = 3  # a port taken between choosing it and binding it: try new ones
STOP_GRACE_SECONDS = 7.0  # Triton waits up to EXIT_TIMEOUT_SECONDS for models itself
EXIT_TIMEOUT_SECONDS = 5  # Triton's own wait for models to unload on shutdown
SHARED_MEMORY = Path("/dev/shm")
STUB_REGION_PREFIX = "triton_python_backend_shm_region_"
# what tritonserver logs when it cannot serve: `E... tritonserver.cc:NNNN] "Internal: ..."`
_STARTUP_ERROR = re.compile(r"^(E\d{4} .*\btritonserver\.cc:\d+\]|error: creating server)")


class ServerStartError(Exception):
    """The server exited or never became live; the message ends with its last log lines."""


@record(frozen=True)
class ServerOptions:
    strict: bool = False  # --disable-auto-complete-config
    grpc: bool = False  # also serve gRPC (diff --server tests)
    metrics: bool = False  # serve Prometheus metrics on 127.0.0.1 (bench/batcher_vs_triton.py)
    startup_timeout: float = 60.0
    extra_args: tuple[str, ...] = ()


@record
class TritonServer:
    process: subprocess.Popen[bytes]
    distribution: ServerDistribution
    backend_dir: Path
    repository: Path
    log: LogTail
    http_port: int
    grpc_port: int | None
    metrics_port: int | None = None
    http: TritonHTTP = field(init=False)

    def __post_init__(self) -> None:
        self.http = TritonHTTP(f"http://{LOOPBACK}:{self.http_port}")

    @property
    def url(self) -> str:
        return self.http.base_url

    @property
    def metrics_url(self) -> str | None:
        """Prometheus metrics, when started with `ServerOptions(metrics=True)`."""
        return (
            None if self.metrics_port is None else f"http://{LOOPBACK}:{self.metrics_port}/metrics"
        )

    def version(self) -> str | None:
        """The server's release, `2.51.0` (None when it does not say)."""
        try:
            found = self.http.metadata().get("version")
        except TritonHTTPError:
            return None
        return None if found is None else str(found)

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not exited(self.process.pid)

    @classmethod
    def start(
        cls,
        distribution: ServerDistribution,
        repository: Path,
        workdir: Path,
        options: ServerOptions | None = None,
    ) -> TritonServer:
        options = options or ServerOptions()
        backend_dir = distribution.prepare(workdir)
        error = ServerStartError("not started")
        for attempt in range(START_ATTEMPTS):
            log_path = workdir / f"tritonserver-{attempt}.log"
            server = cls._spawn(distribution, backend_dir, repository, log_path, options)
            try:
                server._wait_live(options.startup_timeout)
            except ServerStartError as exc:
                server.stop()
                error = exc
                if "address already in use" not in str(exc).lower():
                    break
                continue
            except BaseException:
                server.stop()
                raise
            return server
        raise error

    @classmethod
    def _spawn(
        cls,
        distribution: ServerDistribution,
        backend_dir: Path,
        repository: Path,
        log_path: Path,
        options: ServerOptions,
    ) -> TritonServer:
        http_port, grpc_port, metrics_port = free_ports(3)
        args = [
            str(distribution.binary),
            f"--model-repository={repository}",
            f"--backend-directory={backend_dir}",
            "--model-control-mode=explicit",
            "--exit-on-error=false",
            "--strict-readiness=false",
            f"--exit-timeout-secs={EXIT_TIMEOUT_SECONDS}",
            f"--http-address={LOOPBACK}",
            f"--http-port={http_port}",
            "--log-info=true",
        ]
        if options.metrics:  # counters only: no GPU here, and CPU metrics would poll /proc
            args += ["--allow-metrics=true", "--allow-gpu-metrics=false", "--allow-cpu-metrics=false",
                     f"--metrics-address={LOOPBACK}", f"--metrics-port={metrics_port}"]  # fmt: skip
        else:
            args.append("--allow-metrics=false")
        if options.grpc:
            args += [f"--grpc-address={LOOPBACK}", f"--grpc-port={grpc_port}"]
        else:
            args.append("--allow-grpc=false")
        if distribution.cache_dir is not None:
            args.append(f"--cache-directory={distribution.cache_dir}")
        if options.strict:
            args.append("--disable-auto-complete-config")
        args += options.extra_args
        with log_path.open("wb") as log_file:
            process = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                env=distribution.environment(),
                cwd=log_path.parent,
                start_new_session=True,  # its own process group: stopped with its python stubs
            )
        return cls(
            process,
            distribution,
            backend_dir,
            repository,
            LogTail(log_path),
            http_port,
            grpc_port if options.grpc else None,
            metrics_port if options.metrics else None,
        )

    def _wait_live(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                raise ServerStartError(self._failure(f"exited with status {code} while starting"))
            if self.http.live():
                return
            fatal = next((line for line in self.log.read() if _STARTUP_ERROR.match(line)), None)
            if fatal is not None:  # e.g. an unreadable repository: it stays up, never live
                raise ServerStartError(self._failure("could not start"))
            time.sleep(0.05)
        raise ServerStartError(self._failure(f"was not live after {timeout:.0f} s"))

    def _failure(self, what: str) -> str:
        lines = [line for line in self.log.tail(15) if line.strip()]
        shown = "\n".join(f"  | {line}" for line in lines) or "  | (no output)"
        return f"{self.distribution.binary} ({self.distribution.origin}) {what}; its log ends:\n{shown}"

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL to what is left after a grace period (or at a
        second Ctrl-C). The server is reaped last, so its process group id cannot have been
        reused by then."""
        if self.process.returncode is not None:
            return  # reaped while starting: it never loaded a model, so it has no stubs
        pgid = self.process.pid
        signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        try:
            while not exited(pgid) and time.monotonic() < deadline:
                time.sleep(0.05)
        except KeyboardInterrupt:
            pass
        finally:
            regions = _stub_regions(pgid)
            signal_group(pgid, signal.SIGKILL)  # python stubs, or a server that hung
            self.process.wait()
            for region in regions:  # a killed server leaves its stubs' shared memory behind
                with suppress(OSError):
                    (SHARED_MEMORY / region).unlink()

    def __enter__(self) -> TritonServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _stub_regions(pgid: int) -> list[str]:
    """The shared-memory regions (/dev/shm) of the python backend stubs still in the group:
    `triton_python_backend_stub <model.py> <region> ...`."""
    found: list[str] = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            group = int(stat.read_text().rsplit(")", 1)[1].split()[2])
            if group != pgid:
                continue
            args = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        found += [a.decode() for a in args if a.startswith(STUB_REGION_PREFIX.encode())]
    return found
