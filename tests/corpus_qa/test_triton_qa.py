"""Agreement with Triton's own QA suite (../shared/corpus/triton_qa, issue 3).

Every INDEX.tsv case is rebuilt in a temp dir the way its test.sh lays it out (version folders and
other SETUP.tsv files recreated; `missing` artefacts cannot be, and are noted), linted with the
server flags the test used, and compared with the outcome Triton gave:

* `invalid`: some ERROR diagnostic must carry Triton's message (`triton.message` contains the
  expected literal, or one of the alternates in the case's `expected*` files);
* `valid` / `autofill`: no ERROR diagnostic (and, where the test also greps a warning or info
  line, some diagnostic carrying it).

`noautofill_platform` cases are replaced by their VARIANTS.tsv copies (platform injected, strict
mode), as Triton's test runs them. Each case ends up `agree`, `verdict-only` (the verdict is right,
the message is not), `disagree`, or `expected-unknown` (the outcome is decided by something that
is not in the files: a model binary, a python `auto_complete_config`, a DALI pipeline, missing
artefacts); those are linted too but never counted. Which cases are expected-unknown, why, and
what tritoncfg says there are snapshotted in tests/corpus_qa/expected_unknown.tsv, so a change in
them shows in review; after a deliberate change, regenerate it with

    TRITONCFG_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/corpus_qa/test_triton_qa.py

Run with `-s` to see the agreement table.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from corpus import (
    TRITON_QA,
    materialize_qa_case,
    qa_case_dir,
    qa_index,
    qa_setup,
    read_tsv,
    require_corpus,
    touch,
)

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Diagnostic, Severity

# Triton's QA runs on GPU machines; no case says otherwise.
GPUS: tuple[int, ...] = (0,)

# The backends installed in the QA container (/opt/tritonserver/backends), recreated as empty
# libraries so that the backend-library checks (`backend_model.cc:GetBackendLibraryProperties`) see the host the tests ran on.
# `repeat` is not among them: its test copies libtriton_repeat.so into the model (SETUP: missing).
QA_BACKENDS: tuple[str, ...] = (
    "dali",
    "fil",
    "identity",
    "onnxruntime",
    "openvino",
    "python",
    "pytorch",
    "sequence",
    "tensorflow",
    "tensorrt",
)

# Cases judged undecidable from the files after reading them (beyond what the INDEX columns
# needs_model_file / model_files_status already say).
UNDECIDABLE: dict[str, str] = {
    "L0_model_config__custom_parameters__tensorrt__invalid__allocation_strategy_invalid_value": (
        "decided by the TensorRT backend at instance creation (tensorrt_backend `src/instance_state.cc`), after it deserializes "
        "model.plan (missing); the config itself is reconstructed"
    ),
}

# Cases the INDEX marks needs_model_file=yes whose expected outcome its notes say the config
# alone decides.
DECIDABLE_DESPITE_MODEL_FILE: dict[str, str] = {
    "L0_model_config__autofill_noplatform__pytorch__too_few_outputs": (
        "the PyTorch backend rejects a config without outputs before it reads model.pt"
    ),
}

# Layout steps of a test.sh that SETUP.tsv does not replay: folder paths relative to the case.
EXTRA_SETUP: dict[str, tuple[str, ...]] = {
    # qa/L0_rate_limiter/test.sh: `mkdir -p ./custom_models/custom_zero_1_float32/1`, then v2 is
    # `cp -r` of it and v3 of v2 (Case4); custom_sequence_int32 really has no version folder.
    "server_qa__L0_rate_limiter__conflicting_resource_types": (
        "custom_zero_1_float32/1",
        "custom_zero_1_float32_v2/1",
        "custom_zero_1_float32_v3/1",
    ),
}

# case id (or a noautofill_platform base id, for all three platforms) -> why tritoncfg is right
# to differ from Triton there. Filled by the lead only, with justified entries.
KNOWN_DISAGREEMENTS: dict[str, str] = {}

STATUSES = ("agree", "verdict-only", "disagree", "expected-unknown")


@dataclass(frozen=True)
class Case:
    case_id: str  # INDEX case_id, or VARIANTS variant_id
    base_id: str  # the INDEX row (SETUP.tsv rows are keyed by it)
    row: dict[str, str]  # the INDEX row
    case_dir: Path  # the verbatim copy to lint (variant dir for variants)
    setup_base: Path  # what SETUP.tsv target paths are relative to
    strict: bool
    config_name: str | None

    @property
    def kind(self) -> str:
        return self.row["kind"]

    @property
    def folder(self) -> str:
        """Reporting group: the first two levels under triton_qa (of the base case)."""
        return "/".join(self.setup_base.relative_to(TRITON_QA).parts[:2])


@dataclass
class Outcome:
    case: Case
    status: str
    reason: str = ""  # why expected-unknown
    unknown_status: str = ""  # expected-unknown: what the status would have been
    expected: tuple[str, ...] = ()  # the acceptable messages (invalid) or expected line (valid)
    said: str = ""  # what tritoncfg reported, in short
    notes: list[str] = field(default_factory=list)  # materialization notes (missing files...)


# ---------------------------------------------------------------------------------------------
# Reading the corpus


def server_mode(server_args: str) -> tuple[bool, str | None]:
    """(strict, config_name) from a case's tritonserver flags."""
    strict = "--disable-auto-complete-config" in server_args or bool(
        re.search(r"--strict-model-config=(true|1)\b", server_args, re.IGNORECASE)
    )
    named = re.search(r"--model-config-name[= ](\S+)", server_args)
    return strict, named.group(1) if named else None


