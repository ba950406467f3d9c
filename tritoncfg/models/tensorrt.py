"""Reading a TensorRT plan's I/O and optimization profiles, in a child process.

A plan can only be read by deserializing it, which needs the `tensorrt` package and a GPU, and a
TensorRT runtime whose CUDA initialization failed segfaults on first use. So the parent never
imports tensorrt or CUDA: it runs `python -m tritoncfg.models.tensorrt <plan>` with a timeout.
The child checks for a GPU (`cudaGetDeviceCount`), deserializes the plan as Triton does (with
the standard plugins), and prints one line, `TRITONCFG-PLAN <json>`, which `parse_report` turns
into a ModelIO, or into an Unknowable saying why the plan could not be inspected.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import sys
from pathlib import Path
from typing import Any

from tritoncfg.models.dtypes import trt_type
from tritoncfg.models.io import Dim, ModelIO, Profile, TensorInfo, Unknowable

PLAN_TIMEOUT_S = 180.0
MARK = "TRITONCFG-PLAN "
NOT_HERE = "cannot inspect .plan here"

Triple = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def read_plan(path: Path, *, timeout: float = PLAN_TIMEOUT_S) -> ModelIO | Unknowable:
    """The engine's I/O and profiles, or why they cannot be known on this machine."""
    import subprocess  # a plan is read rarely: lint's start-up does without it

    try:
        size = path.stat().st_size
    except OSError as error:
        return Unknowable(path, f"cannot read {path.name}: {error.strerror or error}", "unreadable")
    if size == 0:
        return Unknowable(path, f"{path.name} is empty (0 bytes), not a TensorRT engine", "empty")
    if importlib.util.find_spec("tensorrt") is None:
        why = f"{NOT_HERE}: the tensorrt Python package is not installed"
        return Unknowable(path, why, "unavailable")
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (package_root, env.get("PYTHONPATH"))))
    command = [sys.executable, "-m", "tritoncfg.models.tensorrt", str(path)]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        why = f"{NOT_HERE}: deserializing took longer than {timeout:g} s"
        return Unknowable(path, why, "unavailable")
    except OSError as error:
        why = f"{NOT_HERE}: cannot start {sys.executable}: {error}"
        return Unknowable(path, why, "unavailable")
    return parse_report(path, done.returncode, done.stdout, done.stderr)


def parse_report(path: Path, returncode: int, stdout: str, stderr: str) -> ModelIO | Unknowable:
    """The child's answer (its exit status and output) as a ModelIO or an Unknowable."""
    line = next((s for s in reversed(stdout.splitlines()) if s.startswith(MARK)), None)
    if line is None:
        if returncode < 0:
            try:
                name = signal.Signals(-returncode).name
            except ValueError:
                name = f"signal {-returncode}"
            why = f"the TensorRT child process was killed by {name}"
        else:
            why = f"the TensorRT child process exited with status {returncode} and no report"
        last = next((s.strip() for s in reversed(stderr.splitlines()) if s.strip()), "")
        why += f" ({last})" if last else ""
        return Unknowable(path, f"{NOT_HERE}: {why}", "unavailable")
    import json  # here: `lint` imports this module for profile_max_batch only

    try:
        report = json.loads(line[len(MARK) :])
        if not report.get("ok"):
            why = str(report.get("error") or "unknown failure")
            return Unknowable(path, f"{NOT_HERE}: {why}", "unavailable")
        return _model_io(path, report)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        why = f"{NOT_HERE}: unreadable report from the child process ({error})"
        return Unknowable(path, why, "unavailable")


def _model_io(path: Path, report: dict[str, Any]) -> ModelIO:
    inputs: list[TensorInfo] = []
    outputs: list[TensorInfo] = []
    for tensor in report["tensors"]:
        info = TensorInfo(
            name=str(tensor["name"]),
            data_type=trt_type(str(tensor["dtype"])),
            source_type=str(tensor["dtype"]),
            shape=tuple(_dim(d) for d in tensor["shape"]),
            is_shape_tensor=bool(tensor.get("shape_tensor", False)),
            io_format=str(tensor.get("format") or "LINEAR"),
        )
        (inputs if tensor["input"] else outputs).append(info)
    profiles = tuple(
        Profile(
            index=int(p["index"]),
            shapes={str(k): _triple(v) for k, v in p.get("shapes", {}).items()},
            values={str(k): _triple(v) for k, v in p.get("values", {}).items()},
        )
        for p in report.get("profiles", [])
    )
    version = report.get("version")
    return ModelIO(
        format="tensorrt",
        path=path,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        profiles=profiles,
        version=f"TensorRT {version}" if version else None,
        notes=tuple(str(n) for n in report.get("notes", [])),
    )


def _dim(value: Any) -> Dim:
    size = int(value)
    return size if size >= 0 else None  # -1: dynamic


