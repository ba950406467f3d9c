"""TC801-TC805: the ONNX Runtime backend's checks of the config against `model.onnx`
(onnxruntime_backend `AutoCompleteConfig` and `ModelInstanceState::ValidateInputs/Outputs`):
the file is readable, batching, the input count and names. Types and shapes are in
`onnx_shapes`, optional, ragged and sequence-control inputs in `onnx_inputs`, external data
files in `onnx_external_data`.

In the default (auto-complete) mode the backend first completes a config that lists no inputs or
no outputs from the model (and a `max_batch_size: 0` to 4 when the model can batch); `OrtView`
is the config as the instance-time checks then see it. Strict mode checks the config as written.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.common.model_common import (
    Tensor,
    model_shape,
    sequence_controls,
    unknown_name_findings,
)
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.models.io import ModelIO, TensorInfo, Unknowable
from tritoncfg.models.locate import backend_format
from tritoncfg.record import record
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel

PHASE = Phase.INSTANCE
# Triton core's `--backend-config=<backend>,default-max-batch-size` default
AUTOFILL_MAX_BATCH_SIZE = 4
NOT_TENSORS = frozenset({"sequence_type", "map_type", "optional_type", "sparse_tensor_type"})


@record(frozen=True)
class OrtView:
    """The model file and the config as ONNX Runtime's instance-time checks see them."""

    io: ModelIO
    max_batch_size: int  # after auto-complete
    autofilled: bool  # max_batch_size was 0 and auto-complete set it
    autocomplete: bool  # auto-complete ran (default mode, inputs or outputs missing)
    inputs_written: bool  # False: auto-complete added the model's inputs
    outputs_written: bool
    blocker: tuple[str, TensorInfo] | None  # the first model tensor that cannot batch
    batch_unknown: bool  # a model tensor of unknown rank: can it batch is not known

    @property
    def batching(self) -> bool:
        return self.max_batch_size > 0

    @property
    def by_input(self) -> dict[str, TensorInfo]:
        """Model inputs and overridable initializers (a config may list both as inputs)."""
        return {t.name: t for t in (*self.io.initializers, *self.io.inputs)}

    @property
    def by_output(self) -> dict[str, TensorInfo]:
        return {t.name: t for t in self.io.outputs}


def _blocker(io: ModelIO) -> tuple[tuple[str, TensorInfo] | None, bool]:
    """`AutoCompleteMaxBatch`: every input and output needs a variable first dimension."""
    unknown = False
    for kind, tensors in (("input", io.inputs), ("output", io.outputs)):
        for tensor in tensors:
            if tensor.shape is None:
                unknown = True
            elif not tensor.dynamic_first_dim:
                return (kind, tensor), unknown
    return None, unknown


def ort_view(model: LoadedModel, ctx: CheckContext) -> OrtView | None:
    """None unless the model is an onnxruntime one whose model.onnx was read."""
    config = ctx.config(model)
    if backend_format(config) != "onnxruntime":
        return None
    io = ctx.model_io(model)
    if not isinstance(io, ModelIO) or io.format != "onnx":
        return None
    has_inputs = bool(config.input) or bool(config.batch_input)
    autocomplete = not ctx.strict and not (has_inputs and bool(config.output))
    blocker, unknown = _blocker(io)
    mbs, autofilled = config.max_batch_size, False
    if autocomplete and blocker is None and not unknown and mbs == 0:
        mbs, autofilled = AUTOFILL_MAX_BATCH_SIZE, True
    return OrtView(
        io,
        mbs,
        autofilled,
        autocomplete,
        inputs_written=not (autocomplete and not has_inputs),
        outputs_written=not (autocomplete and not config.output),
        blocker=blocker,
        batch_unknown=unknown,
    )


def written_tensors(
    view: OrtView, config: ModelConfig
) -> Iterator[tuple[str, int, Tensor, TensorInfo]]:
    """The config's inputs and outputs that name a model tensor, with it (auto-completed lists
    come from the model and need no check)."""
    if view.inputs_written:
        inputs = view.by_input
        for i, tensor in enumerate(config.input):
            if tensor.name in inputs:
                yield "input", i, tensor, inputs[tensor.name]
    if view.outputs_written:
        outputs = view.by_output
        for j, out in enumerate(config.output):
            if out.name in outputs:
                yield "output", j, out, outputs[out.name]


def batching_fails_at_autofill(view: OrtView, config: ModelConfig) -> bool:
    """TC802's condition: auto-complete rejects max_batch_size > 0 before any later check."""
    return view.autocomplete and view.blocker is not None and config.max_batch_size != 0


