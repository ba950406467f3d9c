"""Reading an ONNX model's inputs and outputs the way the ONNX Runtime backend sees them.

`onnx` is imported inside `read_onnx` only, and weights in external files are never loaded. The
view is ONNX Runtime's: graph inputs that are initializers are not required inputs (from IR 4 on
they are *overridable initializers*), and output shapes are what shape inference makes of the
declared ones (ORT reports `y: [N, 4]` for a declared `y: [N, ?]`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tritoncfg.models.dtypes import onnx_type
from tritoncfg.models.io import Dim, ModelIO, TensorInfo, Unknowable

if TYPE_CHECKING:
    from onnx import ModelProto, ValueInfoProto

Shape = tuple[Dim, ...] | None

# `TensorProto.EXTERNAL`: the initializer's bytes live in another file
_EXTERNAL = 1
# ONNX Runtime overrides initializers listed as graph inputs only from IR version 4
_OVERRIDABLE_FROM_IR = 4


def read_onnx(path: Path) -> ModelIO | Unknowable:
    """The model's I/O, or why it cannot be read (never raises for a bad file)."""
    try:
        size = path.stat().st_size
    except OSError as error:
        return Unknowable(path, f"cannot read {path.name}: {error.strerror or error}", "unreadable")
    if size == 0:
        return Unknowable(path, f"{path.name} is empty (0 bytes), not an ONNX model", "empty")
    try:
        import onnx
    except ImportError:
        why = "cannot inspect .onnx here: the onnx package is not installed"
        return Unknowable(path, why, "unavailable")
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as error:  # DecodeError and friends: report the reason, not a traceback
        return Unknowable(path, f"{path.name} is not a readable ONNX model: {error}", "unreadable")
    if not model.HasField("graph") or model.ir_version == 0:
        why = f"{path.name} is not an ONNX model (no graph or no IR version)"
        return Unknowable(path, why, "unreadable")
    try:
        return describe(model, path)
    except Exception as error:  # a model that parses but is malformed in a way not foreseen here
        return Unknowable(path, f"{path.name} could not be inspected: {error}", "unreadable")


def describe(model: ModelProto, path: Path) -> ModelIO:
    """The ModelIO of a loaded ModelProto (weights not needed)."""
    graph = model.graph
    weights = {t.name for t in graph.initializer} | {
        s.values.name for s in graph.sparse_initializer
    }
    notes: list[str] = []
    inputs, initializers = [], []
    for value in graph.input:
        if value.name not in weights:
            inputs.append(tensor_info(value))
        elif model.ir_version >= _OVERRIDABLE_FROM_IR:
            initializers.append(tensor_info(value))
        else:
            notes.append(
                f"graph input '{value.name}' is an initializer (IR {model.ir_version} < 4): "
                "ONNX Runtime treats it as a constant"
            )
    inferred = _inferred_output_shapes(model, notes)
    outputs = []
    for value in graph.output:
        info = tensor_info(value)
        if value.name in inferred:
            shape = merge_shapes(info.shape, inferred[value.name])
            if shape != info.shape:
                notes.append(
                    f"output '{value.name}': shape {_show(info.shape)} is {_show(shape)} "
                    "after shape inference"
                )
            info = TensorInfo(info.name, info.data_type, info.source_type, shape)
        outputs.append(info)
    external = [t for t in graph.initializer if t.data_location == _EXTERNAL]
    locations = sorted({_location(t) for t in external} - {""})
    notes.extend(_missing_external_files(locations, path.parent))
    producer = f"{model.producer_name} {model.producer_version}".strip()
    return ModelIO(
        format="onnx",
        path=path,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        opset=default_opset(model.opset_import),
        ir_version=model.ir_version,
        external_data=bool(external),
        external_files=tuple(locations),
        version=producer or None,
        notes=tuple(notes),
        initializers=tuple(initializers),
    )


