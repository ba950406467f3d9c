"""How Triton's PyTorch backend binds a config's tensors to a TorchScript model, restated without
torch (`pytorch_backend` `src/pt/model_instance_state.cc`: `ValidateInputs`, `ValidateOutputs`,
`GetNamingConvention`, `AddInputToMap`, `ValidateBooleanSequenceControl`).

Inputs, when `forward()` takes tensors (or lists of strings):

1. FORWARD_ARGUMENT: every config input is named after an argument of `forward()`, and goes to
   that argument;
2. NAMED_INDEX: otherwise, when every config input is named `<name>__<index>`, it goes to
   argument `<index>`;
3. STRICT_CONFIG_ORDERING: otherwise the config's order is `forward()`'s order.

A `forward()` that takes one `Dict[str, Tensor]` gets every input by its name. The number of
arguments must equal the config's inputs plus the sequence batcher's control and state inputs
(which must be `<name>__<index>`). Outputs: `<name>__<index>` takes the model's output
`<index>` when every output is named so, else the config's order. Data types the backend cannot
hand to torch (unsigned above 8 bits, BF16) are refused at load, as the backend refuses them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from tritoncfg.probe.contract import RunnerError
from tritoncfg.probe.runners.parameters import refused
from tritoncfg.record import record
from tritoncfg.schema import DataType, ModelConfig

NAMED_INDEX = "NAMED_INDEX"
FORWARD_ARGUMENT = "FORWARD_ARGUMENT"
STRICT_CONFIG_ORDERING = "STRICT_CONFIG_ORDERING"
DICTIONARY = "DICTIONARY"  # forward(self, inputs: Dict[str, Tensor])

# `ModelConfigDataTypeToTorchType` (libtorch_utils.cc); TYPE_STRING goes as a List[str]
TORCH_TYPES = frozenset(
    "TYPE_" + t
    for t in ("BOOL", "UINT8", "INT8", "INT16", "INT32", "INT64", "FP16", "FP32", "FP64")
)
_DIGITS = re.compile(r"[0-9]*")


@record(frozen=True)
class Argument:
    """One parameter of the model's `forward()` schema, its type kind as TorchScript names it
    ("TensorType", "ListType", "DictType", "ClassType" for `self`, ...)."""

    name: str
    kind: str


@record(frozen=True)
class Binding:
    inputs: dict[str, int]  # config input (and control / state input) -> forward() position
    outputs: dict[str, int]  # config output -> position among the model's outputs
    input_convention: str
    output_convention: str
    arguments: int  # forward()'s arguments, `self` left out

    @property
    def as_dict(self) -> bool:
        return self.input_convention == DICTIONARY


def bind(config: ModelConfig, arguments: Sequence[Argument]) -> Binding:
    """Triton's binding of `config` to a model whose `forward()` takes `arguments`; a
    RunnerError with the backend's message where it refuses to load the model."""
    args = list(arguments[1:] if arguments and arguments[0].kind == "ClassType" else arguments)
    _check_types(config)
    controls = [c.name for c in config.sequence_batching.control_input]
    states = [s.input_name for s in config.sequence_batching.state]
    names = [t.name for t in config.input]
    outputs, output_convention = _outputs(config)
    if len(args) == 1 and args[0].kind == "DictType":
        every = {n: i for i, n in enumerate(names + controls + states)}
        return Binding(every, outputs, DICTIONARY, output_convention, 1)
    _check_arguments(config, args, len(names) + len(controls) + len(states))
    convention = _input_convention(names, [a.name for a in args])
    if states and convention != NAMED_INDEX:
        raise _refused(
            f"PyTorch model '{config.name}' is using sequence batching with state but not all "
            "inputs and outputs follow the <name>__<index> naming convention."
        )
    inputs = {}
    for order, name in enumerate(names + states):
        if convention == FORWARD_ARGUMENT:
            inputs[name] = [a.name for a in args].index(name)
        elif convention == NAMED_INDEX:
            inputs[name] = _index(name, "input")
        else:
            inputs[name] = order
    for name in controls:
        inputs[name] = _index(name, "input")
    return Binding(inputs, outputs, convention, output_convention, len(args))


def _check_types(config: ModelConfig) -> None:
    for kind, tensors in (("input", config.input), ("output", config.output)):
        for tensor in tensors:
            name = DataType.Name(tensor.data_type)
            if name not in TORCH_TYPES and name != "TYPE_STRING":
                raise _refused(
                    f"unsupported datatype {name} for {kind} '{tensor.name}' for model "
                    f"'{config.name}'"
                )


def _check_arguments(config: ModelConfig, args: list[Argument], expected: int) -> None:
    if any(a.kind == "DictType" for a in args[1:]):
        raise _refused(
            "Multiple inputs of kind DictType were detected. Only a single input of type "
            "Dict(str, Tensor) is supported."
        )
    for arg in args:
        if arg.kind not in ("TensorType", "ListType"):
            raise _refused(
                f"An input of type '{arg.kind}' was detected in the model. Only a single input "
                "of type Dict(str, Tensor) or input(s) of type Tensor are supported."
            )
    if len(args) != expected:
        raise _refused(
            f"unable to load model '{config.name}', configuration expects {expected} inputs, "
            f"model provides {len(args)}"
        )


def _input_convention(names: list[str], allowed: list[str]) -> str:
    if all(name in allowed for name in names):
        return FORWARD_ARGUMENT
    return NAMED_INDEX if _all_indexed(names) else STRICT_CONFIG_ORDERING


def _outputs(config: ModelConfig) -> tuple[dict[str, int], str]:
    names = [o.name for o in config.output]
    if _all_indexed(names):
        return {name: _index(name, "output") for name in names}, NAMED_INDEX
    return {name: order for order, name in enumerate(names)}, STRICT_CONFIG_ORDERING


def _all_indexed(names: Iterable[str]) -> bool:
    return all(_index_text(name) is not None for name in names)


def _index(name: str, kind: str) -> int:
    """`<name>__<index>`'s index; an empty index reads as 0, as the backend's `atoi` reads it."""
    text = _index_text(name)
    if text is None:
        raise _refused(f"{kind} '{name}' does not follow <name>__<index> naming convention.")
    return int(text or "0")


def _index_text(name: str) -> str | None:
    """What follows the first "__" when it is all digits (or nothing), else None."""
    start = name.find("__")
    if start < 0:
        return None
    text = name[start + 2 :]
    return text if _DIGITS.fullmatch(text) else None


def _refused(message: str) -> RunnerError:
    return refused(message, "pytorch")


__all__ = [
    "DICTIONARY",
    "FORWARD_ARGUMENT",
    "NAMED_INDEX",
    "STRICT_CONFIG_ORDERING",
    "TORCH_TYPES",
    "Argument",
    "Binding",
    "bind",
]