@model_rule(
    "TC801",
    severity=Severity.WARNING,
    summary="The ONNX model file cannot be read, so the config was not checked against it.",
    phase=Phase.MODEL_INIT,
    gate=gates.onnx,
)
def onnx_model_unreadable(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `onnxruntime` model whose `model.onnx` is not a readable ONNX model (a warning),
    or cannot be read here: an empty placeholder file, or no `onnx` package (a note).

    ## Why it matters
    ONNX Runtime fails to create a session from a file that is not an ONNX protobuf, and the model
    does not load. Until the file is readable, tritoncfg cannot compare the config's inputs and
    outputs with the model's (TC802-TC812 are skipped).

    ## Example
    ```text
    m/config.pbtxt   backend: "onnxruntime"
    m/1/model.onnx   a text file, or a truncated download
    ```

    ## Fix
    ```text
    m/config.pbtxt   backend: "onnxruntime"
    m/1/model.onnx   the exported model (onnx.save)
    ```
    """
    if backend_format(ctx.config(model)) != "onnxruntime":
        return
    io = ctx.model_io(model)
    if not isinstance(io, Unknowable):
        return
    where = io.path.relative_to(model.dir.path) if io.path is not None else "model.onnx"
    if io.cause == "unreadable":
        yield Finding(
            f"{where} is not a readable ONNX model ({io.reason}); ONNX Runtime cannot load it "
            "either: export it again (onnx.save) and check the file is complete",
        )
    else:
        yield Finding(
            f"{where} was not checked against the config: {io.reason}",
            severity=Severity.INFO,
        )


@model_rule(
    "TC802",
    severity=Severity.ERROR,
    summary="max_batch_size > 0 for an ONNX model without a variable first dimension everywhere.",
    phase=Phase.BACKEND_CREATE,
    gate=gates.onnx,
)
def onnx_batching_unsupported(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    In the default (auto-complete) mode, for a config that lists no inputs or no outputs,
    reports a non-zero `max_batch_size` when some model input or output has a fixed first
    dimension (or none).

    ## Why it matters
    The ONNX Runtime backend's auto-complete decides that a model can batch only when every
    input and output has a variable first dimension, and refuses a batching config otherwise:
    `autofill failed for model 'm': model does not support batching while non-zero
    max_batch_size is specified`. (With inputs and outputs listed, or in strict mode, TC808
    reports the same mistake per tensor.)

    ## Example
    ```text
    m/config.pbtxt   backend: "onnxruntime"  max_batch_size: 8
    m/1/model.onnx   input x: float [16], output y: float [16]
    ```

    ## Fix
    ```text
    m/config.pbtxt   backend: "onnxruntime"  max_batch_size: 0
    m/1/model.onnx   input x: float [16], output y: float [16]
    ```
    """
    view = ort_view(model, ctx)
    config = ctx.config(model)
    if view is None or view.blocker is None or not batching_fails_at_autofill(view, config):
        return
    kind, tensor = view.blocker
    shape = (
        f"has a fixed first dimension {tensor.shape[0]} (shape {model_shape(tensor)})"
        if tensor.shape
        else "is a scalar"
    )
    yield Finding(
        f"max_batch_size is {config.max_batch_size} but the model cannot batch: its {kind} "
        f"'{tensor.name}' {shape}, and the ONNX Runtime backend batches only when every model "
        "input and output has a variable first dimension; set max_batch_size: 0 (dims are then "
        "the full shapes), or export the model with a dynamic batch axis",
        at(model, "max_batch_size", value=True),
        triton_message=(
            f"autofill failed for model '{ctx.completion(model).name}': model does not support "
            "batching while non-zero max_batch_size is specified"
        ),
    )


@model_rule(
    "TC803",
    severity=Severity.ERROR,
    summary="The config accounts for a different number of inputs than the ONNX model has.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_input_count_mismatch(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Counts the inputs the config feeds the model, as the ONNX Runtime backend does: the `input`
    entries, less the `optional` ones, plus each `batch_input`, sequence control and sequence
    state; and reports when that is not the model's number of inputs (initializers that are
    graph inputs do not count).

    ## Why it matters
    The backend requires the counts to be equal and refuses the model otherwise: `unable to load
    model 'm', configuration expects 1 inputs, model provides 2`. In the default mode a config
    without inputs gets the model's; one that lists some must list all.

    ## Example
    ```text
    m/config.pbtxt   backend: "onnxruntime"  input [ { name: "a" ... } ]  output [ ... ]
    m/1/model.onnx   inputs a, b
    ```

    ## Fix
    ```text
    m/config.pbtxt   backend: "onnxruntime"  input [ { name: "a" ... }, { name: "b" ... } ]  output [ ... ]
    m/1/model.onnx   inputs a, b
    ```
    """
    view = ort_view(model, ctx)
    if view is None:
        return
    config = ctx.config(model)
    names = [t.name for t in config.input] if view.inputs_written else []
    entries = len(names) if view.inputs_written else len(view.io.inputs)
    optional = sum(t.optional for t in config.input) if view.inputs_written else 0
    controls = sequence_controls(config)
    states = (
        list(config.sequence_batching.state)
        if config.WhichOneof("scheduling_choice") == "sequence_batching"
        else []
    )
    expected = entries - optional + len(config.batch_input) + len(controls) + len(states)
    provided = len(view.io.inputs)
    if expected == provided:
        return
    parts = [f"{entries} input entr{'y' if entries == 1 else 'ies'}"]
    if not view.inputs_written:
        parts[0] += " that auto-complete added"
    for count, what in (
        (-optional, "optional"),
        (len(config.batch_input), "batch_input"),
        (len(controls), "sequence control"),
        (len(states), "sequence state"),
    ):
        if count:
            parts.append(f"{'-' if count < 0 else '+'} {abs(count)} {what}")
    fed = {*names, *(n for b in config.batch_input for n in b.target_name)}
    fed |= {c.name for c in controls} | {s.input_name for s in states}
    missing = [t.name for t in view.io.inputs if t.name not in fed]
    extra = [n for n in names if n not in view.by_input]
    initializers = {t.name for t in view.io.initializers}
    counted = [t.name for t in config.input if t.name in initializers and not t.optional]
    hints = []
    if missing:
        hints.append("not fed: " + ", ".join(missing))
    if extra:
        hints.append("not in the model: " + ", ".join(extra))
    if counted:
        hints.append(
            "initializers counted as required inputs (mark them optional: true): "
            + ", ".join(counted)
        )
    model_inputs = ", ".join(t.name for t in view.io.inputs) or "none"
    how = f" ({' '.join(parts)})" if len(parts) > 1 or not view.inputs_written else ""
    yield Finding(
        f"the config feeds the model {expected} input{'s' if expected != 1 else ''}{how} but "
        f"it has {provided} ({model_inputs})" + (f"; {'; '.join(hints)}" if hints else ""),
        at(model, "input"),
        triton_message=(
            f"unable to load model '{ctx.completion(model).name}', configuration expects "
            f"{expected} inputs, model provides {provided}"
        ),
    )


@model_rule(
    "TC804",
    severity=Severity.ERROR,
    summary="A config input is not an input (or overridable initializer) of the ONNX model.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_unknown_input(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input` whose name is neither a model input nor an initializer the model lists
    as a graph input (an overridable initializer).

    ## Why it matters
    The ONNX Runtime backend refuses the model: `unexpected inference input 'INPUT_UNKNOWN',
    allowed inputs are: INPUT0, INPUT1`. Names are case-sensitive and must be the exported ones.

    ## Example
    ```text
    m/config.pbtxt   input [ { name: "input" ... } ]
    m/1/model.onnx   input "input.1"
    ```

    ## Fix
    ```text
    m/config.pbtxt   input [ { name: "input.1" ... } ]
    m/1/model.onnx   input "input.1"
    ```
    """
    view = ort_view(model, ctx)
    if view is None or not view.inputs_written:
        return
    written = [(i, t.name) for i, t in enumerate(ctx.config(model).input)]
    yield from unknown_name_findings(model, ctx, "input", written, set(view.by_input), "the model")


@model_rule(
    "TC805",
    severity=Severity.ERROR,
    summary="A config output is not an output of the ONNX model.",
    phase=PHASE,
    gate=gates.onnx,
)
def onnx_unknown_output(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `output` whose name is not an output of the model. (Listing only some of the
    model's outputs is fine for ONNX Runtime.)

    ## Why it matters
    The ONNX Runtime backend refuses the model: `unexpected inference output 'OUTPUT_UNKNOWN',
    allowed outputs are: OUTPUT0, OUTPUT1`.

    ## Example
    ```text
    m/config.pbtxt   output [ { name: "probs" ... } ]
    m/1/model.onnx   outputs "logits", "labels"
    ```

    ## Fix
    ```text
    m/config.pbtxt   output [ { name: "logits" ... } ]
    m/1/model.onnx   outputs "logits", "labels"
    ```
    """
    view = ort_view(model, ctx)
    if view is None or not view.outputs_written:
        return
    written = [(i, t.name) for i, t in enumerate(ctx.config(model).output)]
    yield from unknown_name_findings(
        model, ctx, "output", written, set(view.by_output), "the model"
    )
