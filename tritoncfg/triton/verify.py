"""`verify`: the repository loaded into a real Triton, model by model, beside tritoncfg's lint.

The server runs on a mirror of the repository (mirror.py), in explicit model-control mode, so
each model is loaded on its own and every verdict is seen; it is stopped on every way out.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from tritoncfg.api import LintResult, lint, load
from tritoncfg.checks import LintOptions
from tritoncfg.checks.core.context import TritonMode
from tritoncfg.checks.core.engine import report_order
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.processes.supervise import stop_on_signals
from tritoncfg.record import field, record
from tritoncfg.triton.load import DEFAULT_LOAD_TIMEOUT, LoadOutcome, load_model, unload_model
from tritoncfg.triton.locate import locate_server
from tritoncfg.triton.mirror import PathMap, mirror_repository
from tritoncfg.triton.process import ServerOptions, TritonServer
from tritoncfg.triton.verdict import (
    Context,
    ModelVerdict,
    errors_by_model,
    judge,
    triton_checked,
)
from tritoncfg.workspace import LoadedModel

Progress = Callable[[str, int, int], None]  # (what is happening, models done, models in all)


@record(frozen=True)
class VerifyOptions:
    tritonserver: Path | None = None
    backend_dir: Path | None = None  # the server's --backend-directory (and lint's)
    triton_mode: TritonMode = "default"  # strict: --disable-auto-complete-config
    gpus: tuple[int, ...] | None = None  # None: the GPUs this machine shows
    startup_timeout: float = 60.0
    load_timeout: float = DEFAULT_LOAD_TIMEOUT
    config_name: str | None = None  # the server's --model-config-name (and lint's)
    rate_limit: bool = False  # the server's --rate-limit=execution_count (and lint's)
    rate_limit_resources: tuple[tuple[str, int, int | None], ...] = ()  # --rate-limit-resource

    def server_args(self) -> tuple[str, ...]:
        """The tritonserver options that mirror these lint options."""
        args = [f"--model-config-name={self.config_name}"] if self.config_name else []
        if self.rate_limit:
            args.append("--rate-limit=execution_count")
        for name, count, device in self.rate_limit_resources:
            where = "" if device is None else f":{device}"
            args.append(f"--rate-limit-resource={name}:{count}{where}")
        return tuple(args)


@record(frozen=True)
class ServerInfo:
    binary: str
    origin: str
    version: str | None
    backend_dir: str

    def to_json(self) -> dict[str, str | None]:
        return {
            "binary": self.binary,
            "origin": self.origin,
            "version": self.version,
            "backend_dir": self.backend_dir,
        }


@record
class VerifyReport:
    lint: LintResult
    models: list[ModelVerdict]
    server: ServerInfo | None  # None when there was no model to load
    gpus: tuple[int, ...] = field(default_factory=tuple)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        found = [*self.lint.diagnostics, *(d for m in self.models for d in m.diagnostics)]
        return sorted(found, key=report_order)

    @property
    def rejected(self) -> list[ModelVerdict]:
        return [m for m in self.models if m.verified and m.triton_state != "READY"]

    @property
    def disagreements(self) -> list[ModelVerdict]:
        return [m for m in self.models if not m.agree]

    @property
    def exit_code(self) -> int:
        """0: every model Triton could judge loaded, and tritoncfg agrees; 1 otherwise."""
        return 1 if self.rejected or self.disagreements else 0


def visible_gpus() -> tuple[int, ...]:
    """The GPU ids this machine shows (`/dev/nvidiaN`, narrowed by CUDA_VISIBLE_DEVICES)."""
    devices = [p.name.removeprefix("nvidia") for p in Path("/dev").glob("nvidia*")]
    count = sum(name.isdigit() for name in devices)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        listed = [v for v in visible.split(",") if v.strip() and not v.strip().startswith("-")]
        count = min(count, len(listed))
    return tuple(range(count))


def server_version(text: str | None) -> tuple[int, int] | None:
    found = re.match(r"(\d+)\.(\d+)", text or "")
    return (int(found[1]), int(found[2])) if found else None


def check_models(
    server: TritonServer,
    models: Sequence[LoadedModel],
    diagnostics: Sequence[Diagnostic],
    *,
    rewrite: Callable[[str], str] = str,
    progress: Progress | None = None,
    load_timeout: float = DEFAULT_LOAD_TIMEOUT,
    while_loaded: Callable[[LoadedModel], None] | None = None,
) -> list[ModelVerdict]:
    """Load each model on its own (unloading it after) and judge it against its lint findings.

    `while_loaded` is called for each model that loaded, before it is unloaded."""
    outcomes: dict[str, LoadOutcome] = {}
    for index, model in enumerate(models):
        if progress is not None:
            progress(f"loading {model.name}", index, len(models))
        outcome = load_model(server, model.name, timeout=load_timeout, rewrite=rewrite)
        outcomes[model.name] = outcome
        if outcome.loaded and while_loaded is not None:
            while_loaded(model)
        unload_model(server, model.name)
    if progress is not None:
        progress("stopping tritonserver", len(models), len(models))
    version = server_version(server.version())
    findings = errors_by_model(diagnostics, models)
    rejects = frozenset(name for name, found in findings.items() if any(map(triton_checked, found)))
    ctx = Context(outcomes, rejects, server.distribution.backend_dir, version)
    return [judge(m, outcomes[m.name], findings[m.name], ctx) for m in models]


def verify(
    path: Path, options: VerifyOptions | None = None, progress: Progress | None = None
) -> VerifyReport:
    """Lint `path`, then load every model into a tritonserver of our own. Raises ServerNotFound
    or ServerStartError (from locate / process) when no server can be run."""
    options = options or VerifyOptions()
    gpus = visible_gpus() if options.gpus is None else options.gpus
    lint_options = LintOptions(
        triton_mode=options.triton_mode,
        gpus=gpus,
        backend_dir=options.backend_dir,
        config_name=options.config_name,
        rate_limit=options.rate_limit,
        rate_limit_resources=options.rate_limit_resources,
    )
    result = lint(path, lint_options)
    workspace = load(path, config_name=options.config_name)
    if not workspace.models:
        return VerifyReport(result, [], None, gpus)
    distribution = locate_server(options.tritonserver, options.backend_dir)
    root = workspace.repositories[0].root
    server_options = ServerOptions(
        strict=options.triton_mode == "strict",
        startup_timeout=options.startup_timeout,
        extra_args=options.server_args(),
    )
    with tempfile.TemporaryDirectory(prefix="tritoncfg-verify-") as tmp, stop_on_signals():
        work = Path(tmp)
        mirror = mirror_repository(root, work / "repository")
        if progress is not None:
            progress(
                f"starting {distribution.binary.name} ({distribution.origin})",
                0,
                len(workspace.models),
            )
        with TritonServer.start(distribution, mirror, work, server_options) as server:
            rewrite = PathMap(mirror, root)
            verdicts = check_models(
                server,
                workspace.models,
                result.diagnostics,
                rewrite=rewrite,
                progress=progress,
                load_timeout=options.load_timeout,
            )
            info = ServerInfo(
                str(distribution.binary),
                distribution.origin,
                server.version(),
                str(distribution.backend_dir),
            )
    return VerifyReport(result, verdicts, info, gpus)
