"""tritoncfg.models.tensorrt: reading a plan in a child process.

Plain TensorRT cannot be installed on this project's CPU machines (its wheels need the CUDA libraries), so the
child's protocol is tested against a fake `tensorrt` package written into a temp dir (the same
name-based API TensorRT 10/11 has, and a fake `cuda.bindings.runtime` that reports one GPU),
run through the real subprocess path. The test against the real library and a GPU skips where
they are missing.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from models.trtkit import build_engine, why_not

from tritoncfg.models import tensorrt as reader
from tritoncfg.models.io import ModelIO, Profile, TensorInfo, Unknowable
from tritoncfg.models.tensorrt import MARK, parse_report, profile_max_batch, read_plan

FAKE_TENSORRT = """
import os, signal, time

__version__ = "10.16.0.fake"


class _Enum:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, _Enum) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class DataType:
    FLOAT, HALF, INT32, INT64, BOOL, FP8 = (_Enum(n) for n in ("FLOAT", "HALF", "INT32", "INT64", "BOOL", "FP8"))


class TensorIOMode:
    INPUT, OUTPUT = _Enum("INPUT"), _Enum("OUTPUT")


class TensorFormat:
    LINEAR, CHW32 = _Enum("LINEAR"), _Enum("CHW32")


class ILogger:
    def __init__(self):
        pass


def init_libnvinfer_plugins(logger, namespace):
    return True


# name: (mode, dtype, shape, shape tensor, format, [(min, opt, max) per profile], values)
TENSORS = {
    "x": (TensorIOMode.INPUT, DataType.HALF, [-1, 16], False, TensorFormat.LINEAR,
          [([1, 16], [4, 16], [8, 16]), ([16, 16], [32, 16], [64, 16])], None),
    "shape": (TensorIOMode.INPUT, DataType.INT32, [2], True, TensorFormat.LINEAR,
              [([2], [2], [2]), ([2], [2], [2])], [([1, 1], [4, 4], [8, 8]), ([1, 1], [4, 4], [8, 8])]),
    "y": (TensorIOMode.OUTPUT, DataType.FP8, [-1, 16], False, TensorFormat.CHW32, None, None),
}


class Engine:
    num_io_tensors = len(TENSORS)
    num_optimization_profiles = 2

    def get_tensor_name(self, i):
        return list(TENSORS)[i]

    def get_tensor_mode(self, name):
        return TENSORS[name][0]

    def get_tensor_dtype(self, name):
        return TENSORS[name][1]

    def get_tensor_shape(self, name):
        return list(TENSORS[name][2])

    def is_shape_inference_io(self, name):
        return TENSORS[name][3]

    def get_tensor_format(self, name):
        return TENSORS[name][4]

    def get_tensor_profile_shape(self, name, profile):
        return [list(d) for d in TENSORS[name][5][profile]]

    def get_tensor_profile_values(self, profile, name):
        return [list(v) for v in TENSORS[name][6][profile]]


class Runtime:
    def __init__(self, logger):
        self.logger = logger

    def deserialize_cuda_engine(self, data):
        if data == b"CRASH":
            os.kill(os.getpid(), signal.SIGSEGV)
        if data == b"HANG":
            time.sleep(30)
        if data != b"PLAN":
            self.logger.log(_Enum("ERROR"), "IRuntime::deserializeCudaEngine: Error Code 1: Serialization (Version tag does not match)")
            return None
        return Engine()
"""

FAKE_CUDA_RUNTIME = """
class cudaError_t:
    cudaSuccess = 0


def cudaGetDeviceCount():
    return 0, 1
