"""Triton python-backend BLS model `$name` (scaffolded by `tritoncfg new`).

Business Logic Scripting: execute() calls another model of the repository through Triton
(`pb_utils.InferenceRequest(...).exec()`) and returns its outputs. Triton's python backend runs
this file; it provides `triton_python_backend_utils`. config.pbtxt is the one source of the
tensors and max_batch_size (scaffolded as the target's): this file reads them from the config
Triton hands over.
"""

import json

import triton_python_backend_utils as pb_utils

# The model this one calls, and the tensors auto_complete_config declares only when
# config.pbtxt declares none (the target's, when it was scaffolded).
TARGET_MODEL = "$target"
DEFAULT_INPUTS = $inputs
DEFAULT_OUTPUTS = $outputs


class TritonPythonModel:
$auto_complete_config

    def initialize(self, args):
        """Called once per instance; `args` values are strings (model_config is JSON)."""
        self.model_config = config = json.loads(args["model_config"])
        self.input_names = [tensor["name"] for tensor in config["input"]]
        self.output_names = [tensor["name"] for tensor in config["output"]]

    def execute(self, requests):
        """Forward each request's inputs to TARGET_MODEL; one response per request, in order."""
        responses = []
        for request in requests:
            given = [
                pb_utils.get_input_tensor_by_name(request, name)
                for name in self.input_names
            ]
            inputs = [tensor for tensor in given if tensor is not None]  # optional ones
            called = pb_utils.InferenceRequest(
                model_name=TARGET_MODEL,
                requested_output_names=self.output_names,
                inputs=inputs,
            ).exec()
            if called.has_error():
                error = pb_utils.TritonError(called.error().message())
                responses.append(pb_utils.InferenceResponse(error=error))
                continue
            outputs = [
                pb_utils.get_output_tensor_by_name(called, n) for n in self.output_names
            ]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses

    def finalize(self):
        """Called once at unload."""
        pb_utils.Logger.log_info("$name: unloaded")
