"""The GPU check (docs/probe.md, "GPU check"), run by `tools/gpu_check.sh` from the root of a copy
of the working tree, in under five minutes:

1. what the project needs and the machine lacks is installed from its package index (the
   project's dependencies, the `probe` extra and pytest; never torch: the machine's own build,
   with CUDA, is the one to test), and the checkout runs from the tree (PYTHONPATH), not
   installed;
2. the GPU tests (`pytest -m gpu tests/probe`): the PyTorch runner on CUDA; TensorRT's skip with
   the reason where TensorRT is missing;
3. `tritoncfg probe` of a TorchScript model (KIND_GPU) at every batch size of its
   `max_batch_size: 8`, on `cuda:0` where torch has CUDA, else on the CPU;
4. one summary. Exit 0 when nothing failed (a machine without CUDA says the GPU part was
   skipped), 1 otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODULES = {
    "protobuf": "google.protobuf",
    "pyyaml": "yaml",
}  # distributions whose module has another name
TESTS_TIMEOUT_S = 180
PROBE_TIMEOUT_S = 90


def missing_requirements() -> list[str]:
    """The requirements whose module does not import here (torch never: the machine's own)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["probe"], "pytest"]
    missing = []
    for requirement in wanted:
        name = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]
        module = MODULES.get(name, name.replace("-", "_"))
        if name != "torch" and importlib.util.find_spec(module) is None:
            missing.append(requirement)
    return missing


def install(requirements: list[str]) -> str:
    if not requirements:
        return "nothing to install"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", *requirements],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        return f"could not install {', '.join(requirements)}: {last}"
    return f"installed {', '.join(requirements)}"


def torch_device() -> tuple[bool, str]:
    """(CUDA usable, what this machine's torch is)."""
    try:
        import torch
    except ImportError as exc:
        return False, f"torch is not installed ({exc})"
    if not torch.cuda.is_available():
        return False, f"torch {torch.__version__}: torch.cuda.is_available() is False"
    return True, f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}"


def python(arguments: list[str], timeout: float) -> subprocess.CompletedProcess[str] | None:
    """This interpreter run from the root with the checkout first on the path; None when it
    runs past `timeout` seconds."""
    env = dict(os.environ, NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    try:
        return subprocess.run(
            [sys.executable, *arguments],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


def gpu_tests() -> tuple[bool, str, list[str]]:
    """(no failure, pytest's count line, the skip reasons)."""
    pytest = ["-m", "pytest", "-q", "-rs", "-m", "gpu", "-p", "no:cacheprovider", "tests/probe"]
    done = python(pytest, TESTS_TIMEOUT_S)
    if done is None:
        return False, f"timed out after {TESTS_TIMEOUT_S} s", []
    lines = done.stdout.strip().splitlines()
    skips = [line.removeprefix("SKIPPED ") for line in lines if line.startswith("SKIPPED")]
    counts = lines[-1].strip("= ") if lines else done.stderr.strip()[-200:]
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-4000:] + done.stderr[-2000:])
    return done.returncode == 0, counts, skips


def probe_torchscript(workdir: Path) -> tuple[bool, str]:
    """Probe torchkit's healthy model with a KIND_GPU instance group; (all OK, what ran)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from probe.torchkit import Double, indexed_model

    indexed_model(workdir, "torchscript", Double(), kind="KIND_GPU")
    report = workdir / "probe.json"
    probe = ["-m", "tritoncfg", "probe", str(workdir / "torchscript"), "--format", "json"]
    done = python([*probe, "--output", str(report), "--runs", "20"], PROBE_TIMEOUT_S)
    if done is None:
        return False, f"timed out after {PROBE_TIMEOUT_S} s"
    if not report.is_file():
        return False, f"no report (exit {done.returncode}): {done.stderr.strip()[-500:]}"
    model: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))["models"][0]
    return done.returncode == 0, describe_probe(model)


def describe_probe(model: dict[str, Any]) -> str:
    points = model["points"]
    ok = [p for p in points if p["status"] == "OK"]
    device = model.get("runtime", {}).get("device", "?")
    line = f"{len(ok)}/{len(points)} batch sizes OK on {device}"
    if ok:
        p50 = [p["latency_ms"]["p50"] for p in ok]
        line += f", p50 {min(p50):.3f}..{max(p50):.3f} ms"
    failed = [f"b={p['batch_size']}: {p['reason']}" for p in points if p["status"] != "OK"]
    return line + "".join(f"\n               {f}" for f in failed[:3])


def main() -> int:
    start = time.monotonic()
    installed = install(missing_requirements())
    cuda, device = torch_device()
    tests_ok, counts, skips = gpu_tests()
    with tempfile.TemporaryDirectory(prefix="gpu_check_") as work:
        probe_ok, probed = probe_torchscript(Path(work))
    ok = tests_ok and probe_ok
    lines = [
        "gpu_check summary",
        f"  setup:       {installed}",
        f"  device:      {device}",
        f"  GPU tests:   {counts}",
        *(f"               skipped {reason}" for reason in skips),
        f"  TorchScript: {probed}",
        f"  time:        {time.monotonic() - start:.0f} s",
    ]
    if not cuda:
        lines.append("  GPU part skipped: no CUDA device for torch here; no GPU result is claimed")
    lines.append(f"  result:      {'OK' if ok else 'FAIL'}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
