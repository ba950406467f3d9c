"""One small interface over whichever TensorRT Python module is installed.

`tensorrt` (TensorRT 10 and 11, needs a GPU to run an engine) or `tensorrt_rtx` (TensorRT-RTX:
nearly the same builder API; it parses ONNX and builds engines without a GPU, but Triton's
TensorRT backend cannot load its engines). The module is chosen at import, plain TensorRT first.

Features are detected from the module's attributes, not from its version string alone:
- TensorRT 10 has `BuilderFlag.FP16`, `BF16`, `INT8`, `FP8` (deprecated from 10.12, "superseded
  by strong typing"); TensorRT 11 removed them: the precision comes from the ONNX tensor types
  (strong typing is always on). A precision request the installed module cannot honour raises
  `UnsupportedPrecision`; probe never builds FP32 in its place.
- `NetworkDefinitionCreationFlag.EXPLICIT_BATCH` is needed before 10 only (ignored in 10,
  removed in 11).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from tritoncfg.record import field, record

# Precisions a user may ask for, and the builder flag that carries each (TensorRT 10).
PRECISION_FLAGS: dict[str, str | None] = {
    "fp32": None,  # always: no flag
    "tf32": "TF32",
    "fp16": "FP16",
    "bf16": "BF16",
    "int8": "INT8",
    "fp8": "FP8",
}

MODULES = ("tensorrt", "tensorrt_rtx")


class TrtMissing(Exception):
    """Neither `tensorrt` nor `tensorrt_rtx` can be imported."""


class UnsupportedPrecision(ValueError):
    """A precision request the installed TensorRT cannot honour with a builder flag."""


@record
class CapturedLog:
    """Every message the library logged, with its severity name ("ERROR", "WARNING", ...)."""

    entries: list[tuple[str, str]] = field(default_factory=list)

    def errors(self) -> list[str]:
        return [m for s, m in self.entries if s in ("ERROR", "INTERNAL_ERROR", "kERROR")]

    def clear(self) -> None:
        self.entries.clear()


@record(frozen=True)
class TrtAdapter:
    """The installed TensorRT module and what it can do."""

    module: Any
    flavor: str  # "tensorrt" or "tensorrt_rtx"

    @property
    def version(self) -> str:
        return str(getattr(self.module, "__version__", "unknown"))

    @property
    def major(self) -> int:
        head = self.version.split(".")[0]
        return int(head) if head.isdigit() else 0

    @property
    def label(self) -> str:
        """`TensorRT 10.16.0` or `TensorRT-RTX 1.7.1.116`, for messages and reports."""
        name = "TensorRT-RTX" if self.flavor == "tensorrt_rtx" else "TensorRT"
        return f"{name} {self.version}"

    @property
    def triton_loadable(self) -> bool:
        """Whether Triton's TensorRT backend can load the engines this module builds."""
        return self.flavor == "tensorrt"

    def network_flags(self) -> int:
        """`create_network` flags: EXPLICIT_BATCH before TensorRT 10 only (Polygraphy does so)."""
        if self.flavor == "tensorrt" and 0 < self.major < 10:
            flag = self.module.NetworkDefinitionCreationFlag.EXPLICIT_BATCH
            return 1 << int(flag)
        return 0

    def precision_flags(self, requested: Iterable[str]) -> list[Any]:
        """The builder flags for the requested precisions; raises UnsupportedPrecision for a
        request this module has no flag for (never a silent FP32 build)."""
        flags: list[Any] = []
        builder_flags = self.module.BuilderFlag
        for name in requested:
            key = name.lower()
            if key not in PRECISION_FLAGS:
                known = ", ".join(PRECISION_FLAGS)
                raise UnsupportedPrecision(f"unknown precision '{name}' (known: {known})")
            attr = PRECISION_FLAGS[key]
            if attr is None:
                continue
            if not hasattr(builder_flags, attr):
                raise UnsupportedPrecision(self._no_flag(key, attr))
            flags.append(getattr(builder_flags, attr))
        return flags

    def _no_flag(self, key: str, attr: str) -> str:
        why = (
            "TensorRT 11 removed the weak-typing precision flags: the precision comes from the "
            "ONNX tensor types (strong typing)"
            if self.flavor == "tensorrt" and self.major >= 11
            else f"{self.label} is strongly typed: the precision comes from the ONNX tensor types"
        )
        return (
            f"precision '{key}' cannot be requested from {self.label}: it has no "
            f"BuilderFlag.{attr}. {why}. Convert the model to {key} first (for example with "
            f"ModelOpt AutoCast, or Q/DQ nodes for int8/fp8); probe does not build FP32 instead."
        )

    def make_logger(self, log: CapturedLog) -> Any:
        """A `trt.ILogger` subclass that records every message into `log`."""
        trt = self.module

        class CapturingLogger(trt.ILogger):  # type: ignore[misc,name-defined]
            def __init__(self) -> None:
                trt.ILogger.__init__(self)

            def log(self, severity: Any, msg: str) -> None:
                log.entries.append((str(getattr(severity, "name", severity)), str(msg)))

        return CapturingLogger()


def load_adapter(prefer: str | None = None) -> TrtAdapter:
    """Import `tensorrt`, else `tensorrt_rtx` (or only `prefer`); raises TrtMissing."""
    names = (prefer,) if prefer else MODULES
    problems = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception as error:  # ImportError, or a broken install raising on import
            problems.append(f"import {name}: {error}")
            continue
        return TrtAdapter(module=module, flavor=name)
    raise TrtMissing(
        "TensorRT is not installed ("
        + "; ".join(problems)
        + "); install `tensorrt` on a GPU machine, or `tensorrt-rtx` to build engines on CPU"
    )