def load_cases() -> list[Case]:
    variants: dict[str, list[dict[str, str]]] = defaultdict(list)
    for variant in read_tsv(TRITON_QA / "VARIANTS.tsv"):
        variants[variant["base_case_id"]].append(variant)
    cases: list[Case] = []
    for row in qa_index():
        base_dir = qa_case_dir(row["case_id"])
        if row["case_id"].startswith("L0_model_config__noautofill_platform__"):
            for variant in variants[row["case_id"]]:
                strict, config_name = server_mode(variant["server_args"])
                assert strict, variant["variant_id"]  # Triton runs these strict only
                cases.append(
                    Case(
                        variant["variant_id"],
                        row["case_id"],
                        row,
                        TRITON_QA / variant["path"],
                        base_dir,
                        strict,
                        config_name,
                    )
                )
            continue
        strict, config_name = server_mode(row["server_args"])
        cases.append(
            Case(row["case_id"], row["case_id"], row, base_dir, base_dir, strict, config_name)
        )
    return cases


def unescape_bre(pattern: str) -> str:
    r"""A grep BRE written as an escaped literal (`\[1, 3\]`) back to the literal."""
    return re.sub(r"\\(.)", r"\1", pattern)


def expected_messages(case: Case) -> tuple[str, ...]:
    """The acceptable messages: the INDEX literal and every `expected*` alternate."""
    mode = case.row["match_mode"]
    multiline = "multi-line" in mode
    found: list[str] = []
    if case.row["expected_message_literal"] and not multiline:
        found.append(case.row["expected_message_literal"])
    for name in filter(None, case.row["expected_files"].split(",")):
        path = case.case_dir / name
        if not path.is_file() or path.suffix == ".json":
            continue
        text = path.read_text(encoding="utf-8")
        text = text.strip("\n") if multiline else (text.splitlines() or [""])[0]
        if "BRE" in mode:
            text = unescape_bre(text)
        if text and text not in found:
            found.append(text)
    return tuple(found)


def extra_terms(match_mode: str) -> tuple[str, ...]:
    """`grep -i <EX> | grep -i decoupled`: further words the same line must contain."""
    return tuple(re.findall(r"\|\s*grep -i (\w+)", match_mode))


def missing_files(case: Case) -> list[str]:
    rows = qa_setup().get(case.base_id, [])
    found = [r["target_path"] for r in rows if r["status"].startswith("missing")]
    status = case.row["model_files_status"]
    if status.startswith("missing") and not found:
        found.append(status.removeprefix("missing:"))
    return found


def undecidable_reason(case: Case) -> str | None:
    """Why the expected outcome cannot be decided from the files, or None when it can."""
    if case.base_id in UNDECIDABLE:
        return UNDECIDABLE[case.base_id]
    row = case.row
    missing = missing_files(case)
    if row["needs_model_file"] == "yes" and case.base_id not in DECIDABLE_DESPITE_MODEL_FILE:
        status = row["model_files_status"]
        where = row["platform_or_backend"]
        if "python" in where or "model.py" in status:
            return "decided by the python model.py auto_complete_config"
        if "dali" in where:
            return "decided by the DALI pipeline (dali.py) in the DALI backend"
        if not missing and ".onnx" in status:
            return None  # tritoncfg reads ONNX files (tritoncfg.models.onnx): decidable
        if not missing and ".xml" in status and "openvino" in where:
            return None  # tritoncfg reads OpenVINO IRs (tritoncfg.models.openvino): decidable
        what = "missing: " + ", ".join(missing) if missing else status
        return f"decided by the model file's contents ({what})"
    if case.kind in ("valid", "autofill") and missing:
        return "needs files the corpus lacks: " + ", ".join(missing)
    return None


