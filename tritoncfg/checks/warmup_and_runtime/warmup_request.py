"""TC706-TC708, TC710, TC715: INSTANCE. Each warmup request is normalized like a client request
(`InferenceRequest::Normalize`): its inputs must match the config inputs in number, data type and
shape; the backends take at most max_batch_size of a sample's requests in one batch (TC710).
Helpers and the sample checks are in `warmup.py`."""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import first_instance_name
from tritoncfg.checks.common.tensor_size import dims_text
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.warmup_and_runtime.warmup import (
    PHASE,
    REQUEST,
    WarmupInput,
    protocol_name,
    runs_warmup,
    usable,
    warmup_inputs,
)
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import DataType, ModelConfig, ModelInput
from tritoncfg.schema.implicit import control_tensors, implicit_inputs
from tritoncfg.workspace import LoadedModel

NO_BATCH_DIM_NOTE = (
    "NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to "
    "be prepended to each input shape. If you want to specify the full shape including the batch "
    "dim in your input dims config, try setting max_batch_size to zero. See the model "
    "configuration docs for more info on max_batch_size."
)


def _config_inputs(model: LoadedModel, ctx: CheckContext) -> dict[str, ModelInput]:
    """The config inputs warmup requests are checked against, by name, built once per model
    (each warmup input looks one up: a dict per lookup made gen warmup quadratic). Empty when
    they are unknown: with auto-complete on, a backend fills in the inputs of a config that
    lists none."""
    return ctx.memo(("warmup-config-inputs", id(model)), lambda: _by_name(model, ctx))


def _by_name(model: LoadedModel, ctx: CheckContext) -> dict[str, ModelInput]:
    config = ctx.config(model)
    if not config.input and not ctx.strict:
        return {}
    return {i.name: i for i in config.input}


def _config_input(model: LoadedModel, ctx: CheckContext, entry: WarmupInput) -> ModelInput | None:
    return _config_inputs(model, ctx).get(entry.name)


