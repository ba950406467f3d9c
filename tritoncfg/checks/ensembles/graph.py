"""The ensemble tensor graph across models: Triton's `ValidateEnsembleConfig`
(ensemble_utils.cc), offline.

Each ensemble tensor takes its data type and shape from the first model that names it: the
ensemble's own inputs, then its outputs, then the steps in order (each step's inputs in the step
model's config order, then its outputs). Every later use must agree. The step models' configs are
the completed ones (`ctx.config(peer)`). Where a backend would fill in inputs or outputs from the
model file (auto-complete on, the step config lists none), the mapping cannot be checked.
Triton stops at the first problem; `analyse` goes on and returns all of them, in Triton's order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from enum import Enum, auto
from pathlib import Path

from tritoncfg.checks.common.tensor_size import dims_text
from tritoncfg.checks.core.context import CheckContext, checkable
from tritoncfg.checks.ensembles.flow import map_items, map_path, step_path
from tritoncfg.diagnostics import Severity
from tritoncfg.record import field, record
from tritoncfg.schema import DataType, ModelConfig, ModelEnsembling, ModelInput, ModelOutput
from tritoncfg.text.bind import FieldPath
from tritoncfg.workspace import LoadedModel

# Backends whose auto-complete takes inputs and outputs from the model file (python: from
# `auto_complete_config` in model.py). TensorFlow, ONNX Runtime, TensorRT, OpenVINO, DALI.
AUTO_COMPLETE_BACKENDS = frozenset(
    {"tensorflow", "onnxruntime", "tensorrt", "openvino", "python", "dali"}
)

ModelKey = tuple[Path, str]


def model_key(model: LoadedModel) -> ModelKey:
    return (model.repository.root, model.name)


class StepProblem(Enum):
    """What is wrong with an ensemble step against its step model's config; each kind is one
    rule's (ensemble_xmodel)."""

    BATCH_SIZE_TOO_SMALL = auto()
    UNKNOWN_INPUT = auto()
    UNKNOWN_OUTPUT = auto()
    INPUT_NOT_MAPPED = auto()
    TYPE_MISMATCH = auto()
    SHAPE_MISMATCH = auto()
    MIXED_DECOUPLED = auto()


@record(frozen=True)
class Problem:
    kind: StepProblem
    message: str
    path: FieldPath
    triton_message: str | None
    severity: Severity | None = None  # None: the rule's
    value: bool = True  # point at the value rather than the field name


@record(eq=False)
class Node:
    """`TensorNode`: an ensemble tensor as the first model naming it defines it."""

    model: str  # that model's name (Triton's `model_id_`)
    role: str  # for tritoncfg's messages: "input 'IN' of model 'm' (step 0)"
    path: FieldPath
    dtype: int | None = None  # None: no model defines it (missing step model, auto-complete)
    dims: tuple[int, ...] = ()
    full_dims: tuple[int, ...] = ()  # with -1 for the batch dimension when max_batch_size > 0
    decoupled: bool = False
    label: int = 0
    visited: bool = False
    written_at: FieldPath | None = None
    written_by: str = ""  # "step 2 (model 'join')"
    sibling: Node | None = None  # shared by the outputs of one step
    prev: list[Node] = field(default_factory=list)
    next: list[Node] = field(default_factory=list)

    def define(
        self, model: str, role: str, batching: bool, dtype: int, dims: Iterable[int]
    ) -> None:
        self.model, self.role, self.dtype, self.dims = model, role, dtype, tuple(dims)
        self.full_dims = ((-1,) if batching else ()) + self.dims


def type_name(dtype: int | None) -> str:
    try:
        return DataType.Name(dtype or 0)
    except ValueError:
        return ""  # C++ DataType_Name of an undefined number


def _same_shape(a: Sequence[int], b: Sequence[int]) -> bool:
    """`CompareDimsWithWildcard`: same rank, and -1 matches anything."""
    return len(a) == len(b) and all(x == -1 or y == -1 or x == y for x, y in zip(a, b, strict=True))


