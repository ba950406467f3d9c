"""ONNX Runtime's session options as Triton's onnxruntime backend derives them from the config
(`onnxruntime_backend` `src/onnxruntime.cc`), read back from real ONNX Runtime sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run
from google.protobuf import text_format

from tritoncfg.probe.contract import ProbeSettings, RunnerError
from tritoncfg.probe.runners.onnxruntime import OnnxRuntimeRunner
from tritoncfg.probe.runners.onnxruntime_options import triton_session_options
from tritoncfg.schema import ModelConfig

ort = pytest.importorskip("onnxruntime")

from probe.probekit import RESHAPE_CONFIG, reshape_model  # noqa: E402

LEVEL_AND_THREADS = """
optimization { graph { level: -1 } }
parameters { key: "execution_mode" value: { string_value: "1" } }
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
parameters { key: "inter_op_thread_count" value: { string_value: "2" } }
"""


def config(extra: str = "") -> ModelConfig:
    return text_format.Parse(RESHAPE_CONFIG.format(name="m") + extra, ModelConfig())


def loaded(tmp_path: Path, extra: str, settings: ProbeSettings | None = None) -> OnnxRuntimeRunner:
    """A real OnnxRuntimeRunner loaded with the reshape model and the config."""
    runner = OnnxRuntimeRunner(settings or ProbeSettings())
    runner.load(reshape_model(tmp_path / "model.onnx", batch_one=False), config(extra))
    return runner


@pytest.mark.parametrize(
    ("graph", "level"),
    [
        ("", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
        ("optimization { graph { level: -1 } }", ort.GraphOptimizationLevel.ORT_ENABLE_BASIC),
        ("optimization { graph { level: 0 } }", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
        ("optimization { graph { level: 1 } }", ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED),
        ("optimization { graph { level: 2 } }", ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
        ("optimization { graph { level: 7 } }", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
    ],
)
def test_the_graph_level_gives_the_sessions_optimization_level(
    tmp_path: Path, graph: str, level: object
) -> None:
    runner = loaded(tmp_path, graph)
    options = runner.session.get_session_options()
    assert options.graph_optimization_level == level


def test_parameters_give_the_execution_mode_and_thread_counts(tmp_path: Path) -> None:
    runner = loaded(tmp_path, LEVEL_AND_THREADS)
    options = runner.session.get_session_options()
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    assert options.execution_mode == ort.ExecutionMode.ORT_PARALLEL
    assert (options.intra_op_num_threads, options.inter_op_num_threads) == (1, 2)
    assert runner.describe()["session_options"] == {
        "graph_optimization_level": "ORT_ENABLE_BASIC",
        "execution_mode": "ORT_PARALLEL",
        "intra_op_num_threads": 1,
        "inter_op_num_threads": 2,
    }


def test_without_parameters_the_backends_defaults_and_jobs_share_of_the_cores(
    tmp_path: Path,
) -> None:
    runner = loaded(tmp_path, "", ProbeSettings(threads=1))
    options = runner.session.get_session_options()
    assert options.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert (options.intra_op_num_threads, options.inter_op_num_threads) == (1, 0)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("execution_mode", "2", "Expected values for execution_mode are 0 or 1 but got 2"),
        ("intra_op_thread_count", "many", "parameters 'intra_op_thread_count' is 'many'"),
    ],
)
def test_a_value_the_backend_refuses_is_a_failure_with_its_reason(
    key: str, value: str, message: str
) -> None:
    extra = f'parameters {{ key: "{key}" value: {{ string_value: "{value}" }} }}'
    with pytest.raises(RunnerError, match=message) as caught:
        triton_session_options(config(extra))
    assert str(caught.value).endswith("(onnxruntime backend)")


def test_the_report_names_the_session_options(tmp_path: Path) -> None:
    (tmp_path / "m" / "1").mkdir(parents=True)
    reshape_model(tmp_path / "m" / "1" / "model.onnx", batch_one=False)
    text = RESHAPE_CONFIG.format(name="m") + LEVEL_AND_THREADS
    (tmp_path / "m" / "config.pbtxt").write_text(text, encoding="utf-8")
    done = run("probe", str(tmp_path / "m"), "-f", "json", "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    runtime = json.loads(done.stdout)["models"][0]["runtime"]
    assert runtime["session_options"]["graph_optimization_level"] == "ORT_ENABLE_BASIC"
    assert runtime["session_options"]["execution_mode"] == "ORT_PARALLEL"
