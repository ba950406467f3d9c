"""Reading an OpenVINO IR (`model.xml`) the way the OpenVINO backend sees it, without OpenVINO.

The IR is plain XML: each `Parameter` layer is a model input and each `Result` layer a model
output, whose tensor is the output port of the layer that feeds it (found through `<edges>`).
A tensor's name is what `ov::Output::get_any_name()` returns: the smallest (byte-wise) of the
port's comma-separated `names` (OpenVINO `src/core/src/descriptor/tensor.cpp`, `set_names`). Inputs and outputs keep the document's order, as OpenVINO's IR
reader does. Dims are the port's `<dim>` values (-1: dynamic); a Parameter's `data shape` can
also give bounded ranges (`1..8`), kept as the string "1..8". The `layout` rt_info attribute of
a port (`[N,C,H,W]`) says whether the tensor has a batch dimension. `model.bin` (the weights) is
never read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tritoncfg.models.io import Dim, ModelIO, TensorInfo, Unknowable

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

# `OpenVINOElementToModelConfigDataType` (openvino_backend `openvino_utils.cc`); other element
# types (bf16, f64, i4, u1, ...) have no Triton type
ELEMENT_TYPES = {
    "boolean": "TYPE_BOOL",
    "u8": "TYPE_UINT8",
    "u16": "TYPE_UINT16",
    "u32": "TYPE_UINT32",
    "u64": "TYPE_UINT64",
    "i8": "TYPE_INT8",
    "i16": "TYPE_INT16",
    "i32": "TYPE_INT32",
    "i64": "TYPE_INT64",
    "f16": "TYPE_FP16",
    "f32": "TYPE_FP32",
}
# a port's `precision` attribute (older IRs) as an element type
_PRECISIONS = {"BOOL": "boolean", "FP32": "f32", "FP16": "f16", "FP64": "f64", "BF16": "bf16"}


def read_openvino(path: Path) -> ModelIO | Unknowable:
    """The IR's inputs and outputs, or why they cannot be read (never raises for a bad file)."""
    import xml.etree.ElementTree as ET  # only for a model with an .xml

    try:
        root = ET.parse(path).getroot()
    except OSError as error:
        return Unknowable(path, f"cannot read {path.name}: {error.strerror or error}", "unreadable")
    except ET.ParseError as error:
        return Unknowable(path, f"{path.name} is not well-formed XML: {error}", "unreadable")
    if root.tag != "net" or root.find("layers") is None:
        why = f"{path.name} is not an OpenVINO IR (no <net> with <layers>)"
        return Unknowable(path, why, "unreadable")
    try:
        return _describe(root, path)
    except (KeyError, ValueError) as error:
        return Unknowable(path, f"{path.name} could not be inspected: {error}", "unreadable")


def _describe(root: Element, path: Path) -> ModelIO:
    layers = root.findall("./layers/layer")
    by_id = {layer.get("id", ""): layer for layer in layers}
    feeds = {  # (to-layer, to-port) -> (from-layer, from-port)
        (edge.get("to-layer"), edge.get("to-port")): (edge.get("from-layer"), edge.get("from-port"))
        for edge in root.findall("./edges/edge")
    }
    inputs, outputs = [], []
    for layer in layers:
        kind = layer.get("type")
        if kind == "Parameter":
            port = layer.find("./output/port")
            if port is None:
                raise ValueError(f"Parameter '{layer.get('name')}' has no output port")
            inputs.append(_tensor(layer, port, _data_shape(layer)))
        elif kind == "Result":
            inputs_port = layer.find("./input/port")
            source = feeds.get(
                (layer.get("id"), None if inputs_port is None else inputs_port.get("id"))
            )
            if source is None or source[0] not in by_id:
                raise ValueError(f"Result '{layer.get('name')}' is fed by no layer")
            producer = by_id[source[0]]
            port = producer.find(f"./output/port[@id='{source[1]}']")
            if port is None:
                raise ValueError(f"Result '{layer.get('name')}': no port {source[1]}")
            outputs.append(_tensor(layer, port, None, also=inputs_port))
    return ModelIO(
        "openvino",
        path,
        tuple(inputs),
        tuple(outputs),
        version=root.get("version"),
    )


def _names(port: Element | None) -> set[str]:
    text = "" if port is None else port.get("names") or ""
    return {name.strip() for name in text.split(",") if name.strip()}


def _tensor(
    layer: Element, port: Element, shape: tuple[Dim, ...] | None, *, also: Element | None = None
) -> TensorInfo:
    # a Result shares its input's tensor: names written on its own input port add to it
    names = _names(port) | _names(also)
    # a Result without tensor names is named after the layer (OpenVINO's legacy naming)
    name = min(names) if names else (layer.get("name") or "")
    element = _element_type(layer, port)
    if shape is None:
        shape = tuple(_dim(d.text) for d in port.findall("dim"))
    layout = port.find("./rt_info/attribute[@name='layout']")
    return TensorInfo(
        name=name,
        data_type=ELEMENT_TYPES.get(element),
        source_type=element,
        shape=shape,
        layout=None if layout is None else layout.get("layout"),
    )


def _element_type(layer: Element, port: Element) -> str:
    data = layer.find("data")
    if layer.get("type") == "Parameter" and data is not None and data.get("element_type"):
        return data.get("element_type", "")
    precision = (port.get("precision") or "").upper()
    if precision in _PRECISIONS:
        return _PRECISIONS[precision]
    return precision.lower()  # I32 -> i32, U8 -> u8


def _data_shape(layer: Element) -> tuple[Dim, ...] | None:
    """A Parameter's `data shape` ("1,3,?,-1,1..8"): ranges are kept; None when not given."""
    data = layer.find("data")
    text = None if data is None else data.get("shape")
    if text is None:
        return None
    return tuple(_dim(part) for part in text.split(",")) if text.strip() else ()


def _dim(text: str | None) -> Dim:
    value = (text or "").strip()
    if value in ("?", "-1", ""):
        return None
    if ".." in value:
        low, _, high = value.partition("..")
        if not high or high == "-1":
            return None  # no upper bound: any size
        return f"{low or 0}..{high}"
    return int(value)


def has_batch(layout: str | None) -> bool:
    """`ov::layout::has_batch`: the layout names an `N` dimension ("NCHW", "[N,H]", "N...")."""
    if not layout:
        return False
    text = layout.strip().strip("[]")
    parts = text.split(",") if "," in text else list(text.replace("...", ""))
    return any(part.strip().upper() == "N" for part in parts)


def dim_matches(model_dim: Dim, config_dim: int) -> bool:
    """`doesMatch` (openvino_utils.cc): a static dim must be equal; an unbounded one takes any
    size; a bounded range `a..b` takes only sizes strictly between a and b (sic)."""
    if isinstance(model_dim, int):
        return model_dim == config_dim
    if model_dim is None:
        return True
    low, _, high = model_dim.partition("..")
    return int(low) < config_dim < int(high)


__all__ = ["ELEMENT_TYPES", "dim_matches", "has_batch", "read_openvino"]
