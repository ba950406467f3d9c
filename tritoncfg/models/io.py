"""The uniform description of a model file's I/O that model-aware checks and auto-complete use."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

# A dimension: a fixed size (>= 0), a symbolic name ("batch"), or None (unknown / dynamic, -1).
Dim = int | str | None

ModelFormat = Literal["onnx", "tensorrt"]


@dataclass(frozen=True, slots=True)
class TensorInfo:
    name: str
    data_type: str | None  # Triton's TYPE_* name (e.g. "TYPE_FP16"); None when Triton has none
    source_type: str  # the framework's own type name (e.g. "float16"), for messages
    shape: tuple[Dim, ...] | None  # None: rank unknown

    @property
    def dynamic_first_dim(self) -> bool:
        return bool(self.shape) and not isinstance(self.shape[0], int)  # type: ignore[index]


@dataclass(frozen=True, slots=True)
class Profile:
    """A TensorRT optimization profile: min/opt/max shape per input."""

    index: int
    shapes: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]


@dataclass(frozen=True, slots=True)
class ModelIO:
    format: ModelFormat
    path: Path
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    opset: int | None = None  # ONNX default-domain opset
    ir_version: int | None = None
    external_data: bool = False  # weights in files beside the model
    profiles: tuple[Profile, ...] = ()  # TensorRT
    implicit_batch: bool = False  # TensorRT engines built with an implicit batch dimension
    max_batch_size: int | None = None  # what the engine/model allows, when the file says
    version: str | None = None  # framework version that wrote/built the file
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Unknowable:
    """What cannot be known from the files, and why (e.g. a TorchScript model, or a .plan on a
    machine without TensorRT)."""

    path: Path | None
    reason: str
