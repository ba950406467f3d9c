"""An ensemble's tensors flowing between its steps during a probe.

Steps run in the ensemble's order, each at the same batch sizes and shape levels. What a step
returns at a point is kept under the ensemble tensor its `output_map` names; a later step whose
`input_map` reads that tensor gets it at its matching point (same batch size and shape level)
instead of a generated input, when the shape and type agree. A python step never runs, so the
step after it gets generated inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tritoncfg.probe.contract import TestPoint
from tritoncfg.probe.plan import LEVELS, ModelPlan

if TYPE_CHECKING:
    import numpy as np

Key = tuple[int | None, str]


class Flow:
    def __init__(self) -> None:
        self._tensors: dict[Key, dict[str, np.ndarray]] = {}

    @staticmethod
    def _key(point: TestPoint) -> Key:
        level = next((r for r in point.reasons if r in LEVELS), "opt")
        return point.batch_size, level

    def feed(self, step: ModelPlan, point: TestPoint, inputs: dict[str, np.ndarray]) -> bool:
        """Replace the inputs an earlier step produced; True when any was."""
        produced = self._tensors.get(self._key(point), {})
        wired = False
        for name, tensor in step.wiring_in.items():
            array = produced.get(tensor)
            current = inputs.get(name)
            if array is None or current is None:
                continue
            if array.shape == current.shape and array.dtype == current.dtype:
                inputs[name] = array
                wired = True
        return wired

    def keep(self, step: ModelPlan, point: TestPoint, outputs: Mapping[str, np.ndarray]) -> None:
        produced = self._tensors.setdefault(self._key(point), {})
        for name, tensor in step.wiring_out.items():
            if name in outputs:
                produced[tensor] = outputs[name]


__all__ = ["Flow"]
