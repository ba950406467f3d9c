"""TC9xx: best practice. Configs Triton loads, but that serve worse than their author meant.

None of these has a Triton message: Triton accepts the config. Each says why it matters.
"""

from __future__ import annotations

from collections.abc import Iterator

from tritoncfg.checks.core import gates
from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.complete.autofill import TENSORRT_PLAN
from tritoncfg.diagnostics import Fix, Severity
from tritoncfg.schema import ModelInstanceGroup
from tritoncfg.text.edits import Edit, insert_before
from tritoncfg.text.tree import Block, Field, ListValue, Scalar
from tritoncfg.workspace import LoadedModel

PHASE = Phase.BEST_PRACTICE


def _written(model: LoadedModel) -> bool:
    return model.config is not None


@model_rule(
    "TC901",
    severity=Severity.WARNING,
    summary="preferred_batch_size is set but max_queue_delay_microseconds is 0.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def preferred_batch_size_without_queue_delay(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports dynamic batching with preferred batch sizes and no queue delay.

    ## Why it matters
    With a delay of 0 the batcher never waits for more requests: it runs whatever is queued when
    an instance is free, so the preferred sizes are reached only under a backlog. The sizes then
    mislead whoever reads the config.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 16
    dynamic_batching { preferred_batch_size: [ 8, 16 ] }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 16
    dynamic_batching {
      preferred_batch_size: [ 8, 16 ]
      max_queue_delay_microseconds: 500
    }
    ```
    """
    written = model.config.message if model.config is not None else None
    if written is None or not written.HasField("dynamic_batching"):
        return
    batching = written.dynamic_batching
    if batching.preferred_batch_size and batching.max_queue_delay_microseconds == 0:
        yield Finding(
            "preferred_batch_size is set but max_queue_delay_microseconds is 0, so the batcher never "
            "waits to form those sizes; set a delay (e.g. 100-1000 us) or drop the preferred sizes",
            at(model, "dynamic_batching", "preferred_batch_size"),
        )


@model_rule(
    "TC902",
    severity=Severity.INFO,
    summary="preferred_batch_size lists a size twice or out of order.",
    phase=PHASE,
    fixable=True,
    gate=gates.dynamic_batching,
)
def preferred_batch_sizes_unsorted(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a `preferred_batch_size` list that is not strictly increasing.

    ## Why it matters
    Triton sorts the sizes itself and ignores repeats, so an unsorted or repeated list says
    something different from what the server does. Sorted, it reads as the server behaves.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 16
    dynamic_batching {
      preferred_batch_size: [ 16, 4, 4 ]
      max_queue_delay_microseconds: 100
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 16
    dynamic_batching {
      preferred_batch_size: [ 4, 16 ]
      max_queue_delay_microseconds: 100
    }
    ```
    """
    if model.config is None:
        return
    sizes = list(model.config.message.dynamic_batching.preferred_batch_size)
    wanted = sorted(set(sizes))
    if sizes == wanted:
        return
    fix = None
    location = model.config.location(("dynamic_batching", "preferred_batch_size"))
    if location is not None and isinstance(location.field.value, ListValue):
        text = "[ " + ", ".join(str(size) for size in wanted) + " ]"
        fix = Fix("sort and deduplicate the sizes", (Edit(location.field.value.span, text),))
    yield Finding(
        f"preferred_batch_size {sizes} is not strictly increasing; write it as {wanted}",
        at(model, "dynamic_batching", "preferred_batch_size"),
        fix=fix,
    )


@model_rule(
    "TC903",
    severity=Severity.WARNING,
    summary="max_batch_size > 0 but no scheduler batches requests together.",
    phase=PHASE,
)
def batching_model_without_dynamic_batching(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports a model that accepts batches (`max_batch_size` > 0) with neither `dynamic_batching`
    nor `sequence_batching`, outside an ensemble.

    ## Why it matters
    Without a batching scheduler Triton runs each request on its own: the model's batch
    capacity is used only by clients that batch themselves, and throughput under load stays at
    batch size 1.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { }
    ```
    """
    config = ctx.config(model)
    if config.max_batch_size <= 0 or config.platform == "ensemble":
        return
    if config.HasField("dynamic_batching") or config.HasField("sequence_batching"):
        return
    if config.HasField("ensemble_scheduling"):
        return
    yield Finding(
        f"max_batch_size is {config.max_batch_size} but no dynamic_batching is configured, so Triton "
        "never combines requests into a batch; add `dynamic_batching { }`",
        at(model, "max_batch_size"),
    )


@model_rule(
    "TC904",
    severity=Severity.WARNING,
    summary="max_batch_size is 0 and every input starts with -1: the batch dimension was probably written into dims.",
    phase=PHASE,
)
def batch_dimension_in_dims(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports a non-batching model (`max_batch_size: 0`) whose inputs all start with a variable
    dimension.

    ## Why it matters
    That is the shape of a batching model written with its batch dimension in `dims`. Triton
    then never batches it (the dynamic batcher needs `max_batch_size` > 0), and clients must send
    the batch dimension themselves. If the first dimension really is variable and not a batch,
    ignore this.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 0
    input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ -1, 4 ] } ]
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    ```
    """
    config = ctx.config(model)
    if config.max_batch_size != 0 or not config.input or config.HasField("ensemble_scheduling"):
        return
    if config.HasField("sequence_batching"):
        return
    if all(len(tensor.dims) >= 2 and tensor.dims[0] == -1 for tensor in config.input):
        yield Finding(
            "max_batch_size is 0 and every input's first dimension is -1: if that dimension is the "
            "batch, set max_batch_size to the largest batch and remove it from dims so Triton can batch",
            at(model, "max_batch_size") if _written(model) else at(model, "input"),
        )


@model_rule(
    "TC906",
    severity=Severity.INFO,
    summary="A TensorRT model has no model_warmup, so the first requests pay for initialization.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_without_warmup(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Notes a TensorRT plan model without `model_warmup`.

    ## Why it matters
    TensorRT allocates and tunes on the first executions of each shape; without warmup the first
    real requests see that latency, and a readiness probe reports READY before the model is fast.

    ## Example
    ```text
    platform: "tensorrt_plan"
    max_batch_size: 8
    ```

    ## Fix
    ```text
    platform: "tensorrt_plan"
    max_batch_size: 8
    model_warmup [ { name: "zeros" batch_size: 8 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 16 ] zero_data: true } } } ]
    ```
    """
    config = ctx.config(model)
    if config.platform == TENSORRT_PLAN and not config.model_warmup:
        yield Finding(
            "TensorRT model without model_warmup: the first requests of each shape pay for TensorRT's "
            "initialization; add a warmup sample per typical batch size",
            at(model, "platform"),
        )


@model_rule(
    "TC907",
    severity=Severity.WARNING,
    summary="preserve_ordering on a decoupled model has no effect on its responses.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def preserve_ordering_on_decoupled_model(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports `dynamic_batching { preserve_ordering: true }` on a model with
    `model_transaction_policy { decoupled: true }`.

    ## Why it matters
    A decoupled model sends its responses whenever it likes; the batcher cannot order them, so
    clients relying on the ordering get responses out of order anyway.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { preserve_ordering: true }
    model_transaction_policy { decoupled: true }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 8
    dynamic_batching { }
    model_transaction_policy { decoupled: true }
    ```
    """
    config = ctx.config(model)
    if config.dynamic_batching.preserve_ordering and config.model_transaction_policy.decoupled:
        yield Finding(
            "preserve_ordering does not order the responses of a decoupled model; order them in the "
            "model or the client, and drop preserve_ordering",
            at(model, "dynamic_batching", "preserve_ordering", value=True),
        )


@model_rule(
    "TC910",
    severity=Severity.ERROR,
    summary="A string still holds a ${...} template placeholder.",
    phase=PHASE,
)
def template_placeholder(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports string values containing `${...}`: a template (e.g. TensorRT-LLM's
    `fill_template.py` configs) that was never filled in.

    ## Why it matters
    Triton loads the literal text: a parameter `"${max_beam_width}"` reaches the backend as that
    string and fails at load or, worse, at the first request.

    ## Example
    ```pbtxt
    backend: "python"
    parameters { key: "tokenizer_dir" value { string_value: "${tokenizer_dir}" } }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    parameters { key: "tokenizer_dir" value { string_value: "/models/tokenizer" } }
    ```
    """
    if model.config is None or model.config.document is None or "${" not in model.config.source:
        return
    for scalar in _strings(model.config.document.fields):
        if "${" in scalar.text:
            yield Finding(
                f"string {scalar.text} holds an unfilled template placeholder; substitute it before deploying",
                scalar.span,
            )


