"""Model-file introspection: what a model file says about its inputs and outputs.

Heavy libraries (onnx, tensorrt) are imported inside the readers, only when a model file of that
kind is present; nothing here is imported by a plain `lint` of configs without model files.
"""

from __future__ import annotations

from tritoncfg.models.io import Dim, ModelIO, TensorInfo, Unknowable

__all__ = ["Dim", "ModelIO", "TensorInfo", "Unknowable"]