@record
class Analysis:
    problems: list[Problem]
    # ValidateEnsembleConfig sets the ensemble's model_transaction_policy.decoupled to this
    decoupled: bool


class _Graph:
    def __init__(self, model: LoadedModel, ctx: CheckContext, visiting: frozenset[ModelKey]):
        self.model, self.ctx = model, ctx
        self.visiting = visiting | {model_key(model)}
        self.config = ctx.config(model)
        self.name = ctx.completion(model).name
        self.tensors: dict[str, Node] = {}
        self.problems: list[Problem] = []
        self.sink = Node(self.name, f"the outputs of ensemble '{self.name}'", ("output",))

    def problem(
        self,
        kind: StepProblem,
        message: str,
        path: FieldPath,
        triton: str | None,
        value: bool = True,
    ) -> None:
        self.problems.append(Problem(kind, message, path, triton, value=value))

    def tensor(self, name: str, model: str, role: str, path: FieldPath) -> Node:
        return self.tensors.setdefault(name, Node(model, role, path))

    def ensemble_io(self) -> None:
        for j, t in enumerate(self.config.input):
            self.ensemble_tensor("input", j, t)
        for j, out in enumerate(self.config.output):
            node = self.ensemble_tensor("output", j, out)
            self.sink.prev.append(node)
            node.next.append(self.sink)

    def ensemble_tensor(self, kind: str, j: int, t: ModelInput | ModelOutput) -> Node:
        """An ensemble input or output: the first to name a tensor defines it (by its reshape,
        if it has one)."""
        role = f"ensemble {kind} '{t.name}'"
        node = self.tensor(t.name, self.name, role, (kind, j, "name"))
        if node.dtype is None:
            dims = t.reshape.shape if t.HasField("reshape") else t.dims
            node.define(self.name, role, self.config.max_batch_size > 0, t.data_type, dims)
        return node

    def use(
        self,
        tensor: str,
        path: FieldPath,
        model: str,
        role: str,
        batching: bool,
        dtype: int,
        dims: Iterable[int],
    ) -> Node:
        """A step model's input or output mapped to `tensor`: define it, or check it agrees."""
        node = self.tensors.get(tensor)
        if node is None or node.dtype is None:
            node = self.tensor(tensor, model, role, (*path, "value"))
            node.define(model, role, batching, dtype, dims)
            return node
        other = Node(model, role, path)
        other.define(model, role, batching, dtype, dims)
        prefix = f"in ensemble {self.name}, ensemble tensor {tensor}: "
        if node.dtype != other.dtype:
            self.problem(
                StepProblem.TYPE_MISMATCH,
                f"ensemble tensor '{tensor}' is {type_name(node.dtype)} as {node.role} but "
                f"{type_name(dtype)} as {role}; make the data types agree",
                (*path, "value"),
                f"{prefix}inconsistent data type: {type_name(node.dtype)} is inferred from model "
                f"{node.model} while {type_name(dtype)} is inferred from model {model}",
            )
        elif not _same_shape(node.dims, other.dims) and not _same_shape(
            node.full_dims, other.full_dims
        ):
            self.problem(
                StepProblem.SHAPE_MISMATCH,
                f"ensemble tensor '{tensor}' has shape {dims_text(node.full_dims)} as {node.role} "
                f"but {dims_text(other.full_dims)} as {role} (-1 first: the batch dimension of a "
                "model with max_batch_size > 0); make the dims agree",
                (*path, "value"),
                f"{prefix}inconsistent shape: {dims_text(node.full_dims)} is inferred from model "
                f"{node.model} while {dims_text(other.full_dims)} is inferred from model {model}",
            )
        return node

    def step(self, i: int, step: ModelEnsembling.Step) -> None:
        peer = self.ctx.workspace.peer(self.model, step.model_name)
        known = peer is not None and checkable(peer, self.ctx.options)
        config = self.ctx.config(peer) if known and peer is not None else None  # else: TC520/TC522
        decoupled = False
        if config is not None and peer is not None:
            self.batch_size(i, step, config)
            fills = not self.ctx.strict and config.backend in AUTO_COMPLETE_BACKENDS
            self.inputs(i, step, config, fills)
            self.outputs(i, step, config, fills)
            decoupled = self.decoupled(peer, config)
        sibling = Node(step.model_name, "", step_path(i))
        inputs = map_items(self.model, i, "input_map", step.input_map)
        for key, value in inputs:
            role = f"input '{key}' of model '{step.model_name}' (step {i})"
            self.tensor(value, step.model_name, role, (*map_path(i, "input_map", key), "value"))
        for key, value in map_items(self.model, i, "output_map", step.output_map):
            path = map_path(i, "output_map", key)
            role = f"output '{key}' of model '{step.model_name}' (step {i})"
            node = self.tensor(value, step.model_name, role, (*path, "value"))
            node.sibling = sibling
            if node.written_at is None:
                node.written_at, node.written_by = (
                    (*path, "value"),
                    f"step {i} ('{step.model_name}')",
                )
            node.decoupled = decoupled
            for _, source in inputs:
                node.prev.append(self.tensors[source])
                self.tensors[source].next.append(node)

    def batch_size(self, i: int, step: ModelEnsembling.Step, config: ModelConfig) -> None:
        mbs, ours = config.max_batch_size, self.config.max_batch_size
        if mbs != 0 and mbs < ours:
            self.problem(
                StepProblem.BATCH_SIZE_TOO_SMALL,
                f"model '{step.model_name}' (step {i}) allows batches of at most {mbs}, but this "
                f"ensemble accepts {ours}; lower the ensemble's max_batch_size to {mbs} or raise "
                "the step model's",
                (*step_path(i), "model_name"),
                f"ensemble {self.name} allows maximum batch size {ours}, but it contains model "
                f"{step.model_name} which only allows maximum batch size to be {mbs}",
            )

    def undecidable(
        self,
        problem: StepProblem,
        i: int,
        step: ModelEnsembling.Step,
        config: ModelConfig,
        kind: str,
    ) -> None:
        self.problems.append(
            Problem(
                problem,
                f"cannot check the {kind}_map of step {i}: model '{step.model_name}' lists no "
                f"{kind}s, and its backend ({config.backend}) takes them from the model file when "
                f"it loads, which tritoncfg does not read; write the {kind}s in its config to have "
                "them checked",
                (*step_path(i), "model_name"),
                None,
                Severity.INFO,
            )
        )

    def inputs(self, i: int, step: ModelEnsembling.Step, config: ModelConfig, fills: bool) -> None:
        if not config.input and fills:
            if step.input_map:
                self.undecidable(StepProblem.UNKNOWN_INPUT, i, step, config, "input")
            return
        names = {t.name for t in config.input}
        m = step.model_name
        for key, value in map_items(self.model, i, "input_map", step.input_map):
            if key not in names:
                self.problem(
                    StepProblem.UNKNOWN_INPUT,
                    f"model '{m}' has no input '{key}' (its inputs: {_names(config.input)}); "
                    "fix the input_map key",
                    (*map_path(i, "input_map", key), "key"),
                    f"in ensemble {self.name}, ensemble tensor {value} is mapping to non-existing "
                    f"input {key} in model {m}",
                )
        batching = config.max_batch_size > 0
        for t in config.input:
            if t.name in step.input_map:
                role = f"input '{t.name}' of model '{m}' (step {i})"
                path = map_path(i, "input_map", t.name)
                self.use(step.input_map[t.name], path, m, role, batching, t.data_type, t.dims)
            elif not t.optional and step.input_map:
                self.problem(
                    StepProblem.INPUT_NOT_MAPPED,
                    f"input '{t.name}' of model '{m}' is not fed by step {i}: add it to the "
                    "input_map (or mark it optional in that model)",
                    (*step_path(i), "input_map"),
                    f"in ensemble {self.name}, input {t.name} in model {m} is not mapped to any "
                    "ensemble tensors",
                    value=False,
                )

    def outputs(self, i: int, step: ModelEnsembling.Step, config: ModelConfig, fills: bool) -> None:
        if not config.output and fills:
            if step.output_map:
                self.undecidable(StepProblem.UNKNOWN_OUTPUT, i, step, config, "output")
            return
        m = step.model_name
        by_name = {t.name: t for t in reversed(config.output)}  # the first of a duplicated name
        entries = map_items(self.model, i, "output_map", step.output_map)
        for key, value in entries:
            if key not in by_name:
                self.problem(
                    StepProblem.UNKNOWN_OUTPUT,
                    f"model '{m}' has no output '{key}' (its outputs: {_names(config.output)}); "
                    "fix the output_map key",
                    (*map_path(i, "output_map", key), "key"),
                    f"in ensemble {self.name}, ensemble tensor {value} is mapped from non-existing "
                    f"output {key} in model {m}",
                )
        batching = config.max_batch_size > 0
        for key, value in entries:
            t = by_name.get(key)
            if t is not None:
                role = f"output '{key}' of model '{m}' (step {i})"
                path = map_path(i, "output_map", key)
                self.use(value, path, m, role, batching, t.data_type, t.dims)

    def decoupled(self, peer: LoadedModel, config: ModelConfig) -> bool:
        if config.HasField("ensemble_scheduling"):  # a nested ensemble's is computed
            if model_key(peer) in self.visiting:
                return False  # a cycle: TC521
            return analyse(peer, self.ctx, self.visiting).decoupled
        return config.model_transaction_policy.decoupled

    def labels(self) -> int:
        """Spread decoupled labels from the ensemble inputs (`ValidateEnsembleConfig`);
        returns the last label."""
        label = 0
        reported: set[Node] = set()
        queue: deque[Node] = deque()
        for t in self.config.input:
            start = self.tensors[t.name]
            start.visited = True
            queue.append(start)
        while queue:
            for node in queue.popleft().next:
                if node.visited or not all(p.visited for p in node.prev):
                    continue
                first = node.prev[0].label
                mixed = any(p.label != first for p in node.prev)
                if mixed and (node.sibling is None or node.sibling not in reported):
                    self.mixed_labels(node)  # once per step: its outputs share the inputs
                    reported.add(node.sibling or node)
                if node.sibling is not None and node.sibling.visited:
                    node.label = node.sibling.label
                else:
                    if node.decoupled:
                        label += 1
                    node.label = label if node.decoupled else first
                    if node.sibling is not None:
                        node.sibling.label, node.sibling.visited = node.label, True
                node.visited = True
                queue.append(node)
        return label

    def mixed_labels(self, node: Node) -> None:
        what = (
            "the ensemble's outputs come"
            if node is self.sink
            else (f"the inputs of {node.written_by or node.role} come")
        )
        self.problem(
            StepProblem.MIXED_DECOUPLED,
            f"{what} from different decoupled models: responses of different decoupled steps "
            "cannot be paired, so combine only tensors that descend from the same decoupled step "
            "(or from none)",
            node.written_at or node.path,
            f"in ensemble {self.name}, step of model '{node.model}' receives inputs originated "
            "from different decoupled models",
            value=node is not self.sink,
        )


def _names(tensors: Iterable[ModelInput | ModelOutput]) -> str:
    names = [t.name for t in tensors]
    return ", ".join(f"'{n}'" for n in names) if names else "none"


def analyse(
    model: LoadedModel, ctx: CheckContext, visiting: frozenset[ModelKey] = frozenset()
) -> Analysis:
    """Every cross-model problem of an ensemble, in the order Triton would meet them."""
    return ctx.memo(
        ("ensemble-analysis", id(model), visiting), lambda: _analyse(model, ctx, visiting)
    )


def _analyse(model: LoadedModel, ctx: CheckContext, visiting: frozenset[ModelKey]) -> Analysis:
    graph = _Graph(model, ctx, visiting)
    graph.ensemble_io()
    for i, step in enumerate(graph.config.ensemble_scheduling.step):
        if step.model_name:  # a step without one is TC507
            graph.step(i, step)
    last = graph.labels()
    return Analysis(graph.problems, last != 0)
