"""Triton python-backend model: map class probabilities to the most likely class name.

Input ``probabilities`` [batch, 4] FP32 -> output ``label`` [batch, 1] STRING. The class names
come from the file named by the ``labels`` parameter, relative to this model's directory.
Runs inside Triton's python backend; tritoncfg never imports it.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args: dict[str, str]) -> None:
        model_config = json.loads(args["model_config"])
        labels_path = model_config["parameters"]["labels"]["string_value"]
        # args["model_repository"] is this model's own directory, e.g. /models/postprocess.
        labels_path = os.path.join(args["model_repository"], labels_path)
        with open(labels_path, encoding="utf-8") as labels_file:
            labels = [line.strip() for line in labels_file if line.strip()]
        input_config = pb_utils.get_input_config_by_name(model_config, "probabilities")
        class_count = int(input_config["dims"][-1])
        if len(labels) != class_count:
            raise pb_utils.TritonModelException(
                f"{labels_path} has {len(labels)} labels but 'probabilities' has {class_count} classes"
            )
        # Triton sends TYPE_STRING tensors as numpy object arrays of bytes.
        self.labels = np.array([label.encode("utf-8") for label in labels], dtype=np.object_)

    def execute(self, requests: list[Any]) -> list[Any]:
        responses = []
        for request in requests:
            probabilities = pb_utils.get_input_tensor_by_name(request, "probabilities").as_numpy()
            best = probabilities.argmax(axis=1)
            label = self.labels[best].reshape(-1, 1)
            output = pb_utils.Tensor("label", label)
            responses.append(pb_utils.InferenceResponse(output_tensors=[output]))
        return responses

    def finalize(self) -> None:
        pb_utils.Logger.log_info("postprocess: unloaded")
