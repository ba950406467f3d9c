"""The steps of Triton's model load, which a rule names as the one that applies the same check."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """The step of Triton's model load that applies a check, in pipeline order (default mode;
    strict mode validates inputs and outputs before NAME: see ensemble_deps)."""

    PARSE = "PARSE"  # model_config_utils.cc: GetNormalizedModelConfig reads the text proto
    REPO = "REPO"  # model_repository_manager.cc: the repository poll
    AUTOFILL = "AUTOFILL"  # model_config_utils.cc: AutoCompleteBackendFields
    VALIDATE = "VALIDATE"  # model_config_utils.cc: ValidateModelConfig
    NAME = "NAME"  # model_repository_manager.cc: the config's name against its directory
    VERSIONS = "VERSIONS"  # model_lifecycle.cc: the version policy selects versions
    BACKEND_CREATE = "BACKEND_CREATE"  # backend_model.cc: TritonModel::Create
    VALIDATE_IO = "VALIDATE_IO"  # model_config_utils.cc: ValidateModelIOConfig
    MODEL_INIT = "MODEL_INIT"  # the backend's TRITONBACKEND_ModelInitialize
    INSTANCE = "INSTANCE"  # backend_model_instance.cc: instances, warmup
    SCHEDULER = "SCHEDULER"  # dynamic_batch_scheduler.cc, sequence_batch_scheduler.cc
    DEPS = "DEPS"  # model_repository_manager.cc: an ensemble's dependency graph
    XMODEL = "XMODEL"  # ensemble_utils.cc: an ensemble against its step models
    LOAD = "LOAD"  # any step of the load: a real server's verdict (`tritoncfg verify`)
    RUNTIME = "RUNTIME"  # Triton loads the model; requests fail
    BEST_PRACTICE = "BEST_PRACTICE"  # Triton accepts the config
