"""Triton python-backend model `$name` (scaffolded by `tritoncfg new`).

Triton's python backend runs this file; it provides `triton_python_backend_utils`. The skeleton
passes each input through to the output of the same position: replace `compute` with the model.
config.pbtxt is the one source of the tensors and max_batch_size: this file reads them from the
config Triton hands over, so editing them there needs no edit here.
"""

import json

import numpy as np
import triton_python_backend_utils as pb_utils

# The tensors auto_complete_config declares only when config.pbtxt declares none (Triton also
# loads a python model that has no config.pbtxt); where the config has them, they are the ones.
DEFAULT_INPUTS = $inputs
DEFAULT_OUTPUTS = $outputs


class TritonPythonModel:
$auto_complete_config

    def initialize(self, args):
        """Called once per instance; `args` values are strings (model_config is JSON)."""
        self.model_config = config = json.loads(args["model_config"])
        self.input_names = [tensor["name"] for tensor in config["input"]]
        self.outputs = [
            (tensor["name"], pb_utils.triton_string_to_numpy(tensor["data_type"]))
            for tensor in config["output"]
        ]

    def execute(self, requests):
        """One response per request, in order (dynamic batching hands over several at once)."""
        responses = []
        for request in requests:
            arrays = [
                pb_utils.get_input_tensor_by_name(request, name).as_numpy()
                for name in self.input_names
            ]
            results = self.compute(arrays)
            outputs = [
                pb_utils.Tensor(name, np.asarray(result).astype(dtype))
                for (name, dtype), result in zip(self.outputs, results)
            ]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses

    def compute(self, arrays):
        """The model: inputs in config order -> outputs in config order."""
        return arrays

    def finalize(self):
        """Called once at unload."""
        pb_utils.Logger.log_info("$name: unloaded")