# ---------------------------------------------------------------------------------------------
# Running one case


def materialize(case: Case, work: Path) -> tuple[Path, list[str]]:
    """Lay the case out under `work/models`; return the path to lint and notes."""
    repository = work / "models"
    single = case.row["layout"] == "single_model"
    root = repository / case.case_dir.name if single else repository
    notes = materialize_qa_case(
        case.case_dir,
        root,
        qa_setup().get(case.base_id, []),
        setup_base=case.setup_base,
        extra_folders=EXTRA_SETUP.get(case.base_id, ()),
    )
    return root, notes


def triton_text(diagnostic: Diagnostic) -> str:
    return (diagnostic.triton.message if diagnostic.triton is not None else None) or ""


def carries(
    diagnostic: Diagnostic,
    expected: Iterable[str],
    terms: tuple[str, ...],
    *,
    fold: bool,
    parse_detail: bool = False,
) -> bool:
    """Whether the diagnostic carries one of the expected messages (plus every extra term).

    `parse_detail`: the test greps the whole server log for a protobuf parser detail, which
    Triton logs (`[libprotobuf ERROR ...] Error parsing text-format ...: <detail>`) beside its
    status `failed to read text proto from <path>` (`filesystem/api.cc:ReadTextProto`); a PARSE diagnostic then matches on
    either its Triton status or its message (the parser detail)."""
    text = triton_text(diagnostic)
    if parse_detail and diagnostic.triton is not None and diagnostic.triton.phase == "PARSE":
        text += "\n" + diagnostic.message
    if fold:
        text = text.lower()
    for message in expected:
        wanted = (message, *terms)
        if all((w.lower() if fold else w) in text for w in wanted):
            return True
    return False


def summarize(diagnostics: list[Diagnostic]) -> str:
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    if not errors:
        others = sorted({d.code for d in diagnostics})
        return "no error" + (f" (other: {', '.join(others)})" if others else "")
    return " | ".join(
        f"{d.code} {triton_text(d) or '(no triton message): ' + d.message}" for d in errors
    )


def run_case(case: Case, work: Path, backends: Path) -> Outcome:
    target, notes = materialize(case, work)
    options = LintOptions(
        triton_mode="strict" if case.strict else "default",
        gpus=GPUS,
        backend_dir=backends,
        config_name=case.config_name,
        rate_limit="--rate-limit=execution_count" in case.row["server_args"],
    )
    diagnostics = lint(target, options).diagnostics
    mode = case.row["match_mode"]
    fold = "grep -i" in mode
    terms = extra_terms(mode)
    parse_detail = "protobuf TextFormat parse error" in mode
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    said = summarize(diagnostics).replace(
        str(target), "<model>" if target != work / "models" else "<repo>"
    )
    outcome = Outcome(case, "", said=said, notes=notes)
    if case.kind == "invalid":
        outcome.expected = expected_messages(case)
        if any(
            carries(d, outcome.expected, terms, fold=fold, parse_detail=parse_detail)
            for d in errors
        ):
            outcome.status = "agree"
        else:
            outcome.status = "verdict-only" if errors else "disagree"
    elif errors:
        outcome.status = "disagree"
        outcome.expected = ("(loads)",)
    elif case.kind == "valid" and case.row["expected_message_literal"]:
        # the test also greps a warning / info line
        outcome.expected = (case.row["expected_message_literal"],)
        logged = any(carries(d, outcome.expected, terms, fold=fold) for d in diagnostics)
        outcome.status = "agree" if logged else "verdict-only"
    else:
        outcome.status = "agree"
    reason = undecidable_reason(case)
    if reason is not None:
        outcome.reason, outcome.unknown_status = reason, outcome.status
        outcome.status = "expected-unknown"
    return outcome


def make_backends(root: Path) -> Path:
    for name in QA_BACKENDS:
        touch(root / name / f"libtriton_{name}.so")
    return root


# ---------------------------------------------------------------------------------------------
# Reporting