def _triple(value: Any) -> Triple:
    low, opt, high = (tuple(int(d) for d in dims) for dims in value)
    return low, opt, high


def profile_max_batch(io: ModelIO, profile: Profile) -> int | None:
    """`GetProfileMaxBatchSize`: the smallest dim-0 maximum over the inputs of one profile (a
    shape tensor's first max value stands in for its dims). None when the profile lacks them."""
    found: list[int] = []
    for tensor in io.inputs:
        if tensor.is_shape_tensor:
            values = profile.values.get(tensor.name)
            if values is None or not values[2]:
                return None
            found.append(values[2][0])
        else:
            shapes = profile.shapes.get(tensor.name)
            if shapes is None or not shapes[2]:
                return None
            found.append(shapes[2][0])
    return min(found) if found else None


# ---------------------------------------------------------------------------------------------
# The child process: everything below runs only under `python -m tritoncfg.models.tensorrt`.


def _gpu_problem() -> str | None:
    """Why there is no usable GPU, or None (also when cuda-python is absent and it cannot tell)."""
    runtime: Any
    try:
        runtime = importlib.import_module("cuda.bindings.runtime")
    except ImportError:
        try:
            runtime = importlib.import_module("cuda.cudart")
        except ImportError:
            return None
    try:
        error, count = runtime.cudaGetDeviceCount()
    except Exception as exc:
        return f"no usable GPU (cudaGetDeviceCount raised {exc})"
    if error != runtime.cudaError_t.cudaSuccess:
        return f"no usable GPU (cudaGetDeviceCount: {getattr(error, 'name', error)})"
    return None if count else "no GPU found (cudaGetDeviceCount: 0)"


def _dims(dims: Any) -> list[int]:
    return [int(dims[i]) for i in range(len(dims))]


def inspect_in_this_process(path: str) -> dict[str, Any]:
    """Deserialize the plan and describe it (the child's work; needs tensorrt and a GPU)."""
    problem = _gpu_problem()
    if problem is not None:
        return {"ok": False, "error": problem}
    try:
        trt: Any = importlib.import_module("tensorrt")
    except Exception as error:
        return {"ok": False, "error": f"import tensorrt failed: {error}"}
    messages: list[str] = []

    class Logger(trt.ILogger):  # type: ignore[misc]
        def __init__(self) -> None:
            trt.ILogger.__init__(self)

        def log(self, severity: Any, msg: str) -> None:
            messages.append(f"{getattr(severity, 'name', severity)}: {msg}")

    logger = Logger()
    try:
        trt.init_libnvinfer_plugins(logger, "")  # Triton's backend loads the standard plugins
    except Exception as error:
        messages.append(f"init_libnvinfer_plugins: {error}")
    runtime = trt.Runtime(logger)
    engine = runtime.deserialize_cuda_engine(Path(path).read_bytes())
    if engine is None:
        errors = [m for m in messages if "ERROR" in m] or messages or ["no message"]
        return {
            "ok": False,
            "error": f"TensorRT {trt.__version__} cannot deserialize it: {errors[-1]}",
        }
    if not hasattr(engine, "num_io_tensors"):
        return {"ok": False, "error": f"TensorRT {trt.__version__} lacks the name-based I/O API"}
    tensors = []
    for i in range(engine.num_io_tensors):
        name = engine.get_tensor_name(i)
        tensors.append(
            {
                "name": name,
                "input": engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT,
                "dtype": engine.get_tensor_dtype(name).name,
                "shape": _dims(engine.get_tensor_shape(name)),
                "shape_tensor": bool(engine.is_shape_inference_io(name)),
                "format": engine.get_tensor_format(name).name,
            }
        )
    profiles, notes = [], []
    for index in range(engine.num_optimization_profiles):
        shapes: dict[str, list[list[int]]] = {}
        values: dict[str, list[list[int]]] = {}
        for tensor in (t for t in tensors if t["input"]):
            name = tensor["name"]
            try:
                shapes[name] = [_dims(d) for d in engine.get_tensor_profile_shape(name, index)]
                if tensor["shape_tensor"]:
                    # positional (profile, name): the binding's keyword names are swapped
                    found = engine.get_tensor_profile_values(index, name)
                    values[name] = [[int(v) for v in part] for part in found]
            except Exception as error:
                notes.append(f"profile {index}, input '{name}': {error}")
        profiles.append({"index": index, "shapes": shapes, "values": values})
    return {
        "ok": True,
        "version": trt.__version__,
        "tensors": tensors,
        "profiles": profiles,
        "notes": notes,
    }


def main(argv: list[str]) -> int:
    try:
        report = inspect_in_this_process(argv[1])
    except Exception as error:  # any failure becomes a report, never a traceback for the parent
        report = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    import json

    print(MARK + json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))


__all__ = ["MARK", "PLAN_TIMEOUT_S", "parse_report", "profile_max_batch", "read_plan"]
