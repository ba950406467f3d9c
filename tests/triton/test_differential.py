"""Differential: tritoncfg's lint verdict and completed config against a real Triton 2.51.

For each case (triton_cases.py) the repository is laid out in the session server's repository and
linted in default mode for that server (no GPUs, its backend folder, no rate limiter); then each
of the case's models is loaded on its own (tritoncfg.triton.verify.check_models, as `verify`
does). Two things must hold:

* verdict: tritoncfg reports an error exactly when Triton does not load the model. A model whose
  backend the server lacks is not compared (counted as `n/a`).
* config: for a model that loads, `GET /v2/models/<m>/config` equals tritoncfg's expected config
  (tritoncfg.triton.completion.expected_config, the interim for `tritoncfg complete`); the fields
  that differ are reported.

Each disagreement must be listed below with its explanation. The set is sampled to stay within a
few minutes (at most SAMPLE models per source, a fixed pseudo-random choice);
TRITONCFG_DIFFERENTIAL_ALL=1 runs every case. Run with -s to see the counts.
"""

from __future__ import annotations

import os
import re
import signal
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import pytest
from conftest import SharedServer
from corpus import require_corpus
from triton_cases import Case, all_cases, sample

from tritoncfg.api import lint, load
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Diagnostic
from tritoncfg.triton.completion import expected_config
from tritoncfg.triton.load import ServerDied, TritonError
from tritoncfg.triton.remote import config_from_json
from tritoncfg.triton.semantic_diff import Change, semantic_diff
from tritoncfg.triton.verdict import ModelVerdict, errors_by_model, triton_checked
from tritoncfg.triton.verify import check_models
from tritoncfg.workspace import LoadedModel

SAMPLE = {"triton_qa": 30, "real_world": 25, "rule_docs": 25, "data_files": 4}

# Triton 2.51 (nvidia-pytriton 0.7.0) predates these model_config.proto fields
# (see docs/verify.md): a config that sets one fails to parse there.
KNOWN_VERSION_DIFFERENCES = {
    "model_metrics": "ModelConfig.model_metrics (and the ModelMetrics messages): newer than 2.51",
    "max_inflight_requests": "ModelEnsembling.max_inflight_requests: newer than 2.51",
}

# "<case id>" or "<case id>:<model>" -> why tritoncfg and Triton 2.51 differ there. Entries
# marked "tritoncfg:" are lint's to fix (remove the entry with the fix; a stale one fails).
KNOWN_DISAGREEMENTS: dict[str, str] = {
    "TC629-example-0": (
        "Triton 2.51 difference: its byte size of initial_state dims [4294967296, 4294967296] "
        "overflows int64 silently and the model loads; the check that refuses it (`byte size for "
        "tensor 'S' exceeds maximum size`) came with core PR #475 (83aa1ef, 2026-03), after 2.51"
    ),
    "TC742-example-0": (
        "environment: a relative EXECUTION_ENV_PATH is resolved against tritonserver's working "
        "directory (here its temp folder, without env.tar.gz), which no config check can see; "
        "TC742 warns about exactly that"
    ),
}

# Completed-config fields (paths without indexes) where the server and the interim expected
# config differ, with why.
KNOWN_CONFIG_DIFFERENCES: dict[str, str] = {
    "model_transaction_policy": (
        "ensembles: Triton sets model_transaction_policy from its steps (`ensemble_utils.cc:ValidateEnsembleConfig`; the server "
        "serves an empty `model_transaction_policy { }`); the interim expected config "
        "(complete_core + instance groups) does not, tritoncfg.complete.full does"
    ),
}


@dataclass
class CaseResult:
    case: Case
    verdicts: list[ModelVerdict]
    config_changes: dict[str, list[Change]] = field(default_factory=dict)  # model -> differences
    problems: list[str] = field(default_factory=list)


def _key(case: Case, verdict: ModelVerdict) -> str:
    return f"{case.case_id}:{verdict.model}"


def _known(case: Case, verdict: ModelVerdict) -> str | None:
    return KNOWN_DISAGREEMENTS.get(_key(case, verdict)) or KNOWN_DISAGREEMENTS.get(case.case_id)


def _version_difference(verdict: ModelVerdict) -> str | None:
    for error in verdict.triton_errors:
        for name, why in KNOWN_VERSION_DIFFERENCES.items():
            if f'no field named "{name}"' in error.message:
                return why
    return None


