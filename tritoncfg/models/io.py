"""The uniform description of a model file's I/O that model-aware checks and auto-complete use."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from tritoncfg.record import field, record

# A dimension: a fixed size (>= 0), a symbolic name ("batch"), or None (unknown / dynamic, -1).
Dim = int | str | None

ModelFormat = Literal["onnx", "tensorrt", "openvino"]

# Why a model's I/O is not known: the format does not say (TorchScript, model.py), this machine
# lacks what reading it needs (tensorrt, a GPU, onnx), the file is empty, or it is not readable.
UnknowableCause = Literal["opaque", "unavailable", "empty", "unreadable"]


@record(frozen=True)
class TensorInfo:
    name: str
    data_type: str | None  # Triton's TYPE_* name (e.g. "TYPE_FP16"); None when Triton has none
    source_type: str  # the framework's own type name (e.g. "float16"), for messages
    shape: tuple[Dim, ...] | None  # None: rank unknown
    is_shape_tensor: bool = False  # TensorRT: a shape tensor (isShapeInferenceIO)
    io_format: str | None = None  # TensorRT: the TensorFormat name ("LINEAR", "CHW32"); None: ONNX
    layout: str | None = None  # OpenVINO IR: the port's layout rt_info ("[N,C,H,W]"); None: unset

    @property
    def dynamic_first_dim(self) -> bool:
        return bool(self.shape) and not isinstance(self.shape[0], int)  # type: ignore[index]

    @property
    def wildcard_shape(self) -> tuple[int, ...] | None:
        """The shape as the backends see it: every symbolic or unknown dimension is -1."""
        if self.shape is None:
            return None
        return tuple(d if isinstance(d, int) else -1 for d in self.shape)

    @property
    def non_linear_format(self) -> bool:
        return self.io_format is not None and self.io_format != "LINEAR"


@record(frozen=True)
class Profile:
    """A TensorRT optimization profile: min/opt/max shape per input."""

    index: int
    shapes: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]
    # shape-tensor inputs: min/opt/max of the values they carry (get_tensor_profile_values)
    values: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = field(
        default_factory=dict
    )


@record(frozen=True)
class ModelIO:
    format: ModelFormat
    path: Path
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    opset: int | None = None  # ONNX default-domain opset
    ir_version: int | None = None
    external_data: bool = False  # weights in files beside the model
    external_files: tuple[str, ...] = ()  # ONNX: the external data locations, as written
    profiles: tuple[Profile, ...] = ()  # TensorRT
    implicit_batch: bool = False  # TensorRT engines built with an implicit batch dimension
    max_batch_size: int | None = None  # what the engine/model allows, when the file says
    version: str | None = None  # framework version that wrote/built the file
    notes: tuple[str, ...] = field(default_factory=tuple)
    # ONNX: graph inputs that are also initializers (IR >= 4): a request may override them, but
    # they are not required inputs (ONNX Runtime's overridable initializers)
    initializers: tuple[TensorInfo, ...] = ()


@record(frozen=True)
class Unknowable:
    """What cannot be known from the files, and why (e.g. a TorchScript model, or a .plan on a
    machine without TensorRT)."""

    path: Path | None
    reason: str
    cause: UnknowableCause = "opaque"
