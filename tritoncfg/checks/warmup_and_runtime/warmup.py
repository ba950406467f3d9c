"""TC70x: INSTANCE. Model warmup samples as `TritonModelInstance::GenerateWarmupData` builds them,
once per non-passive instance (backend_model_instance.cc); `warmup_request.py` has the checks of the
requests against the config inputs. Data files are looked up in the repository model, never read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tritoncfg.checks.common.tensor_size import (
    WILDCARD,
    dims_text,
)
from tritoncfg.checks.common.tensor_size import byte_size as tensor_byte_size
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.checks.warmup_and_runtime.parameters import exists_in_model_dir, is_ensemble
from tritoncfg.diagnostics import Severity
from tritoncfg.record import record
from tritoncfg.repository import WARMUP_DIRNAME
from tritoncfg.schema import DataType, ModelConfig, ModelWarmup
from tritoncfg.workspace import LoadedModel

PHASE = Phase.INSTANCE
REQUEST = "[request id: <id_unknown>] "  # InferenceRequest::LogRequest() of a warmup request


@record(frozen=True)
class WarmupInput:
    """One warmup input of one sample, with its path in the config for spans."""

    sample: int
    name: str
    spec: ModelWarmup.Input

    @property
    def path(self) -> tuple[str | int, ...]:
        return ("model_warmup", self.sample, "inputs", self.name)

    @property
    def data_type(self) -> str:
        return DataType.Name(self.spec.data_type)


def protocol_name(data_type: int) -> str:
    """`triton::common::DataTypeToProtocolString`: FP32, INT32, BYTES, ..."""
    name = DataType.Name(data_type)
    if name == "TYPE_INVALID":
        return "<invalid>"
    return "BYTES" if name == "TYPE_STRING" else name.removeprefix("TYPE_")


def byte_size(entry: WarmupInput) -> int | str:
    """Core's `GetByteSize(dtype, dims, name)` for one warmup input."""
    return tensor_byte_size(entry.data_type, list(entry.spec.dims), entry.name)


def runs_warmup(config: ModelConfig) -> bool:
    """Warmup runs per non-passive instance; ensembles have none
    (`ValidateEnsembleSchedulingConfig` rejects their warmup)."""
    if is_ensemble(config):
        return False
    groups = config.instance_group
    return not groups or any(
        not g.passive for g in groups
    )  # no group: NormalizeInstanceGroup adds one


def warmup_inputs(model: LoadedModel, ctx: CheckContext) -> Iterator[WarmupInput]:
    """The inputs of every sample Triton generates (a `batch_size: 0` sample is skipped)."""
    config = ctx.config(model)
    if not runs_warmup(config):
        return
    for i, sample in enumerate(config.model_warmup):
        if sample.batch_size == 0:
            continue
        entries = [WarmupInput(i, name, spec) for name, spec in sample.inputs.items()]
        yield from sorted(entries, key=lambda e: at(model, *e.path))  # in source order


def usable(entry: WarmupInput) -> bool:
    """The input got past the first pass of `GenerateWarmupData`, so later checks are meaningful."""
    size = byte_size(entry)
    return not isinstance(size, str) and size != WILDCARD


