"""The files of one scaffolded model: its config (an `inference.ModelConfig` printed the way
`fmt` prints) and version folder, from a template or from a model file (`--from-model`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tritoncfg.record import field, record
from tritoncfg.scaffold.resources import read_template, render
from tritoncfg.scaffold.spec import ScaffoldError, TensorSpec
from tritoncfg.schema import ModelConfig, ModelInput, ModelOutput

TEMPLATES = ("onnx", "tensorrt", "python", "pytorch", "ensemble", "bls")
BACKENDS = {
    "onnx": "onnxruntime",
    "tensorrt": "tensorrt",
    "python": "python",
    "bls": "python",
    "pytorch": "pytorch",
}
MODEL_FILES = {"onnxruntime": "model.onnx", "tensorrt": "model.plan", "pytorch": "model.pt"}
MAX_BATCH_SIZE = 8
HEAD_FIELDS = ("name", "platform", "backend")
KEEP = ".gitkeep"  # keeps the version folder in git until the model file is there


@record
class ModelFiles:
    """One model folder: path inside it -> text to write, or a file to copy."""

    name: str
    files: dict[str, str | Path] = field(default_factory=dict)
    missing: str | None = None  # the model file the user still has to put in, e.g. 1/model.onnx


def default_tensors(template: str) -> tuple[list[TensorSpec], list[TensorSpec]]:
    """The PyTorch backend names tensors by position (`INPUT__0`); the others take any name."""
    sep = "__" if template == "pytorch" else ""
    return (
        [TensorSpec(f"INPUT{sep}0", "TYPE_FP32", (16,))],
        [TensorSpec(f"OUTPUT{sep}0", "TYPE_FP32", (16,))],
    )


def config_text(config: ModelConfig) -> str:
    """The config in `tritoncfg fmt` style, `name`, `platform` and `backend` first, checked by
    parsing it back."""
    from tritoncfg.complete.merge import render_message
    from tritoncfg.text import parse

    head, rest = ModelConfig(), ModelConfig()
    rest.CopyFrom(config)
    for name in HEAD_FIELDS:
        if getattr(config, name):
            setattr(head, name, getattr(config, name))
            rest.ClearField(name)
    text = render_message(head) + render_message(rest)
    if parse(text).message != config:  # pragma: no cover - a printer bug
        raise ScaffoldError(f"the config of {config.name!r} does not print back to itself")
    return text


def tensor_config(
    name: str,
    backend: str,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    max_batch_size: int = MAX_BATCH_SIZE,
) -> ModelConfig:
    config = ModelConfig(name=name, backend=backend, max_batch_size=max_batch_size)
    for spec, tensors in ((inputs, config.input), (outputs, config.output)):
        for tensor in spec:
            tensors.add(name=tensor.name, data_type=tensor.data_type, dims=list(tensor.dims))
    if max_batch_size > 0:
        config.dynamic_batching.SetInParent()
    return config


def from_template(
    template: str,
    name: str,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    target: str = "model",
    max_batch_size: int = MAX_BATCH_SIZE,
) -> list[ModelFiles]:
    """The model folders a template makes (an ensemble makes its two steps too)."""
    if template == "ensemble":
        return ensemble(name, inputs, outputs)
    config = tensor_config(name, BACKENDS[template], inputs, outputs, max_batch_size)
    if template == "tensorrt":
        add_warmup(config)
    model = ModelFiles(name, {"config.pbtxt": config_text(config)})
    if template in {"python", "bls"}:
        model.files["1/model.py"] = render(
            f"{template}/model.py",
            name=name,
            target=target,
            inputs=_py_tensors(config.input),
            outputs=_py_tensors(config.output),
            auto_complete_config=read_template("python/auto_complete_config.txt").rstrip("\n"),
        )
    else:
        model.files[f"1/{KEEP}"] = ""
        model.missing = f"1/{MODEL_FILES[BACKENDS[template]]}"
    return [model]


def ensemble(
    name: str, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> list[ModelFiles]:
    """An ensemble of two python steps, `<name>_preprocess` then `<name>_model`, wired by name:
    the ensemble's inputs -> preprocess -> `<input>_pre` tensors -> model -> its outputs."""
    if len(inputs) != len(outputs):
        raise ScaffoldError(
            "the ensemble template passes inputs through its steps by position: give as many "
            "--output as --input"
        )
    middle = [TensorSpec(f"{t.name}_pre", t.data_type, t.dims) for t in inputs]
    pre, main = f"{name}_preprocess", f"{name}_model"
    steps = [
        *from_template("python", pre, inputs, middle),
        *from_template("python", main, middle, outputs),
    ]
    config = ModelConfig(name=name, platform="ensemble", max_batch_size=MAX_BATCH_SIZE)
    for spec, tensors in ((inputs, config.input), (outputs, config.output)):
        for tensor in spec:
            tensors.add(name=tensor.name, data_type=tensor.data_type, dims=list(tensor.dims))
    for step_name, step_in, step_out in ((pre, inputs, middle), (main, middle, outputs)):
        step = config.ensemble_scheduling.step.add(model_name=step_name, model_version=-1)
        for tensor in step_in:
            step.input_map[tensor.name] = tensor.name
        for tensor in step_out:
            step.output_map[tensor.name] = tensor.name
    return [ModelFiles(name, {"config.pbtxt": config_text(config), f"1/{KEEP}": ""}), *steps]


def add_warmup(config: ModelConfig) -> None:
    """Zero-data warmup at batch 1 and max_batch_size, so TensorRT initializes before the first
    request (Triton's model_warmup); none when a dimension is variable (no size to warm)."""
    if any(d < 0 for tensor in config.input for d in tensor.dims):
        return
    for batch in sorted({1, config.max_batch_size or 1}):
        sample = config.model_warmup.add(name=f"zero_batch_{batch}", batch_size=batch)
        for tensor in config.input:
            data = sample.inputs[tensor.name]
            data.data_type = tensor.data_type
            data.dims.extend(tensor.dims)
            data.zero_data = True


def _py_tensors(tensors: Sequence[ModelInput] | Sequence[ModelOutput]) -> str:
    """The tensors as the Python literal model.py's auto_complete_config passes to add_input
    when config.pbtxt declares none."""
    from tritoncfg.schema import DataType

    items = [
        f'{{"name": "{t.name}", "data_type": "{DataType.Name(t.data_type)}", '
        f'"dims": {list(t.dims)}}}'
        for t in tensors
    ]
    return "[\n    " + ",\n    ".join(items) + ",\n]" if items else "[]"


__all__ = [
    "BACKENDS",
    "MODEL_FILES",
    "TEMPLATES",
    "ModelFiles",
    "config_text",
    "default_tensors",
    "from_template",
    "tensor_config",
]