def _lint_case(shared: SharedServer, case: Case) -> tuple[list[LoadedModel], list[Diagnostic]]:
    """Lay the case out in the (emptied) repository and lint it as the server would load it."""
    shared.clear()
    targets = case.build(shared.repository)
    options = LintOptions(
        triton_mode="default",
        gpus=(),
        backend_dir=shared.server.distribution.backend_dir,
        rate_limit=False,
    )
    diagnostics = lint(shared.repository, options).diagnostics
    models = [m for m in load(shared.repository).models if m.name in targets]
    return models, diagnostics


def run_case(shared: SharedServer, case: Case) -> CaseResult:
    models, diagnostics = _lint_case(shared, case)
    result = CaseResult(case, [])

    def compare_config(model: LoadedModel) -> None:
        served = config_from_json(shared.server.http.model_config(model.name))
        changes = semantic_diff(expected_config(model, ()).config, served)
        if changes:
            result.config_changes[model.name] = changes

    result.verdicts = check_models(shared.server, models, diagnostics, while_loaded=compare_config)
    return result


def crashed_case(shared: SharedServer, case: Case, log: list[str]) -> CaseResult | None:
    """The verdicts of a case whose load killed tritonserver twice: Triton serves none of its
    models, which agrees with tritoncfg where lint reports a Triton-checked error for each one
    (seen in CI: Triton 2.51 crashed with SIGSEGV while failing TC710's warmup of batch 16 > 8 on
    a python model, and loaded the same case cleanly in every run since). None when lint passes
    a model: a crash on a config tritoncfg accepts is worth failing on (and reporting to Triton)."""
    models, diagnostics = _lint_case(shared, case)
    findings = errors_by_model(diagnostics, models)
    if not models or not all(any(map(triton_checked, findings[m.name])) for m in models):
        return None
    crash = TritonError("LOAD", "tritonserver crashed while loading the model (twice)")
    verdicts = [
        ModelVerdict(
            model=m.name,
            config_path=str(m.config_path),
            triton_state="REJECTED",
            triton_errors=(crash,),
            tritoncfg_errors=[d for d in findings[m.name] if triton_checked(d)],
            agree=True,
            note="the server crashed: Triton's bug, but the model is refused all the same",
        )
        for m in models
    ]
    shown = " | ".join(line for line in log[-5:] if line.strip())
    return CaseResult(case, verdicts, problems=[f"the server died twice; its log ended: {shown}"])


def run_case_surviving(shared: SharedServer, case: Case) -> CaseResult:
    """run_case, with one fresh server and one retry when the server dies under a case (crashes
    seen in CI, not reproduced since). A second death on the same case counts as Triton refusing
    its models (crashed_case); when lint passes one of them, the test fails with what the server
    logged last, since that is a crash on a config tritoncfg calls loadable."""
    try:
        return run_case(shared, case)
    except ServerDied as died:
        tail = shared.restart()
        try:
            result = run_case(shared, case)
        except ServerDied:
            again = shared.restart()
            crashed = crashed_case(shared, case, again)
            if crashed is not None:
                return crashed
            pytest.fail(
                f"tritonserver died twice on {case.case_id} ({died}), a case tritoncfg passes; "
                "its log ended, first:\n"
                + "\n".join(tail)
                + "\nand the second time:\n"
                + "\n".join(again)
            )
        shown = " | ".join(line for line in tail[-5:] if line.strip())
        result.problems.append(f"the server died once and the retry passed; its log ended: {shown}")
        return result


def _field(path: str) -> str:
    return re.sub(r"\[[^\]]*\]", "", path)