@model_rule(
    "TC706",
    severity=Severity.ERROR,
    summary="A warmup input's data_type differs from the config input's.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_data_type_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a warmup input named like a config input but with another `data_type`.

    ## Why it matters
    The warmup request is rejected like a client request would be, and the instance fails:
    `[request id: <id_unknown>] inference input '<n>' data-type is 'INT32', but model '<model>'
    expects 'FP32'` (protocol type names: FP32, INT64, BYTES for TYPE_STRING ...).

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_INT32 dims: [ 4 ] zero_data: true } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```
    """
    model_name = ctx.completion(model).name
    for entry in warmup_inputs(model, ctx):
        expected = _config_input(model, ctx, entry)
        if expected is None or not usable(entry) or expected.data_type == entry.spec.data_type:
            continue
        got, want = protocol_name(entry.spec.data_type), protocol_name(expected.data_type)
        yield Finding(
            f"warmup input '{entry.name}' is {entry.data_type} but the config input is "
            f"{DataType.Name(expected.data_type)}; use the same data_type",
            at(model, *entry.path, "value", "data_type", value=True),
            triton_message=f"{REQUEST}inference input '{entry.name}' data-type is '{got}', "
            f"but model '{model_name}' expects '{want}'",
        )


def _shape_matches(config_dims: list[int], shape: list[int]) -> bool:
    return len(config_dims) == len(shape) and all(
        c == -1 or c == s for c, s in zip(config_dims, shape, strict=True)
    )


@model_rule(
    "TC707",
    severity=Severity.ERROR,
    summary="A warmup input's dims do not match the config input's dims.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_shape_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports warmup `dims` that do not match the config input's `dims` (-1 in the config matches
    any size; the number of dims must be equal). Write warmup dims **without** the batch
    dimension: with `max_batch_size > 0` Triton prepends a batch dimension of 1 itself.

    ## Why it matters
    The instance fails: `[request id: <id_unknown>] unexpected shape for input '<n>' for model
    '<model>'. Expected [-1,4], got [1,1,4]. NOTE: Setting a non-zero max_batch_size ...` (the
    NOTE only when `max_batch_size > 0`).

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 1, 4 ] zero_data: true } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```
    """
    batching = ctx.config(model).max_batch_size > 0
    model_name = ctx.completion(model).name
    for entry in warmup_inputs(model, ctx):
        expected = _config_input(model, ctx, entry)
        if expected is None or not usable(entry):
            continue
        dims, config_dims = list(entry.spec.dims), list(expected.dims)
        sent = [1, *dims] if batching else dims  # the request's shape
        # Normalize strips the batch dim, except from shape tensors
        compared = sent if batching and expected.is_shape_tensor else dims
        if _shape_matches(config_dims, compared):
            continue
        full = [-1, *config_dims] if batching else config_dims
        hint = " (leave the batch dimension out: Triton adds it)" if batching else ""
        yield Finding(
            f"warmup input '{entry.name}' has dims {dims_text(dims)} but the config input has "
            f"{dims_text(config_dims)}{hint}",
            at(model, *entry.path, "value", "dims", value=True),
            triton_message=f"{REQUEST}unexpected shape for input '{entry.name}' for model "
            f"'{model_name}'. Expected {dims_text(full)}, got {dims_text(sent)}. "
            + (NO_BATCH_DIM_NOTE if batching else ""),
        )


@model_rule(
    "TC708",
    severity=Severity.ERROR,
    summary="A warmup sample does not provide every required (non-optional) config input.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_missing_required_inputs(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a warmup sample that gives fewer config inputs than the model requires. Warmup
    input names that are not config inputs are sent as extra (control or state) inputs and do
    not count.

    ## Why it matters
    The instance fails: `[request id: <id_unknown>] expected 2 inputs but got 1 inputs for model
    '<model>'. Got input(s) ['A'], but missing required input(s) ['B']. Please provide all
    required input(s).` (`expected number of inputs between <R> and <N> ...` when some inputs
    are optional).

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "B" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "A" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "B" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs [
      { key: "A" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } },
      { key: "B" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } ] } ]
    ```
    """
    config = ctx.config(model)
    inputs = _config_inputs(model, ctx)
    if not inputs or not runs_warmup(config):
        return
    required = [i.name for i in config.input if not i.optional]
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size == 0:
            continue
        given = [i.name for i in config.input if i.name in sample.inputs]
        if len(given) >= len(required):
            continue
        missing = [name for name in required if name not in sample.inputs]
        quoted = ", ".join(f"'{n}'" for n in missing)
        expected = (
            f"expected {len(config.input)} inputs"
            if len(required) == len(config.input)
            else f"expected number of inputs between {len(required)} and {len(config.input)}"
        )
        yield Finding(
            f"warmup sample '{sample.name}' does not give required input(s) {quoted}; "
            "add them to its inputs",
            at(model, "model_warmup", index, "name", value=True),
            triton_message=f"{REQUEST}{expected} but got {len(given)} inputs for model "
            f"'{config.name}'. Got input(s) {_names(given)}, but missing required input(s) "
            f"{_names(missing)}. Please provide all required input(s).",
        )


def _names(names: list[str]) -> str:
    return "[" + ",".join(f"'{n}'" for n in names) + "]"


# Backends whose execute function refuses more requests than max_batch_size in one call
# (`onnxruntime.cc`, tensorrt `instance_state.cc`, pytorch `model_instance_state.cc`,
# `tensorflow.cc`, `openvino.cc`, python_backend `python_be.cc`: "batch size N for
# '<instance>', max allowed is M").
_BATCH_CHECKING_BACKENDS = frozenset(
    {"onnxruntime", "tensorrt", "pytorch", "tensorflow", "openvino", "python"}
)


