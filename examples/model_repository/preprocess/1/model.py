"""Triton python-backend model: standardize each feature row to zero mean and unit variance.

Input ``raw`` [batch, 16] FP32 -> output ``features`` [batch, 16] FP32. Runs inside Triton's
python backend, which provides ``triton_python_backend_utils``; tritoncfg never imports it.
"""

from __future__ import annotations

import json
from typing import Any

import triton_python_backend_utils as pb_utils

# Guards against division by zero for constant rows.
EPSILON = 1e-6


class TritonPythonModel:
    def initialize(self, args: dict[str, str]) -> None:
        model_config = json.loads(args["model_config"])
        output_config = pb_utils.get_output_config_by_name(model_config, "features")
        self.output_dtype = pb_utils.triton_string_to_numpy(output_config["data_type"])

    def execute(self, requests: list[Any]) -> list[Any]:
        # With dynamic batching Triton passes several requests; answer each, in order.
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "raw").as_numpy()
            mean = raw.mean(axis=1, keepdims=True)
            std = raw.std(axis=1, keepdims=True)
            features = ((raw - mean) / (std + EPSILON)).astype(self.output_dtype)
            output = pb_utils.Tensor("features", features)
            responses.append(pb_utils.InferenceResponse(output_tensors=[output]))
        return responses

    def finalize(self) -> None:
        pb_utils.Logger.log_info("preprocess: unloaded")
