"""`tritoncfg complete` against Triton's own QA (../shared/corpus/triton_qa, kind `autofill`).

Each case whose files the corpus has is rebuilt as its test.sh lays it out, completed with
`complete_model` for the QA machine (default mode, one GPU: gpus=(0,)), and compared with the
case's `expected*` configs by protobuf equality, as Triton's test compares the config it gets
from the server; any one of them may match. Cases decided by something the corpus lacks (model
files, a python `auto_complete_config`, a backend whose auto-complete is not modelled) are listed
as skipped with the reason. Run with `-s` to see the table.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from corpus import (
    TRITON_QA,
    corpus_config_files,
    materialize_qa_case,
    parametrize_corpus,
    qa_case_dir,
    qa_index,
    qa_setup,
    require_corpus,
)
from google.protobuf import text_format

from tritoncfg.complete import complete_core
from tritoncfg.complete.full import complete_model
from tritoncfg.complete.merge import render_message
from tritoncfg.models.locate import read_model_io
from tritoncfg.schema import ModelConfig
from tritoncfg.text import parse
from tritoncfg.workspace import load

GPUS: tuple[int, ...] = (0,)  # Triton's QA machines have a GPU; no autofill case says otherwise

# case id -> why tritoncfg is right to differ (none so far)
KNOWN_DISAGREEMENTS: dict[str, str] = {}


@dataclass(frozen=True)
class QACase:
    case_id: str
    row: dict[str, str]

    @property
    def case_dir(self) -> Path:
        return qa_case_dir(self.case_id)

    def skip_reason(self) -> str | None:
        """Why the corpus cannot decide this case, or None."""
        status = self.row["model_files_status"]
        where = self.row["platform_or_backend"]
        if status.startswith("missing"):
            return "model file not in the corpus: " + status.removeprefix("missing:")
        if not (status.startswith("included") or status == "none"):
            return f"model files: {status}"
        if self.row["needs_model_file"] == "no":
            return None
        if "python" in where or "model.py" in status:
            return "decided by the python model.py auto_complete_config (never run)"
        if "dali" in where:
            return "decided by the DALI pipeline in the DALI backend"
        if "onnx" in where or "openvino" in where:
            return None  # tritoncfg reads .onnx and OpenVINO IR .xml files
        return f"the backend's auto-complete from its model file is not modelled ({where})"


@cache
def autofill_cases() -> list[QACase]:
    if not TRITON_QA.is_dir():
        return []
    return [QACase(r["case_id"], r) for r in qa_index() if r["kind"] == "autofill"]


def expected_configs(case: QACase) -> list[tuple[str, ModelConfig]]:
    found = []
    for name in filter(None, case.row["expected_files"].split(",")):
        for path in sorted(case.case_dir.rglob(name)):
            found.append((path.name, text_format.Parse(path.read_text(), ModelConfig())))
    return found


def target_dir(case: QACase, work: Path) -> Path:
    """The model to complete: the case dir itself, or in a repository case the model whose
    folder holds the `expected` file."""
    if case.row["layout"] == "single_model":
        return work / case.case_dir.name
    (expected,) = {p.parent.name for p in case.case_dir.rglob("expected*")}
    return work / expected


def run_case(case: QACase, work: Path) -> tuple[str, str]:
    """(status, detail): agree / disagree, with what differs."""
    root = work / case.case_dir.name if case.row["layout"] == "single_model" else work
    materialize_qa_case(case.case_dir, root, qa_setup().get(case.case_id, []))
    (loaded,) = load([target_dir(case, work)]).models
    message = loaded.config.message if loaded.config is not None else None
    model_io = read_model_io(loaded.dir, complete_core(message, loaded.dir).config)
    done = complete_model(loaded, model_io=model_io, gpus=GPUS)
    if done.errors:
        return "disagree", "completion failed: " + " | ".join(done.errors)
    expected = expected_configs(case)
    matched = [name for name, config in expected if config == done.config]
    if matched:
        return "agree", f"= {matched[0]} (of {len(expected)})"
    got = text_format.MessageToString(done.config, as_one_line=True)
    return "disagree", f"tritoncfg: {got}"


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    require_corpus(TRITON_QA)
    results: dict[str, tuple[str, str]] = {}
    for case in autofill_cases():
        reason = case.skip_reason()
        if reason is not None:
            results[case.case_id] = ("skipped", reason)
            continue
        results[case.case_id] = run_case(case, tmp_path_factory.mktemp("qa"))
    print("\n" + table(results))
    return results


def table(results: dict[str, tuple[str, str]]) -> str:
    counts = defaultdict(int)
    lines = []
    for case_id, (status, detail) in results.items():
        counts[status] += 1
        lines.append(f"  {status:<9} {case_id.removeprefix('L0_model_config__')}: {detail}")
    summary = ", ".join(f"{counts[s]} {s}" for s in ("agree", "disagree", "skipped"))
    return f"triton_qa autofill cases: {summary}\n" + "\n".join(lines)


@parametrize_corpus(TRITON_QA, "case_id", [c.case_id for c in autofill_cases()], ids=str)
def test_autofill_case(case_id: str, outcomes: dict[str, tuple[str, str]]) -> None:
    status, detail = outcomes[case_id]
    if status == "skipped":
        pytest.skip(detail)
    if status == "disagree" and case_id in KNOWN_DISAGREEMENTS:
        pytest.xfail(KNOWN_DISAGREEMENTS[case_id])
    assert status == "agree", detail


def test_decidable_cases_exist(outcomes: dict[str, tuple[str, str]]) -> None:
    assert sum(status != "skipped" for status, _ in outcomes.values()) >= 9


def test_printed_configs_read_back_the_same() -> None:
    """`complete` prints with `render_message`: for every corpus config that parses, the printed
    text must parse back to exactly the same message."""
    require_corpus()
    checked = 0
    for path in corpus_config_files():
        parsed = parse(path.read_text(encoding="utf-8", errors="replace"))
        if not parsed.ok:
            continue  # invalid-case patterns and broken configs
        again = parse(render_message(parsed.message))
        assert again.ok and again.message == parsed.message, path
        checked += 1
    assert checked > 500