def _strings(fields: list[Field]) -> Iterator[Scalar]:
    for node in fields:
        yield from _strings_of(node.value)


def _strings_of(value: Scalar | Block | ListValue) -> Iterator[Scalar]:
    if isinstance(value, Scalar):
        if value.kind == "string":
            yield value
    elif isinstance(value, Block):
        yield from _strings(value.fields)
    else:
        for item in value.items:
            yield from _strings_of(item.value)


@model_rule(
    "TC911",
    severity=Severity.WARNING,
    summary="A TensorRT model asks for KIND_CPU instances.",
    phase=PHASE,
    gate=gates.tensorrt,
)
def tensorrt_on_cpu_instances(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Reports `instance_group { kind: KIND_CPU }` on a TensorRT plan model.

    ## Why it matters
    TensorRT engines run only on GPUs; the TensorRT backend refuses CPU instances when it loads
    the model.

    ## Example
    ```text
    platform: "tensorrt_plan"
    instance_group [ { kind: KIND_CPU } ]
    ```

    ## Fix
    ```text
    platform: "tensorrt_plan"
    instance_group [ { kind: KIND_GPU } ]
    ```
    """
    config = ctx.config(model)
    if config.platform != TENSORRT_PLAN:
        return
    for i, group in enumerate(config.instance_group):
        if group.kind == ModelInstanceGroup.KIND_CPU:
            yield Finding(
                "TensorRT engines run only on GPUs; use KIND_GPU (or KIND_MODEL) for this instance group",
                at(model, "instance_group", i, "kind", value=True),
            )


@model_rule(
    "TC912",
    severity=Severity.WARNING,
    summary="A preferred batch size is larger than the queue can ever hold.",
    phase=PHASE,
    gate=gates.dynamic_batching,
)
def preferred_batch_size_above_queue_size(
    model: LoadedModel, ctx: CheckContext
) -> Iterator[Finding]:
    """
    ## What it does
    Reports a preferred batch size above `default_queue_policy.max_queue_size`.

    ## Why it matters
    Requests beyond the queue size are rejected, so the batcher can never collect that many:
    the preferred size is unreachable.

    ## Example
    ```pbtxt
    backend: "python"
    max_batch_size: 32
    dynamic_batching {
      preferred_batch_size: [ 32 ]
      max_queue_delay_microseconds: 100
      default_queue_policy { max_queue_size: 8 }
    }
    ```

    ## Fix
    ```pbtxt
    backend: "python"
    max_batch_size: 32
    dynamic_batching {
      preferred_batch_size: [ 32 ]
      max_queue_delay_microseconds: 100
      default_queue_policy { max_queue_size: 64 }
    }
    ```
    """
    config = ctx.config(model)
    queue = config.dynamic_batching.default_queue_policy.max_queue_size
    if queue == 0:
        return
    for i, size in enumerate(config.dynamic_batching.preferred_batch_size):
        if size > queue:
            yield Finding(
                f"preferred batch size {size} can never form: default_queue_policy.max_queue_size is "
                f"{queue}; raise the queue size or lower the preferred size",
                at(model, "dynamic_batching", "preferred_batch_size", i, value=True),
            )


@model_rule(
    "TC913",
    severity=Severity.INFO,
    summary="The config has no name; Triton takes the directory's.",
    phase=PHASE,
    fixable=True,
)
def config_without_name(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    Notes a config without `name`, and with `--fix` writes the directory's name into it.

    ## Why it matters
    Triton fills the name from the directory, so a copied or renamed directory silently becomes
    another model name; written down, a mismatch is reported (TC107) instead.

    ## Example
    ```pbtxt
    backend: "python"
    ```

    ## Fix
    ```pbtxt
    name: "m"
    backend: "python"
    ```
    """
    config = model.config
    if config is None or config.document is None or config.message.name:
        return
    fields = config.document.fields
    edit = insert_before(fields[0], f'name: "{model.name}"\n') if fields else None
    fix = Fix(f'add name: "{model.name}"', (edit,)) if edit is not None else None
    yield Finding(f'the config has no name; Triton uses the directory\'s, "{model.name}"', fix=fix)
