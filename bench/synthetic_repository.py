"""A deterministic synthetic Triton model repository for benchmarks.

`generate(count, seed)` yields (model name, config.pbtxt text) pairs of 30-150 lines each,
mixing what real repositories hold: ONNX, TensorRT, PyTorch and python-backend models and
ensembles over them; 1-6 inputs and outputs with reshape; dynamic and sequence batching;
instance groups; parameters; warmup; execution accelerators; comments. Each config is also
written in one of several styles seen in the wild (list or repeated blocks, `key: {` or `key {`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

MIN_LINES = 30
MAX_LINES = 150

KINDS = ["onnx", "tensorrt", "python", "pytorch", "ensemble"]
KIND_WEIGHTS = [30, 20, 20, 15, 15]
PLATFORMS = {
    "onnx": ("platform", "onnxruntime_onnx"),
    "tensorrt": ("platform", "tensorrt_plan"),
    "python": ("backend", "python"),
    "pytorch": ("platform", "pytorch_libtorch"),
    "ensemble": ("platform", "ensemble"),
}
# Tensor name -> (data types it is seen with, shapes it is seen with), batch dimension excluded.
TENSORS: dict[str, tuple[list[str], list[list[int]]]] = {
    "input_ids": (["TYPE_INT64", "TYPE_INT32"], [[-1], [128], [512]]),
    "attention_mask": (["TYPE_INT64", "TYPE_INT32"], [[-1], [128], [512]]),
    "pixel_values": (["TYPE_FP32", "TYPE_FP16"], [[3, 224, 224], [3, 384, 384]]),
    "images": (["TYPE_UINT8", "TYPE_FP32"], [[3, 640, 640], [-1, -1, 3]]),
    "audio": (["TYPE_FP32"], [[-1], [16000]]),
    "text": (["TYPE_STRING"], [[1], [-1]]),
    "features": (["TYPE_FP32"], [[16], [128], [1, 64]]),
    "logits": (["TYPE_FP32", "TYPE_FP16"], [[1000], [-1, 32000]]),
    "scores": (["TYPE_FP32"], [[100], [-1]]),
    "boxes": (["TYPE_FP32"], [[100, 4], [-1, 4]]),
    "embeddings": (["TYPE_FP32", "TYPE_FP16", "TYPE_BF16"], [[768], [384], [1024]]),
    "probabilities": (["TYPE_FP32"], [[10], [4]]),
    "hidden_state": (["TYPE_FP16", "TYPE_FP32"], [[-1, 768], [-1, 4096]]),
    "mask": (["TYPE_BOOL"], [[-1], [1, 512]]),
    "labels": (["TYPE_STRING"], [[1], [5]]),
}
COMMENTS = [
    "Shapes exclude the batch dimension.",
    "Keep in sync with the exporter script.",
    "Tuned on an A100 with perf_analyzer.",
    "TODO: revisit after the next model refresh.",
    "Values below come from the load test of 2024-03.",
    "Changing this requires a model reload.",
]


@dataclass
class Writer:
    """Accumulates config lines, in one of several text-format styles."""

    list_form: bool
    colon_before_brace: bool
    indent_unit: str
    tight_brackets: bool
    lines: list[str] = field(default_factory=list)
    depth: int = 0

    def _emit(self, text: str) -> None:
        self.lines.append(self.indent_unit * self.depth + text)

    def field(self, name: str, value: object, comment: str | None = None) -> None:
        rendered = ("true" if value else "false") if isinstance(value, bool) else str(value)
        self._emit(f"{name}: {rendered}" + (f"  # {comment}" if comment else ""))

    def string(self, name: str, value: str) -> None:
        self._emit(f'{name}: "{value}"')

    def ints(self, name: str, values: list[int]) -> None:
        inner = ", ".join(str(v) for v in values)
        self._emit(f"{name}: [{inner}]" if self.tight_brackets else f"{name}: [ {inner} ]")

    def comment(self, text: str) -> None:
        self._emit(f"# {text}")

    def blank(self) -> None:
        self.lines.append("")

    @contextmanager
    def block(self, name: str) -> Iterator[None]:
        self._emit(f"{name}{': ' if self.colon_before_brace else ' '}{{")
        self.depth += 1
        yield
        self.depth -= 1
        self._emit("}")

    def repeated(self, name: str, items: Sequence[Callable[[], None]]) -> None:
        """A repeated message field: `name [ {...}, {...} ]` or one `name {...}` per item."""
        if not self.list_form:
            for write_item in items:
                with self.block(name):
                    write_item()
            return
        self._emit(f"{name} [")
        self.depth += 1
        for position, write_item in enumerate(items):
            self._emit("{")
            self.depth += 1
            write_item()
            self.depth -= 1
            self._emit("}," if position < len(items) - 1 else "}")
        self.depth -= 1
        self._emit("]")

    def string_map(self, name: str, entries: dict[str, str], wrapped: bool) -> None:
        """A map field; `wrapped` maps (ModelConfig.parameters) hold `value { string_value }`."""

        def entry(key: str, value: str) -> Callable[[], None]:
            def write() -> None:
                self.string("key", key)
                if wrapped:
                    with self.block("value"):
                        self.string("string_value", value)
                else:
                    self.string("value", value)

            return write

        self.repeated(name, [entry(k, v) for k, v in entries.items()])


@dataclass(frozen=True)
class Tensor:
    name: str
    data_type: str
    dims: list[int]


def _tensors(rng: random.Random, prefix: str, count: int) -> list[Tensor]:
    tensors = []
    for stem in rng.sample(sorted(TENSORS), count):
        data_types, shapes = TENSORS[stem]
        tensors.append(Tensor(f"{prefix}{stem}", rng.choice(data_types), rng.choice(shapes)))
    return tensors


def _write_tensor(w: Writer, rng: random.Random, tensor: Tensor, is_input: bool) -> None:
    w.string("name", tensor.name)
    w.field("data_type", tensor.data_type)
    if is_input and len(tensor.dims) == 3 and rng.random() < 0.5:
        w.field("format", "FORMAT_NCHW")
    w.ints("dims", tensor.dims)
    if -1 not in tensor.dims and len(tensor.dims) == 1 and rng.random() < 0.3:
        # Same element count with a leading 1: what exporters that keep a unit axis need.
        with w.block("reshape"):
            w.ints("shape", [1, *tensor.dims])
    if is_input and rng.random() < 0.1:
        w.field("optional", True)
    if not is_input and rng.random() < 0.1:
        w.string("label_filename", "labels.txt")


def _write_io(w: Writer, rng: random.Random, inputs: list[Tensor], outputs: list[Tensor]) -> None:
    def item(tensor: Tensor, is_input: bool) -> Callable[[], None]:
        return lambda: _write_tensor(w, rng, tensor, is_input)

    w.repeated("input", [item(t, True) for t in inputs])
    w.repeated("output", [item(t, False) for t in outputs])


def _write_header(w: Writer, rng: random.Random, name: str, kind: str, max_batch: int) -> None:
    w.comment(f"{name}: {kind} model. {rng.choice(COMMENTS)}")
    w.string("name", name)
    key, value = PLATFORMS[kind]
    w.string(key, value)
    w.field("max_batch_size", max_batch)
    if kind == "pytorch" and rng.random() < 0.5:
        w.string("default_model_filename", "model.pt")
    policy = rng.random()
    if policy < 0.3:
        with w.block("version_policy"), w.block("latest"):
            w.field("num_versions", rng.choice([1, 2]))
    elif policy < 0.4:
        with w.block("version_policy"), w.block("specific"):
            w.ints("versions", sorted(rng.sample(range(1, 6), 2)))
    w.blank()


def _write_dynamic_batching(w: Writer, rng: random.Random, max_batch: int) -> None:
    sizes = [s for s in (1, 2, 4, 8, 16, 32, 64) if s <= max_batch]
    with w.block("dynamic_batching"):
        w.ints(
            "preferred_batch_size", sorted(rng.sample(sizes, min(len(sizes), rng.randint(1, 3))))
        )
        w.field("max_queue_delay_microseconds", rng.choice([100, 500, 1000, 5000]))
        if rng.random() < 0.3:
            w.field("preserve_ordering", True)
        if rng.random() < 0.4:
            w.field("priority_levels", 2)
            w.field("default_priority_level", 1)
        if rng.random() < 0.5:
            with w.block("default_queue_policy"):
                w.field("timeout_action", rng.choice(["REJECT", "DELAY"]))
                w.field("default_timeout_microseconds", rng.choice([100000, 500000]))
                w.field("allow_timeout_override", True)
                w.field("max_queue_size", rng.choice([16, 64, 256]))


def _write_control(w: Writer, name: str, kind: str, values: str | None) -> None:
    w.string("name", name)

    def control() -> None:
        w.field("kind", kind)
        if values is None:
            w.field("data_type", "TYPE_UINT64")
        else:
            w.ints(values, [0, 1])

    w.repeated("control", [control])


def _write_sequence_batching(w: Writer, rng: random.Random, max_batch: int) -> None:
    values = rng.choice(["int32_false_true", "fp32_false_true", "bool_false_true"])
    controls = [
        ("START", "CONTROL_SEQUENCE_START"),
        ("READY", "CONTROL_SEQUENCE_READY"),
        ("END", "CONTROL_SEQUENCE_END"),
        ("CORRID", "CONTROL_SEQUENCE_CORRID"),
    ]
    chosen = controls[: rng.randint(2, 4)]
    with w.block("sequence_batching"):
        w.field("max_sequence_idle_microseconds", rng.choice([1000000, 5000000, 60000000]))
        if rng.random() < 0.5:
            with w.block("oldest"):
                w.field("max_candidate_sequences", rng.choice([4, 8, 16]))
                w.ints("preferred_batch_size", [s for s in (2, 4) if s <= max_batch] or [1])
                w.field("max_queue_delay_microseconds", 1000)
        else:
            with w.block("direct"):
                pass
        writers = [
            partial(_write_control, w, name, kind, None if name == "CORRID" else values)
            for name, kind in chosen
        ]
        w.repeated("control_input", writers)
        if rng.random() < 0.4:

            def state() -> None:
                w.string("input_name", "INPUT_STATE")
                w.string("output_name", "OUTPUT_STATE")
                w.field("data_type", "TYPE_FP32")
                w.ints("dims", [-1, 256])

            w.repeated("state", [state])


def _write_instance_groups(w: Writer, rng: random.Random, kind: str) -> None:
    def resource() -> None:
        w.string("name", "R1")
        w.field("count", 4)

    def group(index: int) -> Callable[[], None]:
        def write() -> None:
            if rng.random() < 0.4:
                w.string("name", f"group_{index}")
            gpu = kind in ("tensorrt", "pytorch", "onnx") and rng.random() < 0.7
            w.field("count", rng.randint(1, 4), comment="per device" if gpu else None)
            w.field("kind", "KIND_GPU" if gpu else "KIND_CPU")
            if gpu:
                w.ints("gpus", [index] if rng.random() < 0.6 else [0, 1])
            if rng.random() < 0.15:
                with w.block("rate_limiter"):
                    w.repeated("resources", [resource])
                    w.field("priority", 2)

        return write

    w.repeated("instance_group", [group(i) for i in range(rng.choice([1, 1, 1, 2, 3]))])


def _write_parameters(w: Writer, rng: random.Random, kind: str) -> None:
    pool = {
        "python": {
            "EXECUTION_ENV_PATH": "$$TRITON_MODEL_DIRECTORY/env.tar.gz",
            "FORCE_CPU_ONLY_INPUT_TENSORS": "no",
        },
        "onnx": {
            "intra_op_thread_count": "4",
            "inter_op_thread_count": "1",
            "enable_mem_arena": "1",
            "cudnn_conv_algo_search": "0",
        },
        "pytorch": {
            "DISABLE_OPTIMIZED_EXECUTION": "true",
            "INFERENCE_MODE": "true",
            "ENABLE_JIT_PROFILING": "false",
        },
        "tensorrt": {"execution_context_allocation_strategy": "ON_PROFILE_CHANGE"},
    }.get(kind, {"tokenizer": "bert-base-uncased"})
    keys = rng.sample(sorted(pool), rng.randint(1, len(pool)))
    w.string_map("parameters", {k: pool[k] for k in keys}, wrapped=True)


def _write_warmup(w: Writer, rng: random.Random, inputs: list[Tensor]) -> None:
    def sample(tensor: Tensor) -> Callable[[], None]:
        def write() -> None:
            w.string("key", tensor.name)
            with w.block("value"):
                w.field("data_type", tensor.data_type)
                w.ints("dims", [d if d > 0 else 8 for d in tensor.dims])
                w.field("zero_data" if tensor.data_type == "TYPE_STRING" else "random_data", True)

        return write

    def warmup() -> None:
        w.string("name", "warmup_sample")
        w.field("batch_size", rng.choice([1, 2]))
        w.repeated("inputs", [sample(t) for t in inputs])
        w.field("count", rng.choice([1, 5]))

    w.repeated("model_warmup", [warmup])


def _write_optimization(w: Writer, rng: random.Random, kind: str) -> None:
    with w.block("optimization"):
        if kind == "onnx" and rng.random() < 0.6:
            w.comment("ONNX Runtime builds TensorRT engines for supported subgraphs.")
            with w.block("execution_accelerators"):

                def accelerator() -> None:
                    w.string("name", "tensorrt")
                    entries = {"precision_mode": "FP16", "max_workspace_size_bytes": "1073741824"}
                    w.string_map("parameters", entries, wrapped=False)

                w.repeated("gpu_execution_accelerator", [accelerator])
        elif kind == "pytorch" or rng.random() < 0.3:
            with w.block("execution_accelerators"):
                w.repeated("cpu_execution_accelerator", [lambda: w.string("name", "openvino")])
        if kind == "tensorrt":
            with w.block("cuda"):
                w.field("graphs", True)
                w.field("busy_wait_events", rng.random() < 0.5)
        with w.block("input_pinned_memory"):
            w.field("enable", rng.random() < 0.7)
        if rng.random() < 0.5:
            w.field("priority", rng.choice(["PRIORITY_MAX", "PRIORITY_DEFAULT"]))


def _write_ensemble(w: Writer, rng: random.Random, steps: list[str], inputs: list[Tensor]) -> None:
    with w.block("ensemble_scheduling"):

        def step(index: int, model: str) -> Callable[[], None]:
            def write() -> None:
                w.string("model_name", model)
                w.field("model_version", -1)
                source = inputs[0].name if index == 0 else f"stage_{index - 1}_out"
                w.string_map("input_map", {"INPUT0": source}, wrapped=False)
                w.string_map("output_map", {"OUTPUT0": f"stage_{index}_out"}, wrapped=False)

            return write

        w.repeated("step", [step(i, m) for i, m in enumerate(steps)])


def _config(rng: random.Random, name: str, kind: str, earlier: list[str]) -> str:
    w = Writer(
        list_form=rng.random() < 0.7,
        colon_before_brace=rng.random() < 0.2,
        indent_unit=rng.choice(["  ", "  ", "    "]),
        tight_brackets=rng.random() < 0.3,
    )
    max_batch = rng.choice([0, 4, 8, 16, 32, 64]) if kind != "ensemble" else rng.choice([0, 8])
    _write_header(w, rng, name, kind, max_batch)
    inputs = _tensors(rng, "", rng.randint(1, 6))
    outputs = _tensors(rng, "output_", rng.randint(1, 6))
    _write_io(w, rng, inputs, outputs)
    w.blank()
    if kind == "ensemble":
        _write_ensemble(w, rng, rng.sample(earlier, min(len(earlier), rng.randint(2, 4))), inputs)
        return "\n".join(w.lines) + "\n"
    _write_instance_groups(w, rng, kind)
    if max_batch and rng.random() < 0.2:
        _write_sequence_batching(w, rng, max_batch)
    elif max_batch and rng.random() < 0.8:
        _write_dynamic_batching(w, rng, max_batch)
    if rng.random() < 0.7:
        w.blank()
        _write_parameters(w, rng, kind)
    if rng.random() < 0.4:
        _write_warmup(w, rng, inputs)
    if kind != "python" and rng.random() < 0.6:
        _write_optimization(w, rng, kind)
    if kind == "python" and rng.random() < 0.2:
        with w.block("model_transaction_policy"):
            w.field("decoupled", True)
    return "\n".join(w.lines) + "\n"


def generate(count: int, seed: int = 0) -> Iterator[tuple[str, str]]:
    """Yield (name, config text) for `count` models; configs outside 30-150 lines are redrawn."""
    rng = random.Random(seed)
    names: list[str] = []
    for index in range(count):
        kind = rng.choices(KINDS, KIND_WEIGHTS)[0] if len(names) >= 4 else "onnx"
        name = f"{kind}_model_{index:04d}"
        while True:
            text = _config(rng, name, kind, names)
            if MIN_LINES <= text.count("\n") <= MAX_LINES:
                break
        names.append(name)
        yield name, text
