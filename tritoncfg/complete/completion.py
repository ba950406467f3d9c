"""What the backends' auto-complete (backend.py, backend_openvino.py) produces, and the tensor
lists it fills: apart from both, so neither imports the other's module back."""

from __future__ import annotations

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from tritoncfg.record import field, record
from tritoncfg.schema import ModelConfig, ModelInput, ModelOutput

ConfigTensors = (
    RepeatedCompositeFieldContainer[ModelInput] | RepeatedCompositeFieldContainer[ModelOutput]
)


@record
class BackendCompletion:
    """The config once the backend's auto-complete is merged (`TritonModel::UpdateModelConfig`), before re-normalizing."""

    config: ModelConfig
    errors: list[str] = field(default_factory=list)  # the backend's messages; the load fails
    notes: list[str] = field(default_factory=list)  # Triton's log lines, and tritoncfg's own
    ran: bool = False  # the backend completed the config (False: skipped, or not modelled)

    @property
    def ok(self) -> bool:
        return not self.errors
