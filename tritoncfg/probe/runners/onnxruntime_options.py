"""ONNX Runtime's session options as Triton's onnxruntime backend derives them from the config
(`onnxruntime_backend` `src/onnxruntime.cc`, `ModelState::ModelState`), so a model is probed at
the graph optimizations and threads the server runs it with: ONNX Runtime's default
optimizations can change whether a shape-computing graph runs at all.

- `optimization { graph { level } }`: -1 basic, 1 extended, 2 none; anything else (0, or no
  `graph`) all optimizations, ONNX Runtime's default;
- `parameters` `execution_mode`: 0 sequential (the default), 1 parallel; any other value is
  refused ("Expected values for execution_mode are 0 or 1");
- `parameters` `intra_op_thread_count`, `inter_op_thread_count`: set when above 0 (0 leaves
  ONNX Runtime's choice). Triton ignores them under its global thread pool
  (`--backend-config=onnxruntime,enable-global-threadpool=1`), which probe does not model.

Pure: the config in, plain values out; `apply` sets them on a real `SessionOptions`.
"""

from __future__ import annotations

from typing import Any

from tritoncfg.probe.runners.parameters import int_parameter, refused
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig

# optimization.graph.level -> ONNX Runtime's GraphOptimizationLevel name
_GRAPH_LEVELS = {-1: "ORT_ENABLE_BASIC", 1: "ORT_ENABLE_EXTENDED", 2: "ORT_DISABLE_ALL"}
_DEFAULT_LEVEL = "ORT_ENABLE_ALL"
_EXECUTION_MODES = {0: "ORT_SEQUENTIAL", 1: "ORT_PARALLEL"}
_BACKEND = "onnxruntime"


@record(frozen=True)
class TritonSessionOptions:
    """What the backend sets; a thread count of 0 is left to ONNX Runtime."""

    graph_optimization_level: str = _DEFAULT_LEVEL
    execution_mode: str = "ORT_SEQUENTIAL"
    intra_op_num_threads: int = 0
    inter_op_num_threads: int = 0

    def report(self) -> dict[str, Any]:
        """The options as the report names them (ONNX Runtime's own names)."""
        return {
            "graph_optimization_level": self.graph_optimization_level,
            "execution_mode": self.execution_mode,
            "intra_op_num_threads": self.intra_op_num_threads,
            "inter_op_num_threads": self.inter_op_num_threads,
        }


def triton_session_options(config: Any) -> TritonSessionOptions:
    """The options Triton's onnxruntime backend would create the model's session with; a
    RunnerError with the backend's message for a value it refuses to load."""
    if not isinstance(config, ModelConfig):
        return TritonSessionOptions()
    level = _DEFAULT_LEVEL
    if config.optimization.HasField("graph"):
        level = _GRAPH_LEVELS.get(config.optimization.graph.level, _DEFAULT_LEVEL)
    mode = int_parameter(config, "execution_mode", _BACKEND)
    if mode not in _EXECUTION_MODES:
        raise refused(f"Expected values for execution_mode are 0 or 1 but got {mode}", _BACKEND)
    return TritonSessionOptions(
        graph_optimization_level=level,
        execution_mode=_EXECUTION_MODES[mode],
        intra_op_num_threads=max(int_parameter(config, "intra_op_thread_count", _BACKEND), 0),
        inter_op_num_threads=max(int_parameter(config, "inter_op_thread_count", _BACKEND), 0),
    )


def apply(ort: Any, options: Any, chosen: TritonSessionOptions) -> None:
    """Set `chosen` on ONNX Runtime's `SessionOptions` `options` (module `ort`)."""
    options.graph_optimization_level = getattr(
        ort.GraphOptimizationLevel, chosen.graph_optimization_level
    )
    options.execution_mode = getattr(ort.ExecutionMode, chosen.execution_mode)
    if chosen.intra_op_num_threads > 0:
        options.intra_op_num_threads = chosen.intra_op_num_threads
    if chosen.inter_op_num_threads > 0:
        options.inter_op_num_threads = chosen.inter_op_num_threads


__all__ = ["TritonSessionOptions", "apply", "triton_session_options"]