def report(results: list[CaseResult], sampled: str) -> str:
    lines = [f"differential against Triton 2.51: {sampled}", ""]
    header = f"{'source':<11} {'models':>6} {'compared':>8} {'agree':>5} {'n/a':>4} {'verdict%':>8} {'loaded':>6} {'config=':>7}"
    lines += [header, "-" * len(header)]
    by_source: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_source[r.case.source].append(r)
    for source, group in sorted(by_source.items()):
        verdicts = [v for r in group for v in r.verdicts]
        compared = [v for v in verdicts if v.verified]
        agree = sum(v.agree for v in compared)
        loaded = sum(v.triton_state == "READY" for v in verdicts)
        differing = sum(len(r.config_changes) for r in group)
        percent = f"{100 * agree / len(compared):.1f}" if compared else "-"
        lines.append(
            f"{source:<11} {len(verdicts):>6} {len(compared):>8} {agree:>5} {len(verdicts) - len(compared):>4}"
            f" {percent:>8} {loaded:>6} {loaded - differing:>7}"
        )
    lines.append("")
    for r in results:
        for v in r.verdicts:
            if not v.agree:
                said = ", ".join(f"{d.code} {d.message}" for d in v.tritoncfg_errors) or "no error"
                triton = "; ".join(e.message for e in v.triton_errors) or "loaded"
                why = _known(r.case, v) or _version_difference(v) or "UNEXPLAINED"
                lines.append(
                    f"DISAGREE {_key(r.case, v)}\n  triton: {triton}\n  tritoncfg: {said}\n  why: {why}"
                )
    for r in results:  # agreements too: Triton 2.51 refused these for another reason
        for v in r.verdicts:
            why = _version_difference(v)
            if why is not None and v.agree:
                lines.append(f"VERSION {_key(r.case, v)} (verdicts agree, reasons differ): {why}")
    fields: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for r in results:
        for model, changes in r.config_changes.items():
            for change in changes:
                fields[_field(change.path)] += 1
                examples.setdefault(_field(change.path), f"{r.case.case_id}:{model}: {change}")
    for name, count in fields.most_common():
        why = KNOWN_CONFIG_DIFFERENCES.get(name, "UNEXPLAINED")
        lines.append(f"CONFIG {name}: {count} model(s), e.g. {examples[name]}\n  why: {why}")
    for r in results:
        for problem in r.problems:
            lines.append(f"RETRIED {r.case.case_id}: {problem}")
    not_compared = Counter(v.triton_state for r in results for v in r.verdicts if not v.verified)
    if not_compared:
        lines.append(f"not compared (backend not on this server): {dict(not_compared)}")
    return "\n".join(lines)


def test_verdicts_and_configs_agree_with_triton(triton_server: SharedServer) -> None:
    require_corpus()
    cases = all_cases()
    chosen = cases if os.environ.get("TRITONCFG_DIFFERENTIAL_ALL") else sample(cases, SAMPLE)
    total = sum(c.size for c in cases)
    sampled = (
        f"{sum(c.size for c in chosen)} of {total} models ({len(chosen)} of {len(cases)} cases)"
    )
    results = [run_case_surviving(triton_server, case) for case in chosen]
    text = report(results, sampled)
    print("\n" + text)
    unexplained = [line for line in text.splitlines() if line.strip() == "why: UNEXPLAINED"]
    stale = [
        _key(r.case, v)
        for r in results
        for v in r.verdicts
        if v.agree and v.verified and _known(r.case, v) is not None
    ]
    assert not stale, f"listed as disagreeing but now agree (remove them): {stale}"
    assert not unexplained, f"{len(unexplained)} unexplained difference(s):\n{text}"


def test_sampling_is_deterministic_and_bounded() -> None:
    require_corpus()
    cases = all_cases()
    first, second = sample(cases, SAMPLE), sample(list(reversed(cases)), SAMPLE)
    assert [c.case_id for c in first] == [c.case_id for c in second]
    for source, budget in SAMPLE.items():
        assert 0 < sum(c.size for c in first if c.source == source) <= budget
    assert {c.source for c in cases} == set(SAMPLE)


def test_a_server_that_dies_under_a_case_is_replaced_and_the_case_retried(
    triton_server: SharedServer,
) -> None:
    require_corpus()
    case = next(c for c in sample(all_cases(), SAMPLE) if c.source == "rule_docs")
    os.killpg(triton_server.server.process.pid, signal.SIGKILL)
    triton_server.server.process.wait()
    result = run_case_surviving(triton_server, case)
    assert triton_server.server.alive
    assert [p for p in result.problems if p.startswith("the server died once")], result.problems
    assert result.verdicts and all(v.agree for v in result.verdicts if v.verified), result.verdicts


def test_a_case_that_crashes_the_server_twice_agrees_only_where_lint_reports_an_error(
    triton_server: SharedServer,
) -> None:
    require_corpus()
    cases = {c.case_id: c for c in all_cases()}
    refused = crashed_case(triton_server, cases["TC710-example-0"], ["Signal (11) received."])
    assert refused is not None
    assert [(v.model, v.triton_state, v.agree) for v in refused.verdicts] == [
        ("m", "REJECTED", True)
    ]
    assert [d.code for d in refused.verdicts[0].tritoncfg_errors] == ["TC710"]
    assert refused.problems == ["the server died twice; its log ended: Signal (11) received."]
    # the fixed config lints clean (so lint ran on it): a crash there is the test's failure
    models, diagnostics = _lint_case(triton_server, cases["TC710-fix-0"])
    assert [m.name for m in models] == ["m"] and not any(map(triton_checked, diagnostics))
    assert crashed_case(triton_server, cases["TC710-fix-0"], []) is None