def agreement_table(outcomes: list[Outcome]) -> str:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[outcome.case.folder].append(outcome)
    header = (
        f"{'folder':<42} {'cases':>5} {'agree':>5} {'v-only':>6} {'disagr':>6} {'unknown':>7}"
        f" {'agree%':>7} {'verdict%':>8}"
    )
    lines = [header, "-" * len(header)]

    def line(name: str, group: list[Outcome]) -> str:
        n = {s: sum(o.status == s for o in group) for s in STATUSES}
        decidable = len(group) - n["expected-unknown"]
        agree = f"{100 * n['agree'] / decidable:.1f}" if decidable else "-"
        verdict = f"{100 * (n['agree'] + n['verdict-only']) / decidable:.1f}" if decidable else "-"
        return (
            f"{name:<42} {len(group):>5} {n['agree']:>5} {n['verdict-only']:>6}"
            f" {n['disagree']:>6} {n['expected-unknown']:>7} {agree:>7} {verdict:>8}"
        )

    for name in sorted(groups):
        lines.append(line(name, groups[name]))
    lines.append("-" * len(header))
    lines.append(line("total", outcomes))
    return "\n".join(lines)


def describe(outcomes: list[Outcome]) -> str:
    """One entry per case; the platform variants of a case that fail alike share one."""
    groups: dict[tuple[str, str, str, tuple[str, ...]], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[(o.case.base_id, o.status, o.said, o.expected)].append(o)
    entries = []
    for (base_id, status, said, expected), group in groups.items():
        name = group[0].case.case_id
        if len(group) > 1 or name != base_id:
            name = base_id + "@" + ",".join(o.case.case_id.partition("@")[2] for o in group)
        wanted = " OR ".join(repr(e) for e in expected) or "(nothing)"
        text = f"  {name} [{status}]\n    expected: {wanted}\n    tritoncfg: {said}"
        notes = sorted({n for o in group for n in o.notes})
        if notes:
            text += "\n    notes: " + "; ".join(notes)
        entries.append(text)
    return "\n".join(entries)


UNKNOWN_SNAPSHOT = Path(__file__).with_name("expected_unknown.tsv")
UPDATE_ENV = "TRITONCFG_UPDATE_SNAPSHOTS"


def unknown_lines(unknown: list[Outcome]) -> list[str]:
    """The snapshot: a header, then `case_id<TAB>reason<TAB>what tritoncfg says`, sorted."""
    rows = sorted(f"{o.case.case_id}\t{o.reason}\t{o.unknown_status}" for o in unknown)
    return ["case_id\treason\ttritoncfg", *rows]


def compare_unknown_snapshot(unknown: list[Outcome]) -> str | None:
    """None when the expected-unknown cases match the snapshot (or it was just rewritten because
    TRITONCFG_UPDATE_SNAPSHOTS is set), else the diff and how to accept it."""
    current = unknown_lines(unknown)
    if os.environ.get(UPDATE_ENV):
        UNKNOWN_SNAPSHOT.write_text("\n".join(current) + "\n", encoding="utf-8")
        return None
    saved = (
        UNKNOWN_SNAPSHOT.read_text(encoding="utf-8").splitlines()
        if UNKNOWN_SNAPSHOT.is_file()
        else []
    )
    if saved == current:
        return None
    diff = difflib.unified_diff(saved, current, str(UNKNOWN_SNAPSHOT.name), "this run", lineterm="")
    return (
        f"the expected-unknown cases differ from {UNKNOWN_SNAPSHOT.name} (- snapshot, + this "
        f"run); if the change is meant, rerun with {UPDATE_ENV}=1 and commit the file:\n"
        + "\n".join(diff)
    )


def known(case: Case) -> bool:
    return case.case_id in KNOWN_DISAGREEMENTS or case.base_id in KNOWN_DISAGREEMENTS


# ---------------------------------------------------------------------------------------------
# Tests


def test_corpus_index_is_consistent() -> None:
    """The harness reads the corpus right: every case dir exists, every SETUP path lies inside
    its case, the tables name real cases, and the literal derived from the `expected` file is the
    INDEX's `expected_message_literal`."""
    require_corpus(TRITON_QA)
    cases = load_cases()
    ids = {c.case_id for c in cases} | {c.base_id for c in cases}
    assert len(qa_index()) == 217
    assert sum(c.case_id != c.base_id for c in cases) == 174
    for case in cases:
        assert case.case_dir.is_dir(), case.case_id
        for row in qa_setup().get(case.base_id, []):
            assert Path(row["target_path"]).is_relative_to(
                case.setup_base.relative_to(TRITON_QA)
            ), row
        if (
            case.kind == "invalid"
            and "BRE" in case.row["match_mode"]
            and case.case_id == case.base_id
        ):
            first = case.row["expected_files"].split(",")[0]
            text = (case.case_dir / first).read_text(encoding="utf-8").splitlines()[0]
            assert unescape_bre(text) == case.row["expected_message_literal"], case.case_id
    for table in (UNDECIDABLE, DECIDABLE_DESPITE_MODEL_FILE, KNOWN_DISAGREEMENTS, EXTRA_SETUP):
        assert set(table) <= ids, set(table) - ids


def test_triton_qa_agreement(tmp_path: Path) -> None:
    require_corpus(TRITON_QA)
    backends = make_backends(tmp_path / "backends")
    outcomes: list[Outcome] = []
    crashes: list[str] = []
    for number, case in enumerate(load_cases()):
        try:
            outcomes.append(run_case(case, tmp_path / f"case{number:03d}", backends))
        except Exception as error:  # one crash must not hide the other 332 results
            crashes.append(f"  {case.case_id}: {type(error).__name__}: {error}")
    table = agreement_table(outcomes)
    print("\nTriton QA agreement (percentages over decidable cases)\n" + table)
    unknown = [o for o in outcomes if o.status == "expected-unknown"]
    print(f"\nexpected-unknown ({len(unknown)}):")
    for outcome in unknown:
        print(f"  {outcome.case.case_id}: {outcome.reason} (tritoncfg: {outcome.unknown_status})")

    failing = [
        o for o in outcomes if o.status in ("verdict-only", "disagree") and not known(o.case)
    ]
    stale = sorted(
        {
            key
            for o in outcomes
            if o.status == "agree"
            for key in (o.case.case_id, o.case.base_id)
            if key in KNOWN_DISAGREEMENTS
        }
    )
    problems: list[str] = []
    snapshot_change = compare_unknown_snapshot(unknown)
    if snapshot_change:
        problems.append(snapshot_change)
    if crashes:
        problems.append(f"lint raised on {len(crashes)} cases:\n" + "\n".join(crashes))
    if failing:
        problems.append(
            f"{len(failing)} decidable cases where tritoncfg does not give Triton's verdict and message:\n"
            + describe(failing)
        )
    if stale:
        problems.append(
            "KNOWN_DISAGREEMENTS entries that now agree (remove them): " + ", ".join(stale)
        )
    assert not problems, table + "\n\n" + "\n\n".join(problems)


def test_unknown_snapshot_shows_a_change_and_regenerates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No corpus needed: outcomes made by hand against a snapshot in tmp_path."""
    snapshot = tmp_path / "expected_unknown.tsv"
    monkeypatch.setattr(sys.modules[__name__], "UNKNOWN_SNAPSHOT", snapshot)
    monkeypatch.delenv(UPDATE_ENV, raising=False)

    def unknown(case_id: str, reason: str, status: str) -> Outcome:
        case = Case(case_id, case_id, {}, tmp_path, tmp_path, False, None)
        return Outcome(case, "expected-unknown", reason=reason, unknown_status=status)

    before = [
        unknown("b", "needs model.plan", "agree"),
        unknown("a", "model.py decides", "disagree"),
    ]
    assert "+a\tmodel.py decides\tdisagree" in str(compare_unknown_snapshot(before))
    assert not snapshot.exists()

    monkeypatch.setenv(UPDATE_ENV, "1")
    assert compare_unknown_snapshot(before) is None
    assert snapshot.read_text(encoding="utf-8").splitlines() == [
        "case_id\treason\ttritoncfg",
        "a\tmodel.py decides\tdisagree",
        "b\tneeds model.plan\tagree",
    ]

    monkeypatch.delenv(UPDATE_ENV)
    assert compare_unknown_snapshot(list(reversed(before))) is None
    after = [unknown("a", "model.py decides", "agree"), unknown("c", "dali.py decides", "agree")]
    change = str(compare_unknown_snapshot(after))
    assert f"rerun with {UPDATE_ENV}=1" in change
    for line in (
        "-a\tmodel.py decides\tdisagree",
        "+a\tmodel.py decides\tagree",
        "-b\tneeds model.plan\tagree",
        "+c\tdali.py decides\tagree",
    ):
        assert line in change.splitlines(), line