def tensor_info(value: ValueInfoProto) -> TensorInfo:
    kind = value.type.WhichOneof("value")
    if kind != "tensor_type":
        # sequences, maps, optionals: no Triton type, shape not comparable
        return TensorInfo(value.name, None, kind or "undefined", None)
    tensor = value.type.tensor_type
    data_type, source = onnx_type(tensor.elem_type)
    shape: Shape = None
    if tensor.HasField("shape"):
        shape = tuple(_dim(d) for d in tensor.shape.dim)
    return TensorInfo(value.name, data_type, source, shape)


def _dim(dim: Any) -> Dim:
    which = dim.WhichOneof("value")
    if which == "dim_value":
        return int(dim.dim_value) if dim.dim_value >= 0 else None
    if which == "dim_param":
        return str(dim.dim_param) or None
    return None


def default_opset(imports: Iterable[Any]) -> int | None:
    return next((int(o.version) for o in imports if o.domain in ("", "ai.onnx")), None)


def merge_shapes(declared: Shape, inferred: Shape) -> Shape:
    """ONNX Runtime's merge of a declared output shape with the inferred one: a fixed inferred size
    fills a symbolic or unknown one; conflicting sizes become unknown, as do conflicting ranks
    (ORT falls back to a "lenient merge" and logs a warning)."""
    if declared is None:
        return inferred
    if inferred is None:
        return declared
    if len(declared) != len(inferred):
        return None
    merged: list[Dim] = []
    for mine, theirs in zip(declared, inferred, strict=True):
        if isinstance(mine, int):
            merged.append(None if isinstance(theirs, int) and theirs != mine else mine)
        elif isinstance(theirs, int):
            merged.append(theirs)
        else:
            merged.append(mine if mine is not None else theirs)
    return tuple(merged)


def _inferred_output_shapes(model: ModelProto, notes: list[str]) -> dict[str, Shape]:
    """Output shapes from ONNX shape inference, computed without the declared output shapes (so a
    conflict with them shows); empty when every declared output shape is fully fixed."""
    if all(_fixed(tensor_info(o).shape) for o in model.graph.output):
        return {}
    import onnx

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for output in probe.graph.output:
        if output.type.WhichOneof("value") == "tensor_type":
            output.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(probe, strict_mode=False)
    except Exception as error:  # too large, unknown ops...: keep the declared shapes
        notes.append(f"shape inference failed, declared output shapes used: {error}")
        return {}
    found: dict[str, Shape] = {}
    for output in inferred.graph.output:
        tensor = tensor_info(output)
        if tensor.shape is not None:
            found[output.name] = tensor.shape
    return found


def _fixed(shape: Shape) -> bool:
    return shape is not None and all(isinstance(d, int) for d in shape)


def _location(tensor: Any) -> str:
    return str({e.key: e.value for e in tensor.external_data}.get("location", ""))


def _missing_external_files(locations: list[str], folder: Path) -> list[str]:
    return [
        f"external data file '{name}' is not beside the model (ONNX Runtime cannot load it)"
        for name in locations
        if external_data_escape(folder, name) is None and not (folder / name).is_file()
    ]


def external_data_escape(folder: Path, location: str) -> str | None:
    """Why ONNX Runtime refuses the external data file `location` of a model file in `folder`,
    or None: it must resolve, symlinks followed, inside the real path of the model file's folder
    (onnxruntime `tensorprotoutils.cc`, `ValidateExternalDataPath`); only path names are
    looked at, no file is read."""
    if os.path.isabs(location) or location.startswith(("/", "\\")):
        return "it is an absolute path"
    base = os.path.realpath(folder)
    real = os.path.realpath(os.path.join(base, location))
    if os.path.commonpath([base, real]) != base:
        return f"it resolves to '{real}', outside the model file's folder '{base}'"
    return None


def _show(shape: Shape) -> str:
    if shape is None:
        return "(unknown rank)"
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


__all__ = ["describe", "external_data_escape", "merge_shapes", "read_onnx", "tensor_info"]
