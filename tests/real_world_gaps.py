"""The ERRORs a real-world config gets only because the corpus does not hold everything its
upstream deploys: one entry per case, each with a reason the test checks against the corpus.

The corpus keeps configs, not model files, custom backends or models a QA test.sh generates at
run time. Each `Gap` names the finding it accounts for (its kind gives the code; the model the
finding is about; the step model, backend, agent or file the message names) and the fact that
explains it ("step model 'x' is not in the corpus folder"). The test fails an entry as stale when
that fact no longer holds (the file is in the corpus now) or when the finding no longer comes.

To add entries, run the real-world test: an unexpected ERROR of one of these kinds is printed with
the `Gap(...)` line that would account for it; add it only if its reason is true of the case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tritoncfg.diagnostics import Diagnostic

GapKind = Literal["step_missing", "step_fails", "model_file", "backend", "repo_agent", "label_file"]

CODES: dict[GapKind, str] = {
    "step_missing": "TC520",
    "step_fails": "TC522",
    "model_file": "TC110",
    "backend": "TC120",
    "repo_agent": "TC124",
    "label_file": "TC331",
}


@dataclass(frozen=True)
class Gap:
    kind: GapKind
    model: str  # the model the finding is about (an ensemble's finding shows under its steps too)
    subject: str = ""  # the step model, backend, agent or label file the message names
    missing: str = ""  # step_fails: the step's own step model that the corpus lacks

    def reason(self) -> str:
        return {
            "step_missing": f"step model '{self.subject}' of ensemble '{self.model}' is not in "
            "the corpus folder (the QA test copies or generates it at run time)",
            "step_fails": f"step model '{self.subject}' of '{self.model}' is in the corpus, "
            f"but its own step '{self.missing}' is not",
            "model_file": f"no model file of '{self.model}' is in the corpus (it is fetched or "
            "built at deploy time), so the backend cannot be detected from it",
            "backend": f"custom backend '{self.subject}', installed by the upstream's QA image or "
            f"host; the corpus holds no libtriton_{self.subject}.so",
            "repo_agent": f"repository agent '{self.subject}', installed by the upstream's QA "
            f"image; the corpus holds no libtritonrepoagent_{self.subject}.so",
            "label_file": f"label file '{self.subject}' of '{self.model}' is not in the corpus",
        }[self.kind]

    def matches(self, diagnostic: Diagnostic) -> bool:
        return (
            diagnostic.code == CODES[self.kind]
            and diagnostic.model == self.model
            and (not self.subject or f"'{self.subject}'" in diagnostic.message)
        )

    def stale_because(self, models: frozenset[str], files: frozenset[str] | None) -> str | None:
        """Why the reason no longer holds, or None. `models`: the models the corpus provides to
        this case (the config's own and its siblings'); `files`: the paths (relative, `/`) the
        corpus holds in the model dir of `self.model`, None if it provides no such model."""
        if self.kind == "step_missing":
            return f"the corpus now holds '{self.subject}'" if self.subject in models else None
        if self.kind == "step_fails":
            if self.subject not in models:
                return f"the corpus no longer holds '{self.subject}'"
            return f"the corpus now holds '{self.missing}'" if self.missing in models else None
        if files is None:
            return f"the corpus provides no model '{self.model}' to this case"
        wanted = {
            "model_file": re.compile(r"(^|/)model\.[^/]+$"),
            "backend": re.compile(rf"(^|/)libtriton_{re.escape(self.subject)}\.so$"),
            "repo_agent": re.compile(rf"(^|/)libtritonrepoagent_{re.escape(self.subject)}\.so$"),
            "label_file": re.compile(rf"^{re.escape(self.subject)}$"),
        }[self.kind]
        present = sorted(f for f in files if wanted.search(f))
        return f"the corpus now holds {', '.join(present)}" if present else None


_PROPOSALS: tuple[tuple[GapKind, re.Pattern[str]], ...] = (
    ("step_missing", re.compile(r"runs model '([^']+)', which is not in the repository")),
    (
        "step_fails",
        re.compile(r"runs model '([^']+)', which .*not available or ambiguous: ([^)]+)"),
    ),
    ("model_file", re.compile(r"()")),
    ("backend", re.compile(r"backend '([^']+)'")),
    ("repo_agent", re.compile(r"repository agent '([^']+)'")),
    ("label_file", re.compile(r"label file '([^']+)'")),
)


def propose(diagnostic: Diagnostic) -> Gap | None:
    """The entry that would account for `diagnostic`, if it is of a gap kind (to be checked by
    hand before it is added: the reason must be true of the case)."""
    for kind, pattern in _PROPOSALS:
        found = pattern.search(diagnostic.message)
        if diagnostic.code == CODES[kind] and found and diagnostic.model:
            groups = (*found.groups(), "")
            return Gap(kind, diagnostic.model, groups[0], groups[1] if kind == "step_fails" else "")
    return None


# Written with `propose` over the corpus, then read case by case; each reason is checked by the test.
CORPUS_GAPS: dict[str, tuple[Gap, ...]] = {
    "server__deploy__gke-marketplace-app__benchmark__model-store__bert_base_tf_cpu__config.pbtxt": (
        Gap("model_file", "bert_base_tf_cpu"),
    ),
    "server__deploy__gke-marketplace-app__benchmark__model-store__bert_base_tf_gpu__config.pbtxt": (
        Gap("model_file", "bert_base_tf_gpu"),
    ),
    "server__deploy__gke-marketplace-app__benchmark__model-store__bert_distill_tf_cpu__config.pbtxt": (
        Gap("model_file", "bert_distill_tf_cpu"),
    ),
    "server__deploy__gke-marketplace-app__benchmark__model-store__bert_distill_tf_gpu__config.pbtxt": (
        Gap("model_file", "bert_distill_tf_gpu"),
    ),
    "server__qa__L0_decoupled__models__fan_repeat__config.pbtxt": (
        Gap("step_missing", "fan_repeat", "repeat_int32"),
        Gap("step_missing", "fan_repeat", "libtorch_nobatch_int32_int32_int32"),
    ),
    "server__qa__L0_decoupled__models__identity_int32__config.pbtxt": (
        Gap("step_missing", "fan_repeat", "repeat_int32"),
        Gap("step_missing", "fan_repeat", "libtorch_nobatch_int32_int32_int32"),
        Gap("step_missing", "sequence_repeat", "repeat_int32"),
    ),
    "server__qa__L0_decoupled__models__nested_square__config.pbtxt": (
        Gap("step_fails", "nested_square", "simple_repeat", "repeat_int32"),
        Gap("step_missing", "nested_square", "square_int32"),
    ),
    "server__qa__L0_decoupled__models__repeat_square__config.pbtxt": (
        Gap("step_missing", "repeat_square", "repeat_int32"),
        Gap("step_missing", "repeat_square", "square_int32"),
    ),
    "server__qa__L0_decoupled__models__sequence_repeat__config.pbtxt": (
        Gap("step_missing", "sequence_repeat", "repeat_int32"),
    ),
    "server__qa__L0_decoupled__models__simple_repeat__config.pbtxt": (
        Gap("step_fails", "nested_square", "simple_repeat", "repeat_int32"),
        Gap("step_missing", "nested_square", "square_int32"),
        Gap("step_missing", "simple_repeat", "repeat_int32"),
    ),
    "server__qa__L0_implicit_state__models__growable_memory__config.pbtxt": (
        Gap("backend", "growable_memory", "implicit_state"),
    ),
    "server__qa__L0_implicit_state__models__no_implicit_state__config.pbtxt": (
        Gap("backend", "no_implicit_state", "implicit_state"),
    ),
    "server__qa__L0_implicit_state__models__no_state_update__config.pbtxt": (
        Gap("backend", "no_state_update", "implicit_state"),
    ),
    "server__qa__L0_implicit_state__models__single_state_buffer__config.pbtxt": (
        Gap("backend", "single_state_buffer", "implicit_state"),
    ),
    "server__qa__L0_implicit_state__models__wrong_internal_state__config.pbtxt": (
        Gap("backend", "wrong_internal_state", "implicit_state"),
    ),
    "server__qa__L0_iterative_sequence__models__iterative_sequence__config.pbtxt": (
        Gap("backend", "iterative_sequence", "iterative_sequence"),
    ),
    "server__qa__L0_lifecycle__ensemble_zero_1_float32__config.pbtxt": (
        Gap("step_missing", "ensemble_zero_1_float32", "custom_zero_1_float32"),
    ),
    "server__qa__L0_metrics__ensemble_decoupled__async_execute_decouple__config.pbtxt": (
        Gap("step_missing", "ensemble", "async_execute"),
    ),
    "server__qa__L0_metrics__ensemble_decoupled__ensemble__config.pbtxt": (
        Gap("step_missing", "ensemble", "async_execute"),
    ),
    "server__qa__L0_metrics__ensemble_delay__config.pbtxt": (
        Gap("step_missing", "ensemble_delay", "dynamic_composing"),
        Gap("step_missing", "ensemble_delay", "default_composing"),
    ),
    "server__qa__L0_metrics__model_namespacing_repos__addsub_repo__addsub_ensemble__config.pbtxt": (
        Gap("step_missing", "addsub_ensemble", "composing_model"),
    ),
    "server__qa__L0_metrics__model_namespacing_repos__subadd_repo__subadd_ensemble__config.pbtxt": (
        Gap("step_missing", "subadd_ensemble", "composing_model"),
    ),
    "server__qa__L0_model_namespacing__test_duplication__addsub_repo__simple_addsub__config.pbtxt": (
        Gap("step_missing", "simple_addsub", "composing_model"),
    ),
    "server__qa__L0_model_namespacing__test_duplication__subadd_repo__simple_subadd__config.pbtxt": (
        Gap("step_missing", "simple_subadd", "composing_model"),
    ),
    "server__qa__L0_model_namespacing__test_dynamic_resolution__addsub_repo__simple_addsub__config.pbtxt": (
        Gap("step_missing", "simple_addsub", "composing_model"),
    ),
    "server__qa__L0_model_namespacing__test_dynamic_resolution__subadd_repo__simple_subadd__config.pbtxt": (
        Gap("step_missing", "simple_subadd", "composing_model"),
    ),
    "server__qa__L0_model_namespacing__test_ensemble_duplication__addsub_repo__simple_ensemble__config.pbtxt": (
        Gap("step_missing", "simple_ensemble", "composing_addsub"),
    ),
    "server__qa__L0_model_namespacing__test_ensemble_duplication__subadd_repo__simple_ensemble__config.pbtxt": (
        Gap("step_missing", "simple_ensemble", "composing_subadd"),
    ),
    "server__qa__L0_model_namespacing__test_no_duplication__addsub_repo__simple_addsub__config.pbtxt": (
        Gap("step_missing", "simple_addsub", "composing_addsub"),
    ),
    "server__qa__L0_model_namespacing__test_no_duplication__subadd_repo__simple_subadd__config.pbtxt": (
        Gap("step_missing", "simple_subadd", "composing_subadd"),
    ),
    "server__qa__L0_model_queue__ensemble_zero_1_float32__config.pbtxt": (
        Gap("step_missing", "ensemble_zero_1_float32", "custom_zero_1_float32"),
    ),
    "server__qa__L0_parameters__model_repository__ensemble__config.pbtxt": (
        Gap("step_missing", "ensemble", "parameter"),
    ),
    "server__qa__L0_parameters__model_repository__identity__config.pbtxt": (
        Gap("step_missing", "ensemble", "parameter"),
    ),
    "server__qa__L0_passive_instance__models__distributed_int32_int32_int32__config.pbtxt": (
        Gap("backend", "distributed_int32_int32_int32", "distributed_addsub"),
    ),
    "server__qa__L0_pinned_memory__libtorch_ensemble.pbtxt": (
        Gap("step_missing", "libtorch_ensemble", "custom_zero_1_float32"),
        Gap("step_missing", "libtorch_ensemble", "libtorch_zero_1_float32"),
    ),
    "server__qa__L0_query__models__query__config.pbtxt": (Gap("backend", "query", "query"),),
    "server__qa__L0_simple_ensemble__backpressure_test_models__decoupled_producer__config.pbtxt": (
        Gap("step_missing", "ensemble_disabled_max_inflight_requests", "slow_consumer"),
    ),
    "server__qa__L0_simple_ensemble__backpressure_test_models__ensemble_disabled_max_inflight_requests__config.pbtxt": (
        Gap("step_missing", "ensemble_disabled_max_inflight_requests", "slow_consumer"),
    ),
    "server__qa__L0_triton_repo_agent__models__chain_relocation__config.pbtxt": (
        Gap("model_file", "chain_relocation"),
        Gap("repo_agent", "chain_relocation", "relocation"),
    ),
    "server__qa__L0_triton_repo_agent__models__relocation_sanity_check__config.pbtxt": (
        Gap("model_file", "relocation_sanity_check"),
        Gap("repo_agent", "relocation_sanity_check", "relocation"),
    ),
    "server__qa__custom_models__custom_dyna_sequence_int32__config.pbtxt": (
        Gap("backend", "custom_dyna_sequence_int32", "dyna_sequence"),
    ),
    "server__qa__custom_models__custom_sequence_int32__config.pbtxt": (
        Gap("backend", "custom_sequence_int32", "sequence"),
    ),
    "server__qa__ensemble_models__batch_to_nobatch_float32_float32_float32__config.pbtxt": (
        Gap(
            "step_missing",
            "batch_to_nobatch_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
        Gap(
            "step_missing",
            "batch_to_nobatch_float32_float32_float32",
            "custom_nobatch_zero_1_float32",
        ),
    ),
    "server__qa__ensemble_models__batch_to_nobatch_nobatch_float32_float32_float32__config.pbtxt": (
        Gap(
            "step_missing",
            "batch_to_nobatch_nobatch_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
        Gap(
            "step_missing",
            "batch_to_nobatch_nobatch_float32_float32_float32",
            "custom_nobatch_zero_1_float32",
        ),
    ),
    "server__qa__ensemble_models__label_override_int32_float32_float32__config.pbtxt": (
        Gap(
            "step_fails",
            "label_override_int32_float32_float32",
            "wrong_label_int32_float32_float32",
            "onnx_int32_float32_float32",
        ),
    ),
    "server__qa__ensemble_models__mix_ensemble_int32_float32_float32__config.pbtxt": (
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_int32_int32_int32"),
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_int32_object_object"),
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_object_int32_int32"),
        Gap(
            "step_fails",
            "mix_ensemble_int32_float32_float32",
            "mix_type_int32_float32_float32",
            "onnx_int32_int32_int32",
        ),
        Gap(
            "step_fails",
            "mix_ensemble_int32_float32_float32",
            "mix_platform_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
    ),
    "server__qa__ensemble_models__mix_nobatch_batch_float32_float32_float32__config.pbtxt": (
        Gap("step_missing", "mix_nobatch_batch_float32_float32_float32", "custom_zero_1_float32"),
        Gap(
            "step_missing",
            "mix_nobatch_batch_float32_float32_float32",
            "custom_nobatch_zero_1_float32",
        ),
        Gap(
            "step_missing",
            "mix_nobatch_batch_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
    ),
    "server__qa__ensemble_models__mix_platform_float32_float32_float32__config.pbtxt": (
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_int32_int32_int32"),
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_int32_object_object"),
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_object_int32_int32"),
        Gap(
            "step_fails",
            "mix_ensemble_int32_float32_float32",
            "mix_type_int32_float32_float32",
            "onnx_int32_int32_int32",
        ),
        Gap(
            "step_fails",
            "mix_ensemble_int32_float32_float32",
            "mix_platform_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
        Gap("step_missing", "mix_platform_float32_float32_float32", "onnx_float32_float32_float32"),
        Gap(
            "step_missing",
            "mix_platform_float32_float32_float32",
            "libtorch_float32_float32_float32",
        ),
    ),
    "server__qa__ensemble_models__mix_type_int32_float32_float32__config.pbtxt": (
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_int32_int32_int32"),
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_int32_object_object"),
        Gap("step_missing", "mix_ensemble_int32_float32_float32", "onnx_object_int32_int32"),
        Gap(
            "step_fails",
            "mix_ensemble_int32_float32_float32",
            "mix_type_int32_float32_float32",
            "onnx_int32_int32_int32",
        ),
        Gap(
            "step_fails",
            "mix_ensemble_int32_float32_float32",
            "mix_platform_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
        Gap("step_missing", "mix_type_int32_float32_float32", "onnx_int32_int32_int32"),
        Gap("step_missing", "mix_type_int32_float32_float32", "onnx_int32_object_object"),
        Gap("step_missing", "mix_type_int32_float32_float32", "onnx_object_int32_int32"),
        Gap("step_missing", "mix_type_int32_float32_float32", "onnx_int32_float32_float32"),
        Gap("step_missing", "mix_type_int32_float32_float32", "onnx_float32_float32_float32"),
    ),
    "server__qa__ensemble_models__nobatch_to_batch_float32_float32_float32__config.pbtxt": (
        Gap(
            "step_missing",
            "nobatch_to_batch_float32_float32_float32",
            "custom_nobatch_zero_1_float32",
        ),
        Gap(
            "step_missing",
            "nobatch_to_batch_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
    ),
    "server__qa__ensemble_models__nobatch_to_batch_nobatch_float32_float32_float32__config.pbtxt": (
        Gap(
            "step_missing",
            "nobatch_to_batch_nobatch_float32_float32_float32",
            "custom_nobatch_zero_1_float32",
        ),
        Gap(
            "step_missing",
            "nobatch_to_batch_nobatch_float32_float32_float32",
            "onnx_float32_float32_float32",
        ),
    ),
    "server__qa__ensemble_models__wrong_label_int32_float32_float32__config.pbtxt": (
        Gap(
            "step_fails",
            "label_override_int32_float32_float32",
            "wrong_label_int32_float32_float32",
            "onnx_int32_float32_float32",
        ),
        Gap("step_missing", "wrong_label_int32_float32_float32", "onnx_int32_float32_float32"),
    ),
    "server__qa__python_models__ensemble__config.pbtxt": (
        Gap("step_missing", "ensemble", "add_sub_1"),
        Gap("step_missing", "ensemble", "add_sub_2"),
    ),
    "server__qa__python_models__ensemble_gpu__config.pbtxt": (
        Gap("step_missing", "ensemble_gpu", "add_sub_1"),
        Gap("step_missing", "ensemble_gpu", "libtorch_float32_float32_float32"),
    ),
    "server__qa__python_models__ensemble_io__config.pbtxt": (
        Gap("step_missing", "ensemble_io", "dlpack_io_identity_1"),
        Gap("step_missing", "ensemble_io", "dlpack_io_identity_2"),
        Gap("step_missing", "ensemble_io", "dlpack_io_identity_3"),
    ),
    "server__qa__python_models__fan_add_sub__config.pbtxt": (
        Gap("step_missing", "fan_add_sub", "nop_TYPE_FP32_-1"),
        Gap("step_missing", "fan_add_sub", "ENSEMBLE_MODEL_NAME"),
    ),
    "tensorrtllm_backend__all_models__gpt__ensemble__config.pbtxt": (
        Gap("step_missing", "ensemble", "preprocessing"),
        Gap("step_missing", "ensemble", "tensorrt_llm"),
        Gap("step_missing", "ensemble", "postprocessing"),
    ),
    "vllm_backend__ci__L0_backend_vllm__vllm_backend__ensemble_config.pbtxt": (
        Gap("step_missing", "ensemble_model", "vllm_opt"),
    ),
    "model_analyzer__experiments__data__resnet50_libtorch__config.pbtxt": (
        Gap("label_file", "resnet50_libtorch", "resnet50_labels.txt"),
    ),
    "model_analyzer__experiments__data__vgg19_libtorch__config.pbtxt": (
        Gap("label_file", "vgg19_libtorch", "vgg19_labels.txt"),
    ),
    "model_analyzer___extracted__test_model_config_L54__config.pbtxt": (
        Gap("label_file", "classification_chestxray_v1", "chestxray_labels.txt"),
    ),
    "model_analyzer___extracted__test_model_config_L83__config.pbtxt": (
        Gap("step_missing", "ensemble_python_resnet50", "preprocess"),
        Gap("step_missing", "ensemble_python_resnet50", "resnet50_trt"),
    ),
    "tutorials__HuggingFace__ensemble_model_repository__ensemble_model__config.pbtxt": (
        Gap("step_missing", "ensemble_model", "vit"),
    ),
    "tutorials__HuggingFace__ensemble_model_repository__preprocessing__config.pbtxt": (
        Gap("step_missing", "ensemble_model", "vit"),
    ),
    "tutorials__Popular_Models_Guide__StableDiffusion__diffusion-models__stable_diffusion_1_5__config.pbtxt": (
        Gap("backend", "stable_diffusion_1_5", "diffusion"),
    ),
    "tutorials__Popular_Models_Guide__StableDiffusion__diffusion-models__stable_diffusion_xl__config.pbtxt": (
        Gap("backend", "stable_diffusion_xl", "diffusion"),
    ),
    "onnxruntime_backend___readme_snippets__block2.pbtxt": (Gap("model_file", "block2"),),
    "onnxruntime_backend___readme_snippets__block3.pbtxt": (Gap("model_file", "block3"),),
    "onnxruntime_backend___readme_snippets__block4.pbtxt": (Gap("model_file", "block4"),),
    "onnxruntime_backend___readme_snippets__block5.pbtxt": (Gap("model_file", "block5"),),
    "dali_backend__qa__L0_resnet50_ensemble__model_repository__resnet50_onnx__config.pbtxt": (
        Gap("label_file", "resnet50_onnx", "labels.txt"),
    ),
}