"""


@pytest.fixture
def fake_trt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `tensorrt` (and a one-GPU `cuda.bindings.runtime`) importable here and in the child."""
    root = tmp_path / "fake_site"
    (root / "tensorrt").mkdir(parents=True)
    (root / "tensorrt" / "__init__.py").write_text(textwrap.dedent(FAKE_TENSORRT))
    (root / "cuda" / "bindings").mkdir(parents=True)
    (root / "cuda" / "__init__.py").write_text("")
    (root / "cuda" / "bindings" / "__init__.py").write_text("")
    (root / "cuda" / "bindings" / "runtime.py").write_text(FAKE_CUDA_RUNTIME)
    monkeypatch.setenv("PYTHONPATH", str(root))
    monkeypatch.syspath_prepend(str(root))
    for name in ("tensorrt", "cuda", "cuda.bindings", "cuda.bindings.runtime"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return root


def plan(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "model.plan"
    path.write_bytes(content)
    return path


EXPECTED = ModelIO(
    format="tensorrt",
    path=Path("model.plan"),
    inputs=(
        TensorInfo("x", "TYPE_FP16", "HALF", (None, 16), io_format="LINEAR"),
        TensorInfo("shape", "TYPE_INT32", "INT32", (2,), is_shape_tensor=True, io_format="LINEAR"),
    ),
    outputs=(TensorInfo("y", None, "FP8", (None, 16), io_format="CHW32"),),
    profiles=(
        Profile(
            0,
            {"x": ((1, 16), (4, 16), (8, 16)), "shape": ((2,), (2,), (2,))},
            {"shape": ((1, 1), (4, 4), (8, 8))},
        ),
        Profile(
            1,
            {"x": ((16, 16), (32, 16), (64, 16)), "shape": ((2,), (2,), (2,))},
            {"shape": ((1, 1), (4, 4), (8, 8))},
        ),
    ),
    version="TensorRT 10.16.0.fake",
)


def test_child_process_reads_the_plan(tmp_path: Path, fake_trt: Path) -> None:
    path = plan(tmp_path, b"PLAN")
    found = read_plan(path)
    assert isinstance(found, ModelIO), found
    assert found.inputs == EXPECTED.inputs and found.outputs == EXPECTED.outputs
    assert found.profiles == EXPECTED.profiles and found.version == EXPECTED.version
    assert found.outputs[0].non_linear_format and not found.inputs[0].non_linear_format


def test_a_plan_trt_cannot_deserialize(tmp_path: Path, fake_trt: Path) -> None:
    found = read_plan(plan(tmp_path, b"OLD"))
    assert isinstance(found, Unknowable) and found.cause == "unavailable"
    assert found.reason == (
        "cannot inspect .plan here: TensorRT 10.16.0.fake cannot deserialize it: ERROR: "
        "IRuntime::deserializeCudaEngine: Error Code 1: Serialization (Version tag does not match)"
    )


def test_a_crashing_child_is_contained(tmp_path: Path, fake_trt: Path) -> None:
    found = read_plan(plan(tmp_path, b"CRASH"))
    assert isinstance(found, Unknowable)
    assert found.reason.startswith(
        "cannot inspect .plan here: the TensorRT child process was killed by SIGSEGV"
    )


def test_a_hanging_child_times_out(tmp_path: Path, fake_trt: Path) -> None:
    found = read_plan(plan(tmp_path, b"HANG"), timeout=2)
    assert isinstance(found, Unknowable)
    assert found.reason == "cannot inspect .plan here: deserializing took longer than 2 s"


def test_no_gpu_is_said_before_tensorrt_is_touched(tmp_path: Path, fake_trt: Path) -> None:
    (fake_trt / "cuda" / "bindings" / "runtime.py").write_text(
        "class _E:\n    name = 'cudaErrorInsufficientDriver'\n"
        "class cudaError_t:\n    cudaSuccess = 0\n"
        "def cudaGetDeviceCount():\n    return _E(), None\n"
    )
    found = read_plan(plan(tmp_path, b"CRASH"))  # would segfault if deserialized
    assert isinstance(found, Unknowable)
    assert found.reason == (
        "cannot inspect .plan here: no usable GPU (cudaGetDeviceCount: cudaErrorInsufficientDriver)"
    )


def test_without_tensorrt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader.importlib.util, "find_spec", lambda name: None)
    found = read_plan(plan(tmp_path, b"PLAN"))
    assert found == Unknowable(
        tmp_path / "model.plan",
        "cannot inspect .plan here: the tensorrt Python package is not installed",
        "unavailable",
    )


def test_an_empty_plan(tmp_path: Path) -> None:
    found = read_plan(plan(tmp_path, b""))
    assert isinstance(found, Unknowable) and found.cause == "empty"


@pytest.mark.parametrize(
    ("returncode", "stdout", "stderr", "reason"),
    [
        (-11, "", "", "the TensorRT child process was killed by SIGSEGV"),
        (
            1,
            "",
            "Traceback...\nImportError: libnvinfer.so.10\n",
            "the TensorRT child process "
            "exited with status 1 and no report (ImportError: libnvinfer.so.10)",
        ),
        (0, MARK + "{not json", "", "unreadable report from the child process"),
        (
            0,
            MARK + json.dumps({"ok": False, "error": "import tensorrt failed: x"}),
            "",
            "import tensorrt failed: x",
        ),
        (
            0,
            MARK + json.dumps({"ok": True, "tensors": [{"name": "x"}]}),
            "",
            "unreadable report from the child process ('dtype')",
        ),
    ],
)
def test_parse_report_failures(returncode: int, stdout: str, stderr: str, reason: str) -> None:
    found = parse_report(Path("p.plan"), returncode, stdout, stderr)
    assert isinstance(found, Unknowable)
    assert found.reason.startswith("cannot inspect .plan here: " + reason), found.reason


def test_parse_report_takes_the_last_marked_line() -> None:
    report = {
        "ok": True,
        "version": "11.1.0",
        "tensors": [
            {"name": "in", "input": True, "dtype": "BF16", "shape": [-1, 3], "format": "LINEAR"},
            {"name": "out", "input": False, "dtype": "INT64", "shape": [], "shape_tensor": True},
        ],
        "profiles": [{"index": 0, "shapes": {"in": [[1, 3], [2, 3], [4, 3]]}}],
        "notes": ["n"],
    }
    stdout = "[TRT] noise\n" + MARK + json.dumps(report) + "\n"
    found = parse_report(Path("p.plan"), 0, stdout, "")
    assert isinstance(found, ModelIO)
    assert found.inputs == (TensorInfo("in", "TYPE_BF16", "BF16", (None, 3), io_format="LINEAR"),)
    assert found.outputs == (
        TensorInfo("out", "TYPE_INT64", "INT64", (), is_shape_tensor=True, io_format="LINEAR"),
    )
    assert found.profiles == (Profile(0, {"in": ((1, 3), (2, 3), (4, 3))}),)
    assert (found.version, found.notes) == ("TensorRT 11.1.0", ("n",))


def test_profile_max_batch() -> None:
    assert profile_max_batch(EXPECTED, EXPECTED.profiles[0]) == 8  # min(x: 8, shape value: 8)
    assert profile_max_batch(EXPECTED, EXPECTED.profiles[1]) == 8  # min(64, 8)
    assert profile_max_batch(EXPECTED, Profile(2, {})) is None


@pytest.mark.skipif(why_not() is not None, reason=str(why_not()))
def test_a_real_engine(tmp_path: Path) -> None:  # pragma: no cover - needs TensorRT and a GPU
    build_engine(tmp_path / "model.plan")
    found = read_plan(tmp_path / "model.plan")
    assert isinstance(found, ModelIO), found
    assert found.inputs == (TensorInfo("x", "TYPE_FP32", "FLOAT", (None, 16), io_format="LINEAR"),)
    assert found.profiles[0].shapes["x"] == ((1, 16), (4, 16), (8, 16))
    assert profile_max_batch(found, found.profiles[0]) == 8
