"""The differential cases: configs that both tritoncfg and a real Triton 2.51 judge.

Four sources, each laid out as a model repository the pytriton server can load (python backend
and ensembles only: it has no other backend):

* triton_qa: INDEX.tsv rows whose platform_or_backend is python or ensemble, laid out as their
  test.sh does (SETUP.tsv replayed). The `identity` step models of the ensemble cases become
  python models: the server has no identity backend, and neither backend changes the config.
* real_world: configs with `backend: "python"` or `platform: "ensemble"`, with the ensemble's
  step models taken from the same folder upstream. A model without a numeric version folder gets
  `1/` (git keeps no empty folders; these models ship with one).
* rule_docs: every rule's ```pbtxt Example and Fix blocks (configs of a python model `m`), with a
  non-python `backend` made python and `backend: "python"` added where neither backend nor
  platform is set; an ensemble's step models are generated from its input and output maps.

* data_files: configs whose verdict depends on the files beside them (warmup/, initial_state/),
  written here with those files.

Every python model gets ECHO_MODEL as its model file (the corpus keeps no model code; the QA
`auto_complete_config` files are replaced too, so the config alone decides).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from corpus import REAL_WORLD, materialize_qa_case, qa_case_dir, qa_index, qa_setup, read_tsv

from tritoncfg.api import load
from tritoncfg.checks import RULES
from tritoncfg.checks.core.docs import rule_doc
from tritoncfg.complete import complete_core
from tritoncfg.schema import DataType, ModelConfig
from tritoncfg.text import parse

ECHO_MODEL = '''"""tritoncfg's differential tests: returns each output from the input at the same position
(or zeros of the output's shape), so that warmup requests succeed."""

import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.batching = int(config.get("max_batch_size", 0)) > 0
        self.outputs = [(o["name"], o["data_type"], [int(d) for d in o.get("dims", [])])
                        for o in config.get("output", [])]
        self.decoupled = pb_utils.using_decoupled_model_transaction_policy(config)

    def _tensor(self, name, data_type, dims, inputs, index, batch):
        shape = ([batch] if self.batching else []) + [d if d > 0 else 1 for d in dims]
        if data_type == "TYPE_STRING":
            return pb_utils.Tensor(name, np.full(shape, b"", dtype=np.object_))
        dtype = pb_utils.triton_string_to_numpy(data_type)
        if index < len(inputs):
            data = inputs[index].as_numpy()
            if data.dtype != np.object_ and list(data.shape) == shape:
                return pb_utils.Tensor(name, data.astype(dtype))
        return pb_utils.Tensor(name, np.zeros(shape, dtype=dtype))

    def execute(self, requests):
        responses = []
        for request in requests:
            inputs = request.inputs()
            batch = inputs[0].as_numpy().shape[0] if inputs and self.batching else 1
            tensors = [self._tensor(n, t, d, inputs, i, batch)
                       for i, (n, t, d) in enumerate(self.outputs)]
            response = pb_utils.InferenceResponse(output_tensors=tensors)
            if self.decoupled:
                request.get_response_sender().send(
                    response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            else:
                responses.append(response)
        return None if self.decoupled else responses
'''


@dataclass(frozen=True)
class Case:
    case_id: str
    source: str  # triton_qa | real_world | rule_docs
    build: Callable[[Path], list[str]]  # lays the case out in a repository; the models to load
    size: int  # models it loads

    @property
    def order(self) -> str:
        """A stable pseudo-random order for sampling."""
        return hashlib.sha1(self.case_id.encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# Shared layout steps


def _numeric_versions(model_dir: Path) -> list[Path]:
    return [p for p in model_dir.iterdir() if p.is_dir() and p.name.isdigit()]


def prepare_models(repository: Path, *, create_versions: bool, identity_to_python: bool) -> None:
    """Give every python model ECHO_MODEL in each version folder (and folders where wanted)."""
    if identity_to_python:
        for config in repository.glob("*/config.pbtxt"):
            text = config.read_text(encoding="utf-8")
            config.write_text(re.sub(r'backend:\s*"identity"', 'backend: "python"', text))
    for model in load(repository).models:
        if not model.dir.accessible or model.dir.is_hidden:
            continue
        message = model.config.message if model.config is not None else ModelConfig()
        completed = complete_core(message, model.dir).config
        versions = _numeric_versions(model.dir.path)
        if not versions and create_versions:
            policy = completed.version_policy
            wanted = list(policy.specific.versions) if policy.HasField("specific") else [1]
            versions = [model.dir.path / str(v) for v in wanted if v >= 0]
            for version in versions:
                version.mkdir(parents=True, exist_ok=True)
        if completed.backend != "python":
            continue
        filename = completed.default_model_filename or "model.py"
        if "/" in filename or filename.startswith("."):
            continue  # a path of its own: the config's problem, left as it is
        for version in versions:
            (version / filename).write_text(ECHO_MODEL, encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# triton_qa


def _qa_builder(
    row: dict[str, str], case_dir: Path, setup: list[dict[str, str]]
) -> Callable[[Path], list[str]]:
    single = row["layout"] == "single_model"

    def build(repository: Path) -> list[str]:
        root = repository / case_dir.name if single else repository
        materialize_qa_case(case_dir, root, setup)  # `missing` artefacts: the case says so
        prepare_models(repository, create_versions=False, identity_to_python=True)
        return (
            [case_dir.name]
            if single
            else sorted(p.name for p in repository.iterdir() if p.is_dir())
        )

    return build


def triton_qa_cases() -> list[Case]:
    cases = []
    for row in qa_index():
        where = row["platform_or_backend"]
        if "python" not in where and "ensemble" not in where:
            continue
        if row["case_id"].startswith("dali_qa__"):
            continue  # the DALI backend is not in the servers these tests start
        case_dir = qa_case_dir(row["case_id"])
        if not case_dir.is_dir():
            continue
        size = 1 if row["layout"] == "single_model" else sum(p.is_dir() for p in case_dir.iterdir())
        builder = _qa_builder(row, case_dir, qa_setup().get(row["case_id"], []))
        cases.append(Case(row["case_id"], "triton_qa", builder, size))
    return cases


# ---------------------------------------------------------------------------------------------
# real_world


@dataclass(frozen=True)
class _WorldModel:
    name: str  # the model folder it gets
    config: Path
    case_id: str
    message: ModelConfig
    folder: Path  # the folder upstream that holds it (its siblings are an ensemble's steps)


def _world_models() -> list[_WorldModel]:
    found = []
    for row in read_tsv(REAL_WORLD / "INDEX.tsv"):
        config = REAL_WORLD / row["corpus_path"]
        parsed = parse(config.read_text(encoding="utf-8"), str(config))
        if config.name == "config.pbtxt":
            name, folder = config.parent.name, config.parent.parent
        else:  # e.g. python_backend's examples/bls/async_config.pbtxt
            name = parsed.message.name or config.stem.removesuffix("_config")
            folder = config.parent
        found.append(_WorldModel(name, config, row["case_id"], parsed.message, folder))
    return found


def _steps(model: _WorldModel, siblings: dict[str, _WorldModel]) -> list[_WorldModel]:
    """The model and, for an ensemble, its step models from the same folder (transitively)."""
    chosen: dict[str, _WorldModel] = {}
    todo = [model]
    while todo:
        current = todo.pop()
        if current.name in chosen:
            continue
        chosen[current.name] = current
        for step in current.message.ensemble_scheduling.step:
            if step.model_name in siblings:
                todo.append(siblings[step.model_name])
    return list(chosen.values())


def _world_builder(
    model: _WorldModel, members: list[_WorldModel], layout: dict[str, list[dict[str, str]]]
) -> Callable[[Path], list[str]]:
    def build(repository: Path) -> list[str]:
        for member in members:
            target = repository / member.name
            target.mkdir()
            (target / "config.pbtxt").write_bytes(member.config.read_bytes())
            for entry in layout.get(member.case_id, []):
                rel = Path(entry["relpath_in_model_dir"])
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                source = member.config.parent / rel
                if entry["copied"] == "yes" and source.is_file():
                    (target / rel).write_bytes(source.read_bytes())
        prepare_models(repository, create_versions=True, identity_to_python=False)
        return [model.name]

    return build


def real_world_cases() -> list[Case]:
    layout: dict[str, list[dict[str, str]]] = {}
    for entry in read_tsv(REAL_WORLD / "LAYOUT.tsv"):
        layout.setdefault(entry["case_id"], []).append(entry)
    models = _world_models()
    by_folder: dict[Path, dict[str, _WorldModel]] = {}
    for m in models:
        by_folder.setdefault(m.folder, {}).setdefault(m.name, m)
    cases = []
    for m in models:
        if m.message.backend != "python" and m.message.platform != "ensemble":
            continue
        members = _steps(m, by_folder[m.folder])
        cases.append(
            Case(m.case_id, "real_world", _world_builder(m, members, layout), len(members))
        )
    return cases


# ---------------------------------------------------------------------------------------------
# rule docs


def for_python(block: str) -> str:
    """A rule's example as a python-backend model's config."""
    text = re.sub(r'(\bbackend:\s*)"(?!python")[^"]*"', r'\1"python"', block)
    if not re.search(r"^\s*(backend|platform)\b", text, re.MULTILINE):
        text = 'backend: "python"\n' + text
    return text


def _tensor(config: ModelConfig, name: str) -> tuple[str, list[int]]:
    for tensor in (*config.input, *config.output):
        if tensor.name == name:
            return DataType.Name(tensor.data_type), list(tensor.dims)
    return "TYPE_FP32", [-1]


def step_models(config: ModelConfig, own: str) -> dict[str, str]:
    """Configs of python models for an ensemble's steps: each step's map keys as its tensors,
    typed like the ensemble tensor they map to (FP32 [-1] for inner tensors)."""
    found: dict[str, list[str]] = {}
    for step in config.ensemble_scheduling.step:
        if not step.model_name or step.model_name == own or step.model_name in found:
            continue
        lines = ['backend: "python"', f"max_batch_size: {config.max_batch_size}"]
        for kind, mapping in (("input", step.input_map), ("output", step.output_map)):
            for key, tensor in sorted(mapping.items()):
                data_type, dims = _tensor(config, tensor)
                shape = ", ".join(map(str, dims or [1]))
                lines.append(
                    f'{kind} [ {{ name: "{key}" data_type: {data_type} dims: [ {shape} ] }} ]'
                )
        found[step.model_name] = lines
    return {name: "\n".join(lines) + "\n" for name, lines in found.items()}


def _doc_builder(config_text: str) -> Callable[[Path], list[str]]:
    def build(repository: Path) -> list[str]:
        models = {"m": config_text}
        parsed = parse(config_text)
        if parsed.ok and parsed.message.platform == "ensemble":
            models.update(step_models(parsed.message, "m"))
        for name, text in models.items():
            (repository / name / "1").mkdir(parents=True)
            (repository / name / "config.pbtxt").write_text(text, encoding="utf-8")
        prepare_models(repository, create_versions=False, identity_to_python=False)
        return ["m"]

    return build


def rule_doc_cases() -> list[Case]:
    cases = []
    for code in sorted(RULES):
        doc = rule_doc(RULES[code])
        for section in ("Example", "Fix"):
            for index, block in enumerate(doc.blocks(section)):
                case_id = f"{code}-{section.lower()}-{index}"
                cases.append(Case(case_id, "rule_docs", _doc_builder(for_python(block)), 1))
    return cases


# ---------------------------------------------------------------------------------------------
# data_files: rules decided by the files beside the config (their docs' examples cannot say it)

_WARMUP_FROM_FILE = """name: "m"
backend: "python"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
instance_group [ { kind: KIND_CPU } ]
model_warmup [ { name: "w" batch_size: 1 inputs { key: "X" value {
  data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "x.bin" } } } ]
"""
_STATE_FROM_FILE = """name: "m"
backend: "python"
max_batch_size: 1
input [ { name: "X" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [ { kind: KIND_CPU } ]
sequence_batching { state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_INT32
  dims: [ 2, 3 ] initial_state [ { name: "i" data_type: TYPE_INT32 dims: [ 2, 3 ]
  data_file: "init.bin" } ] } ] }
"""
# case id -> (config of model `m`, files of the model directory by path: their size in bytes)
DATA_FILE_CASES: dict[str, tuple[str, dict[str, int]]] = {
    "TC709-short-file": (_WARMUP_FROM_FILE, {"warmup/x.bin": 8}),
    "TC709-whole-file": (_WARMUP_FROM_FILE, {"warmup/x.bin": 16}),
    "TC633-short-file": (_STATE_FROM_FILE, {"initial_state/init.bin": 20}),
    "TC633-whole-file": (_STATE_FROM_FILE, {"initial_state/init.bin": 24}),
}


def _data_file_builder(config_text: str, files: dict[str, int]) -> Callable[[Path], list[str]]:
    def build(repository: Path) -> list[str]:
        model = repository / "m"
        (model / "1").mkdir(parents=True)
        (model / "config.pbtxt").write_text(config_text, encoding="utf-8")
        for relative, size in files.items():
            (model / relative).parent.mkdir(parents=True, exist_ok=True)
            (model / relative).write_bytes(bytes(size))
        prepare_models(repository, create_versions=False, identity_to_python=False)
        return ["m"]

    return build


def data_file_cases() -> list[Case]:
    return [
        Case(case_id, "data_files", _data_file_builder(config, files), 1)
        for case_id, (config, files) in sorted(DATA_FILE_CASES.items())
    ]


def all_cases() -> list[Case]:
    return [*triton_qa_cases(), *real_world_cases(), *rule_doc_cases(), *data_file_cases()]


def sample(cases: list[Case], budget: dict[str, int]) -> list[Case]:
    """At most `budget[source]` models from each source, in a fixed pseudo-random order."""
    chosen: list[Case] = []
    used = dict.fromkeys(budget, 0)
    for case in sorted(cases, key=lambda c: c.order):
        if used[case.source] + case.size <= budget[case.source]:
            chosen.append(case)
            used[case.source] += case.size
    return sorted(chosen, key=lambda c: (c.source, c.case_id))
