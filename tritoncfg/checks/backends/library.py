"""TC120-TC125: BACKEND_CREATE. Finding the backend library (`TritonModel::
GetBackendLibraryProperties` in backend_model.cc, which also finds Python-based backends) and the
python backend's model file.

Whether a library exists on the serving host is known only with `--backend-dir`; without it, the
host is taken to have what NGC's containers ship plus the `backends` and `runtimes` settings, and
what is in none of them is an error that names Triton's default `/opt/tritonserver/backends` (a
gate never passes what Triton refuses). Lookups in the model directory use discovery's entries; the
backend directory (outside the repository) is only probed for existence, never read."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.complete.autofill import ENSEMBLE
from tritoncfg.diagnostics import Severity
from tritoncfg.workspace import LoadedModel

PHASE = Phase.BACKEND_CREATE
DEFAULT_BACKEND_DIR = "/opt/tritonserver/backends"  # tritonserver --backend-directory
DEFAULT_REPOAGENT_DIR = "/opt/tritonserver/repoagents"  # tritonserver --repoagent-directory
PYTHON_RUNTIME = "model.py"  # kPythonFilename: marks a Python-based backend
# Backends shipped in NGC tritonserver containers: without --backend-dir they are assumed there.
STANDARD_BACKENDS = frozenset(
    {"dali", "fil", "identity", "onnxruntime", "openvino", "python", "pytorch", "repeat",
     "square", "tensorflow", "tensorrt", "tensorrtllm", "vllm"}
)  # fmt: skip
STANDARD_REPOAGENTS = frozenset({"checksum"})
PASS_BACKEND_DIR = "pass --backend-dir to check the serving host's backends"
UNKNOWN_HINT = (
    "pass --backend-dir, or list the backends the serving host has besides the standard ones in "
    "[tool.tritoncfg] backends"
)


def known_backends(ctx: CheckContext) -> frozenset[str]:
    """The backends assumed installed without --backend-dir: NGC's and the configured ones."""
    return STANDARD_BACKENDS | frozenset(ctx.options.backends)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean 'onnxruntime'?` for a near miss, else empty."""
    from tritoncfg.schema.lookup import suggest

    hint = suggest(name, sorted(known))
    return f"; did you mean '{hint}'?" if hint else ""


def library_name(backend: str) -> str:
    return f"libtriton_{backend}.so"


def _escapes(runtime: str) -> bool:
    """Whether joining `runtime` to a directory leaves it (Triton's JoinPath drops a leading /)."""
    normal = os.path.normpath(runtime.lstrip("/"))
    return normal == ".." or normal.startswith("../")


def exists_on_host(path: Path) -> bool:
    """Existence of a file under --backend-dir (access(F_OK), as Triton's FileExists)."""
    return os.path.lexists(path)


class _Search:
    """Triton's library search for one version: `<model>/<v>`, `<model>`, `<backends>/<b>`."""

    def __init__(self, model: LoadedModel, ctx: CheckContext, version: int | None) -> None:
        self.model = model
        self.version = version
        self.backend = ctx.config(model).backend
        self.backend_dir = ctx.options.backend_dir
        self.backends = str(self.backend_dir) if self.backend_dir else DEFAULT_BACKEND_DIR
        self.name = ctx.completion(model).name

    @property
    def paths(self) -> list[str]:
        model_path = str(self.model.dir.path)
        first = [] if self.version is None else [f"{model_path}/{self.version}"]
        return [*first, model_path, f"{self.backends}/{self.backend}"]

    def in_model(self, name: str) -> bool:
        """`name` (a plain file name) in the version directory or the model directory."""
        found = self.model.dir.entry(name) is not None
        if self.version is not None:
            entry = self.model.dir.version(self.version)
            # Triton joins `<model>/<number>`, so only the canonical directory counts
            if entry is not None and entry.dirname_is_canonical and entry.entry(name) is not None:
                found = True
        return found

    def in_backends(self, *parts: str) -> bool | None:
        """Existence under --backend-dir; None when it was not given."""
        if self.backend_dir is None:
            return None
        return exists_on_host(self.backend_dir.joinpath(*parts))

    def not_found(self, libname: str, extra: tuple[str, ...] = ()) -> str:
        searched = "".join(f"'{p}' " for p in (*self.paths, *extra))
        return f"unable to find backend library '{libname}' for model '{self.name}', searched: {searched}"


def _searches(model: LoadedModel, ctx: CheckContext) -> list[_Search]:
    """One search per version Triton loads (or one without a version when it loads none)."""
    config = ctx.config(model)
    if not config.backend or config.platform == ENSEMBLE:
        return []
    selected = ctx.versions(model).selected
    return [_Search(model, ctx, v) for v in (selected or (None,))]


@model_rule(
    "TC120",
    severity=Severity.ERROR,
    summary="No library (libtriton_<backend>.so) or Python-based backend found for the backend.",
    phase=PHASE,
)
def backend_library_not_found(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a backend with no `runtime` for which Triton finds neither
    `libtriton_<backend>.so` (in the version directory, the model directory and
    `<backend-dir>/<backend>/`) nor a Python-based backend `<backend-dir>/<backend>/model.py`.
    Checked with `--backend-dir`; without it, a backend that is neither one NGC containers ship
    nor listed in `[tool.tritoncfg] backends`, and whose library is not in the model directory,
    is reported too, with a did-you-mean (`onxruntime` -> `onnxruntime`).

    ## Why it matters
    Triton fails the load: `unable to find backend library for backend 'unknown', try
    specifying runtime on the model configuration.` A misspelled `backend` ends up here.

    ## Example
    ```text
    backend: "onnxruntme"
    ```

    ## Fix
    ```text
    backend: "onnxruntime"
    ```
    """
    config = ctx.config(model)
    if config.runtime:
        return
    if ctx.options.backend_dir is None and config.backend in known_backends(ctx):
        return  # assumed installed on the host: no search can find it missing
    for search in _searches(model, ctx):
        lib = library_name(search.backend)
        if search.in_model(lib):
            continue
        found = search.in_backends(search.backend, lib) or search.in_backends(
            search.backend, PYTHON_RUNTIME
        )
        known = known_backends(ctx)
        if found or (found is None and search.backend in known):
            continue
        where = f"{search.backends}/{search.backend}"
        hint = did_you_mean(search.backend, known)
        yield Finding(
            f"backend '{search.backend}' has no {lib} in the model directory or '{where}/', and "
            f"no Python-based backend ('{where}/model.py'){hint or '; check the spelling of `backend`'}"
            + ("" if found is False else f" (it is not a standard backend; {UNKNOWN_HINT})"),
            at(model, "backend", value=True),
            # a per-version load error: Triton logs it with its status code
            triton_message=f"Invalid argument: unable to find backend library for backend "
            f"'{search.backend}', try specifying runtime on the model configuration.",
        )
        return  # the same for every version


@model_rule(
    "TC121",
    severity=Severity.ERROR,
    summary="The library named by `runtime` is not in any directory Triton searches.",
    phase=PHASE,
)
def runtime_library_not_found(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `runtime` library that is in none of Triton's search directories: the version
    directory, the model directory and `<backend-dir>/<backend>/`. For a Python-based backend
    (`runtime: "model.py"`) the library searched is `libtriton_python.so`, also in
    `<backend-dir>/python/` (the backend's `model.py` itself is TC123).
    Without `--backend-dir`, a runtime missing from the version and model directories is an
    error too: the backend folders NGC containers ship hold only `libtriton_<backend>.so`
    (which passes). A library installed on the serving host beside a backend is declared in
    `[tool.tritoncfg] runtimes` (`runtimes = ["libtriton_custom.so"]`), or checked with
    `--backend-dir`.

    ## Why it matters
    Triton fails the load (`TritonModel::GetBackendLibraryProperties` in `backend_model.cc`):
    `unable to find backend library '__invalid_runtime__' for model 'm', searched:
    '/models/m/1' '/models/m' '/opt/tritonserver/backends/identity' `.

    ## Example
    ```pbtxt
    backend: "identity"
    runtime: "__invalid_runtime__"
    ```

    ## Fix
    ```pbtxt
    backend: "identity"
    ```
    """
    runtime = ctx.config(model).runtime
    if not runtime or _escapes(runtime):
        return  # TC122
    for search in _searches(model, ctx):
        python_based = runtime == PYTHON_RUNTIME
        lib = library_name("python") if python_based else runtime
        extra = (f"{search.backends}/python",) if python_based else ()
        if search.in_model(lib):
            continue
        found = search.in_backends(search.backend, lib)
        if python_based and not found:
            found = search.in_backends("python", lib)
        if found or (found is None and (python_based or lib == library_name(search.backend))):
            continue
        if found is None and runtime in ctx.options.runtimes:
            continue  # declared installed on the host
        where = f"'{search.backends}/{search.backend}/'"
        yield Finding(
            f"runtime '{runtime}' is not in the model directory"
            + (
                f" or {where}; fix `runtime` or remove it"
                if found is False
                else f", so Triton must find it in {where} on the serving host (NGC's containers "
                "have no such library): fix or remove `runtime`, or put the library in the model "
                f"directory; if the host has it, {PASS_BACKEND_DIR} or list it in "
                "[tool.tritoncfg] runtimes"
            ),
            at(model, "runtime", value=True),
            triton_message=search.not_found(lib, extra),
        )
        return


@model_rule(
    "TC122",
    severity=Severity.ERROR,
    summary="A `runtime` path with `..` that leaves the directory it is searched in.",
    phase=PHASE,
)
def runtime_escapes_backend_directory(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `runtime` whose `..` components lead out of the directory Triton joins it to.

    ## Why it matters
    Triton refuses libraries outside its search directories: `backend library name
    '../dummy_runtime/libtriton_identity.so' escapes backend directory '/models/m/1', for model
    'm', check model config runtime field` (or, if the file does not exist, `unable to find
    backend library ...`).

    ## Example
    ```pbtxt
    backend: "identity"
    runtime: "../lib/libtriton_identity.so"
    ```

    ## Fix
    ```pbtxt
    backend: "identity"
    runtime: "libtriton_identity.so"
    ```
    """
    runtime = ctx.config(model).runtime
    if not runtime or not _escapes(runtime):
        return
    for search in _searches(model, ctx):
        yield Finding(
            f"runtime '{runtime}' leads out of the directory Triton searches it in; put the "
            "library in the model directory or the backend directory and name it without '..'",
            at(model, "runtime", value=True),
            triton_message=f"backend library name '{runtime}' escapes backend directory "
            f"'{search.paths[0]}', for model '{search.name}', check model config runtime field",
        )
        return


def _repoagent_dir(ctx: CheckContext) -> Path | None:
    """Triton's --repoagent-directory beside --backend-dir, as in its install layout."""
    if ctx.options.backend_dir is None:
        return None
    candidate = ctx.options.backend_dir.parent / "repoagents"
    return candidate if candidate.is_dir() else None


@model_rule(
    "TC124",
    severity=Severity.ERROR,
    summary="A model repository agent whose library libtritonrepoagent_<name>.so is not installed.",
    phase=PHASE,
)
def repo_agent_not_found(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports each `model_repository_agents` agent whose library is missing from the repository
    agent directory (`repoagents/` beside `--backend-dir`). Without it, every agent but the one
    Triton ships (`checksum`) and those listed in `[tool.tritoncfg] repo-agents` is reported,
    with a did-you-mean.

    ## Why it matters
    Triton fails the load: `unable to find 'libtritonrepoagent_nope.so' for repo agent 'nope',
    searched: /opt/tritonserver/repoagents`.

    ## Example
    ```pbtxt
    backend: "python"
    model_repository_agents { agents [ { name: "nope" } ] }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    model_repository_agents { agents [ { name: "checksum" } ] }
    ```
    """
    agents = ctx.config(model).model_repository_agents.agents
    if not agents:
        return
    directory = _repoagent_dir(ctx)
    searched = str(directory) if directory else DEFAULT_REPOAGENT_DIR
    known = STANDARD_REPOAGENTS | frozenset(ctx.options.repo_agents)
    for i, agent in enumerate(agents):
        lib = f"libtritonrepoagent_{agent.name}.so"
        if directory is not None:
            if exists_on_host(directory / agent.name / lib):
                continue
        elif agent.name in known:
            continue
        yield Finding(
            f"repository agent '{agent.name}' has no {lib} in '{searched}/{agent.name}/'"
            + (
                ""
                if directory
                else " (it is not a standard agent; pass --backend-dir to check the repoagents/ "
                "directory beside it, or list it in [tool.tritoncfg] repo-agents)"
            )
            + (did_you_mean(agent.name, known) or "; check the name or install the agent"),
            at(model, "model_repository_agents", "agents", i, "name", value=True),
            triton_message=f"unable to find '{lib}' for repo agent '{agent.name}', searched: "
            f"{searched}",
        )
