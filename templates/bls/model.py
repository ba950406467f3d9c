"""Triton python-backend BLS model `$name` (scaffolded by `tritoncfg new`).

Business Logic Scripting: execute() calls another model of the repository through Triton
(`pb_utils.InferenceRequest(...).exec()`) and returns its outputs. Triton's python backend runs
this file; it provides `triton_python_backend_utils`.
"""

import json

import triton_python_backend_utils as pb_utils

# The model this one calls, and the tensors config.pbtxt declares (auto_complete_config states
# them again for Triton's auto-complete, which fills an entry in place).
TARGET_MODEL = "$target"
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
        self.model_config = json.loads(args["model_config"])

    def execute(self, requests):
        """Forward each request's inputs to TARGET_MODEL; one response per request, in order."""
        responses = []
        for request in requests:
            inputs = [
                pb_utils.get_input_tensor_by_name(request, t["name"]) for t in INPUTS
            ]
            called = pb_utils.InferenceRequest(
                model_name=TARGET_MODEL,
                requested_output_names=[t["name"] for t in OUTPUTS],
                inputs=inputs,
            ).exec()
            if called.has_error():
                error = pb_utils.TritonError(called.error().message())
                responses.append(pb_utils.InferenceResponse(error=error))
                continue
            outputs = [
                pb_utils.get_output_tensor_by_name(called, t["name"]) for t in OUTPUTS
            ]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses

    def finalize(self):
        """Called once at unload."""
        pb_utils.Logger.log_info("$name: unloaded")