@model_rule(
    "TC710",
    severity=Severity.ERROR,
    summary="A warmup sample's batch_size is above max_batch_size (above 1 when it is 0).",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_batch_size_exceeds_max(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For the ONNX Runtime, TensorRT, PyTorch, TensorFlow, OpenVINO and Python backends (and
    Python-based backends, `runtime: "model.py"`), reports a warmup sample whose `batch_size` is
    above `max_batch_size`, or above 1 for a model that does not batch (`max_batch_size: 0`).

    ## Why it matters
    Core sends a sample as `batch_size` requests in one execution (`backend_model_instance.cc:
    WarmUp`), and these backends refuse a batch larger than `max_batch_size`, so the instance and
    the model fail to load (Triton 2.51: `failed to run warmup sample 'w': batch size 16 for
    'm_0', max allowed is 8; `, the part after the colon once per request of the sample).

    ## Example
    ```pbtxt
    backend: "onnxruntime"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 16 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "onnxruntime"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 8 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```
    """
    config = ctx.config(model)
    checks = config.backend in _BATCH_CHECKING_BACKENDS or config.runtime == "model.py"
    if not checks or not runs_warmup(config):
        return
    limit = max(config.max_batch_size, 0)
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size <= 1 or sample.batch_size <= limit:
            continue
        instance = first_instance_name(config, ctx)
        quote = '"' if config.platform == "torch_aoti" else "'"
        yield Finding(
            f"warmup sample '{sample.name}' has batch_size {sample.batch_size}, but the model "
            f"takes at most {max(limit, 1)} request(s) per batch (max_batch_size "
            f"{config.max_batch_size}); core sends the sample as one batch of that many requests",
            at(model, "model_warmup", index, "batch_size", value=True),
            triton_message=f"failed to run warmup sample '{sample.name}': batch size "
            f"{sample.batch_size} for {quote}{instance}{quote}, max allowed is {limit}; ",
        )


# Backends that hand every declared model input to a framework runtime, which refuses a run
# without one of its graph inputs; a Python model decides for itself.
_GRAPH_INPUT_BACKENDS = frozenset({"onnxruntime", "tensorrt", "pytorch", "tensorflow", "openvino"})


def _sequence_tensors(config: ModelConfig) -> list[tuple[str, str]]:
    """(name, what it is) of each tensor the sequence batcher adds to a sequence's requests:
    the control inputs and the implicit state inputs."""
    controls = {name for name, _, _ in control_tensors(config)}
    return [
        (name, "control" if name in controls else "implicit state")
        for name, _, _ in implicit_inputs(config)
    ]


@model_rule(
    "TC715",
    severity=Severity.ERROR,
    summary="A sequence model's warmup sample lacks the control or implicit state tensors.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_sequence_tensors_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    For a model with `sequence_batching`, reports a warmup sample that does not give every
    `control_input` tensor (START, END, READY, CORRID) and every implicit state input
    (`state[].input_name`) as one of its `inputs`.

    ## Why it matters
    Core sends warmup requests straight to each model instance (`backend_model_instance.cc:
    WarmUp`), past the sequence batcher, which is what adds the control tensors to a sequence's
    requests (`sequence_batch_scheduler.cc`), and implicit state is only loaded into requests of a
    sequence. So the model sees a warmup request without them. The ONNX Runtime, TensorRT,
    PyTorch, TensorFlow and OpenVINO backends feed the model's graph inputs, which these tensors
    are, and a run without one fails; a failed warmup request fails the instance, so Triton does
    not load the model (error). A Python model decides for itself (warning): it is called with
    requests its `execute` may not expect. `tritoncfg gen warmup` writes these tensors.

    ## Example
    ```pbtxt
    backend: "onnxruntime"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    sequence_batching { control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] } ] }
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "onnxruntime"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    sequence_batching { control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] } ] }
    model_warmup [ { name: "w" batch_size: 1 inputs [ { key: "x" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }, { key: "START" value { data_type: TYPE_FP32 dims: [ 1 ] zero_data: true } } ] } ]
    ```
    """
    config = ctx.config(model)
    if not config.HasField("sequence_batching") or not runs_warmup(config):
        return
    wanted = _sequence_tensors(config)
    if not wanted:
        return
    graph = config.backend in _GRAPH_INPUT_BACKENDS and config.runtime != "model.py"
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size == 0:
            continue  # skipped by Triton (TC701)
        missing = [(name, kind) for name, kind in wanted if name not in sample.inputs]
        if not missing:
            continue
        listed = ", ".join(f"'{name}' ({kind})" for name, kind in missing)
        effect = (
            "the backend runs the model without these graph inputs, the warmup fails and so "
            "does the model's load"
            if graph
            else "the model's execute() is called without them"
        )
        yield Finding(
            f"warmup sample '{sample.name}' lacks the sequence tensor(s) {listed}: warmup "
            f"requests bypass the sequence batcher, so nothing adds them and {effect}; give "
            "each as a warmup input with dims [ 1 ] (`tritoncfg gen warmup` writes them)",
            at(model, "model_warmup", index),
            severity=None if graph else Severity.WARNING,
        )
