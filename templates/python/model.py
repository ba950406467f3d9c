"""Triton python-backend model `$name` (scaffolded by `tritoncfg new`).

Triton's python backend runs this file; it provides `triton_python_backend_utils`. The skeleton
passes each input through to the output of the same position: replace `compute` with the model.
"""

import json

import numpy as np
import triton_python_backend_utils as pb_utils

# The tensors config.pbtxt declares; auto_complete_config states them again for Triton's
# auto-complete, which fills an entry in place and rejects a conflicting one.
INPUTS = $inputs
OUTPUTS = $outputs
MAX_BATCH_SIZE = $max_batch_size


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        """Called once at load, before initialize (unless --disable-auto-complete-config)."""
        for tensor in INPUTS:
            auto_complete_model_config.add_input(tensor)
        for tensor in OUTPUTS:
            auto_complete_model_config.add_output(tensor)
        if MAX_BATCH_SIZE > 0:
            auto_complete_model_config.set_max_batch_size(MAX_BATCH_SIZE)
            auto_complete_model_config.set_dynamic_batching()
        return auto_complete_model_config

    def initialize(self, args):
        """Called once per instance; `args` values are strings (model_config is JSON)."""
        self.model_config = config = json.loads(args["model_config"])
        self.output_dtypes = []
        for tensor in OUTPUTS:
            output = pb_utils.get_output_config_by_name(config, tensor["name"])
            dtype = pb_utils.triton_string_to_numpy(output["data_type"])
            self.output_dtypes.append(dtype)

    def execute(self, requests):
        """One response per request, in order (dynamic batching hands over several at once)."""
        responses = []
        for request in requests:
            arrays = [
                pb_utils.get_input_tensor_by_name(request, tensor["name"]).as_numpy()
                for tensor in INPUTS
            ]
            results = self.compute(arrays)
            outputs = [
                pb_utils.Tensor(tensor["name"], np.asarray(result).astype(dtype))
                for tensor, result, dtype in zip(OUTPUTS, results, self.output_dtypes)
            ]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses

    def compute(self, arrays):
        """The model: inputs in config order -> outputs in config order."""
        return arrays

    def finalize(self):
        """Called once at unload."""
        pb_utils.Logger.log_info("$name: unloaded")
