"""Test support: write a real OpenVINO IR (`model.xml`, IR v11) with the standard library.

The network is Parameters, each feeding one Relu whose output port feeds a Result, which is what
OpenVINO's IR serializer writes for such a graph (names, precisions, dims, layout rt_info)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

PRECISION = {"f32": "FP32", "f16": "FP16", "i32": "I32", "i64": "I64", "u8": "U8", "f64": "FP64"}


@dataclass(frozen=True)
class Port:
    names: str  # comma-separated tensor names, as in the IR
    element: str = "f32"  # OpenVINO element type
    dims: tuple[int, ...] = (1, 4)  # -1: dynamic
    layout: str | None = None  # e.g. "[N,C]"
    shape: str | None = None  # a Parameter's `data shape` when it differs ("1..8,4")


def _port(parent: ET.Element, port_id: int, port: Port, *, names: bool = True) -> None:
    attrs = {"id": str(port_id), "precision": PRECISION[port.element]}
    if names:
        attrs["names"] = port.names
    element = ET.SubElement(parent, "port", attrs)
    for dim in port.dims:
        ET.SubElement(element, "dim").text = str(dim)
    if port.layout is not None and names:
        info = ET.SubElement(element, "rt_info")
        ET.SubElement(info, "attribute", name="layout", version="0", layout=port.layout)


def write_ir(path: Path, inputs: list[Port], outputs: list[Port]) -> Path:
    """`outputs[i]` is computed from `inputs[i % len(inputs)]`."""
    net = ET.Element("net", name="model", version="11")
    layers = ET.SubElement(net, "layers")
    edges = ET.SubElement(net, "edges")
    next_id = 0
    param_ids = []
    for i, port in enumerate(inputs):
        layer = ET.SubElement(layers, "layer", id=str(next_id), name=f"in{i}", type="Parameter")
        shape = port.shape or ",".join("?" if d == -1 else str(d) for d in port.dims)
        ET.SubElement(layer, "data", shape=shape, element_type=port.element)
        _port(ET.SubElement(layer, "output"), 0, port)
        param_ids.append(next_id)
        next_id += 1
    for j, port in enumerate(outputs):
        relu = ET.SubElement(layers, "layer", id=str(next_id), name=f"relu{j}", type="ReLU")
        _port(ET.SubElement(relu, "input"), 0, port, names=False)
        _port(ET.SubElement(relu, "output"), 1, port)
        result = ET.SubElement(layers, "layer", id=str(next_id + 1), name=f"out{j}", type="Result")
        _port(ET.SubElement(result, "input"), 0, port, names=False)
        source = param_ids[j % len(param_ids)]
        ET.SubElement(
            edges,
            "edge",
            {"from-layer": str(source), "from-port": "0", "to-layer": str(next_id), "to-port": "0"},
        )
        ET.SubElement(
            edges,
            "edge",
            {
                "from-layer": str(next_id),
                "from-port": "1",
                "to-layer": str(next_id + 1),
                "to-port": "0",
            },
        )
        next_id += 2
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(net).write(path, encoding="unicode", xml_declaration=True)
    (path.parent / "model.bin").write_bytes(b"")
    return path