@model_rule(
    "TC701",
    severity=Severity.WARNING,
    summary="A warmup sample with batch_size 0 (or unset) is silently skipped.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_sample_skipped(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `model_warmup` sample whose `batch_size` is 0 or not written.

    ## Why it matters
    Triton skips such a sample without a word (only `--log-verbose=1` shows `Skipping batch 0
    warmup sample '<name>'`), so the model is never warmed up and the sample's other mistakes
    never show. `batch_size` is the number of warmup requests, not a batch dimension.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
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
    config = ctx.config(model)
    if not runs_warmup(config):
        return
    for i, sample in enumerate(config.model_warmup):
        if sample.batch_size == 0:
            yield Finding(
                f"warmup sample '{sample.name}' has batch_size 0, so Triton skips it silently; "
                "set batch_size to the number of warmup requests to send (e.g. 1)",
                at(model, "model_warmup", i, "batch_size", value=True),
            )


@model_rule(
    "TC702",
    severity=Severity.ERROR,
    summary="A warmup input has a -1 dim or no data_type, so its size is unknown.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_input_variable_size(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a warmup input with a `-1` dimension, or with no `data_type` (which Triton also
    treats as variable-size, hence its misleading message).

    ## Why it matters
    Warmup data must have a fixed size. Triton fails every instance: `warmup setting expects
    all variable-size dimensions are specified for input '<name>'`. (Releases before core's
    2026 size-safety rework sized an untyped input as INT32 and failed later, on its type.)

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { dims: [ 4 ] zero_data: true } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```
    """
    for entry in warmup_inputs(model, ctx):
        if byte_size(entry) != WILDCARD:
            continue
        dims = list(entry.spec.dims)
        if entry.data_type == "TYPE_INVALID":
            why, span = "has no data_type", at(model, *entry.path, "value")
            fix = "set data_type (the config input's type)"
        else:
            why = "has a variable-size (-1) dimension"
            span = at(model, *entry.path, "value", "dims", dims.index(-1), value=True)
            fix = "give every dimension a concrete size"
        yield Finding(
            f"warmup input '{entry.name}' {why}, so Triton cannot size its data; {fix}",
            span,
            triton_message="warmup setting expects all variable-size dimensions are specified "
            f"for input '{entry.name}'",
        )


@model_rule(
    "TC703",
    severity=Severity.ERROR,
    summary="A warmup input has a negative dim other than -1, or a size beyond int64.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_input_invalid_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a warmup input whose `dims` hold a negative value other than `-1`, or whose element
    count or byte size does not fit in int64.

    ## Why it matters
    Triton fails every instance with `tensor '<name>' contains an invalid dimension [<dims>]`
    (`... invalid dimension in shape [<dims>]` for TYPE_STRING), or `byte size for tensor
    '<name>' exceeds maximum size of 9223372036854775807`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ -4 ] zero_data: true } } } ]
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
    for entry in warmup_inputs(model, ctx):
        problem = byte_size(entry)
        if not isinstance(problem, str):
            continue
        dims = list(entry.spec.dims)
        bad = next((i for i, d in enumerate(dims) if d < -1), None)
        span = at(model, *entry.path, "value", "dims", *(() if bad is None else (bad,)), value=True)
        what = (
            f"dimension {dims[bad]} is invalid (only -1 may be negative, and warmup needs none)"
            if bad is not None
            else "its size does not fit in a 64-bit integer"
        )
        yield Finding(
            f"warmup input '{entry.name}' has dims {dims_text(dims)}: {what}; use positive sizes",
            span,
            triton_message=problem,
        )


@model_rule(
    "TC704",
    severity=Severity.ERROR,
    summary="A warmup input sets none of zero_data, random_data or input_data_file.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_input_no_data(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a warmup input that says nothing about its data.

    ## Why it matters
    Triton fails every instance: `[request id: <id_unknown>] warmup setting expects input
    '<name>' to have input_data_type set`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] } } } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] random_data: true } } } ]
    ```
    """
    for entry in warmup_inputs(model, ctx):
        if entry.spec.WhichOneof("input_data_type") is None:
            yield Finding(
                f"warmup input '{entry.name}' has no data: set zero_data: true, random_data: true "
                "or input_data_file",
                at(model, *entry.path, "value"),
                triton_message=f"{REQUEST}warmup setting expects input '{entry.name}' "
                "to have input_data_type set",
            )


def _file_state(model: LoadedModel, name: str) -> bool | None:
    """Whether `warmup/<name>` exists; None when it lies outside the model directory (tritoncfg
    does not look there)."""
    target = model.dir.resolve(f"{WARMUP_DIRNAME}/{name}")
    return None if target is None else exists_in_model_dir(model, target)


def warmup_file_path(model: LoadedModel, name: str) -> str:
    """The path Triton opens: `JoinPath({model_dir, "warmup", file})`."""
    base = f"{model.dir.path}/{WARMUP_DIRNAME}"
    return base + name if name.startswith("/") else f"{base}/{name}"


@model_rule(
    "TC705",
    severity=Severity.ERROR,
    summary="A warmup input_data_file is not in the model's warmup/ directory.",
    phase=PHASE,
    gate=gates.warmup,
)
def warmup_data_file_missing(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports an `input_data_file` that does not exist under `<model>/warmup/` (the path is
    relative to that directory, not to the version directory or the model directory).

    ## Why it matters
    Triton fails every instance: `failed to open text file for read
    <model_dir>/warmup/<file>: No such file or directory`.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "x.bin" } } } ]
    ```

    ## Fix
    Put the raw tensor bytes in `m/warmup/x.bin` (16 bytes here), or use `zero_data: true`:
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    ```
    """
    for entry in warmup_inputs(model, ctx):
        if entry.spec.WhichOneof("input_data_type") != "input_data_file" or not usable(entry):
            continue
        name = entry.spec.input_data_file
        span = at(model, *entry.path, "value", "input_data_file", value=True)
        state = _file_state(model, name) if name else False
        if state is None:
            yield Finding(
                f"warmup file '{name}' of input '{entry.name}' lies outside the model directory; "
                "tritoncfg does not check it there. Keep warmup data in the model's warmup/",
                span,
                severity=Severity.INFO,
            )
        elif not state:
            path = warmup_file_path(model, name)
            yield Finding(
                f"warmup file '{name}' of input '{entry.name}' not found: Triton reads "
                f"{Path(path)}; put the file in the model's warmup/ directory",
                span,
                triton_message=f"failed to open text file for read {path}: No such file or directory",
            )
