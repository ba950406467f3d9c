"""The options a lint runs with (`LintOptions`): its own module, so that setting up a run (the
CLI, the cache's key) does not import the check context, the completions and the schema."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from tritoncfg.record import record

TritonMode = Literal["default", "strict"]
ModelFiles = Literal["required", "optional"]


@record(frozen=True)
class LintOptions:
    triton_mode: TritonMode = "default"  # "strict" = --disable-auto-complete-config
    gpus: tuple[int, ...] | None = None  # visible GPUs on the target host; None = unknown
    backend_dir: Path | None = None
    config_name: str | None = None  # --model-config-name
    rate_limit: bool | None = (
        None  # --rate-limit=execution_count (True) or off (False); None = unknown
    )
    gpu_memory: int | None = None  # bytes of memory of one GPU of the target host; None = unknown
    # --rate-limit-resource: (name, count, device or None for every device); () = not given
    rate_limit_resources: tuple[tuple[str, int, int | None], ...] = ()
    triton_version: str | None = None  # --triton-version: the target release; None = newest
    # "optional": model files are fetched at deploy time, so their absence is not reported
    model_files: ModelFiles = "required"
    # backends and repository agents installed on the target host besides the standard ones
    # ([tool.tritoncfg] backends / repo-agents)
    backends: tuple[str, ...] = ()
    repo_agents: tuple[str, ...] = ()
    # runtime libraries installed in the host's backend folders ([tool.tritoncfg] runtimes, TC121)
    runtimes: tuple[str, ...] = ()
