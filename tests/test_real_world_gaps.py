"""The per-case corpus gaps of the real-world test (tests/real_world_gaps.py): each reason is
checked against the case, and an entry matches only the finding it names. No corpus needed."""

from __future__ import annotations

from pathlib import Path

from lintkit import lint_repo, make_model
from real_world_gaps import CODES, CORPUS_GAPS, Gap, propose

ENSEMBLE = """
name: "ens"
platform: "ensemble"
max_batch_size: 0
input [{ name: "IN" data_type: TYPE_FP32 dims: [4] }]
output [{ name: "OUT" data_type: TYPE_FP32 dims: [4] }]
ensemble_scheduling {
  step [{
    model_name: "absent"
    model_version: -1
    input_map { key: "x" value: "IN" }
    output_map { key: "y" value: "OUT" }
  }]
}
"""


def test_a_gap_matches_the_finding_it_names(tmp_path: Path) -> None:
    make_model(tmp_path, "ens", ENSEMBLE)
    diagnostics = lint_repo(tmp_path, triton_mode="default")
    missing = [d for d in diagnostics if d.code == CODES["step_missing"]]
    assert len(missing) == 1, [(d.code, d.message) for d in diagnostics]
    gap = propose(missing[0])
    assert gap == Gap("step_missing", "ens", "absent")
    assert gap.matches(missing[0])
    assert "step model 'absent' of ensemble 'ens' is not in the corpus folder" in gap.reason()
    assert not Gap("step_missing", "ens", "other").matches(missing[0])
    assert not Gap("step_missing", "other", "absent").matches(missing[0])
    assert not Gap("backend", "ens", "absent").matches(missing[0])


def test_a_gap_is_stale_once_the_corpus_holds_what_it_lacked() -> None:
    step = Gap("step_missing", "ens", "absent")
    assert step.stale_because(frozenset({"ens"}), frozenset()) is None
    assert step.stale_because(frozenset({"ens", "absent"}), frozenset()) == (
        "the corpus now holds 'absent'"
    )
    fails = Gap("step_fails", "ens", "inner", "leaf")
    assert fails.stale_because(frozenset({"ens", "inner"}), frozenset()) is None
    assert "now holds 'leaf'" in str(fails.stale_because(frozenset({"ens", "inner", "leaf"}), None))
    assert "no longer holds 'inner'" in str(fails.stale_because(frozenset({"ens"}), None))

    models = frozenset({"m"})
    cases: list[tuple[Gap, frozenset[str], frozenset[str]]] = [
        (Gap("model_file", "m"), frozenset({"config.pbtxt", "1/"}), frozenset({"1/model.onnx"})),
        (Gap("backend", "m", "q"), frozenset({"libtriton_qq.so"}), frozenset({"libtriton_q.so"})),
        (
            Gap("repo_agent", "m", "r"),
            frozenset({"config.pbtxt"}),
            frozenset({"x/libtritonrepoagent_r.so"}),
        ),
        (
            Gap("label_file", "m", "labels.txt"),
            frozenset({"1/labels.txt"}),
            frozenset({"labels.txt"}),
        ),
    ]
    for gap, absent, present in cases:
        assert gap.stale_because(models, absent) is None, gap
        assert gap.stale_because(models, absent | present) == (
            f"the corpus now holds {', '.join(sorted(present))}"
        ), gap
        assert gap.stale_because(models, None) == "the corpus provides no model 'm' to this case"


def test_every_entry_names_a_finding_and_a_reason() -> None:
    entries = [gap for gaps in CORPUS_GAPS.values() for gap in gaps]
    assert len(entries) > 100
    for gap in entries:
        assert gap.model and gap.reason()
        assert bool(gap.subject) == (gap.kind != "model_file"), gap
        assert bool(gap.missing) == (gap.kind == "step_fails"), gap
