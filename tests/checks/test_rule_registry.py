"""The rule registry: the order Triton applies rules in (RULES order decides which first error
an ensemble reports for a step model), each rule's gate, and that a gate belongs to the rule's
declaration, not to the module it lives in."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tritoncfg.checks import RULES
from tritoncfg.checks.core import gates
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.plan import RulePlan
from tritoncfg.checks.core.registry import _NAMES, ModelRule, RepositoryRule, Rule
from tritoncfg.checks.core.table import TableError, row_for, rule_index, table
from tritoncfg.repository.reuse import SETTLE_NS
from tritoncfg.schema import ModelConfig

# RULES order as it was when the gates moved from module names to the declarations (issue 13).
ORDER = [
    "TC915",
    "TC120",
    "TC121",
    "TC122",
    "TC124",
    "TC340",
    "TC341",
    "TC201",
    "TC202",
    "TC203",
    "TC204",
    "TC205",
    "TC206",
    "TC207",
    "TC508",
    "TC509",
    "TC510",
    "TC511",
    "TC512",
    "TC501",
    "TC502",
    "TC503",
    "TC504",
    "TC505",
    "TC506",
    "TC507",
    "TC520",
    "TC521",
    "TC522",
    "TC523",
    "TC530",
    "TC531",
    "TC532",
    "TC533",
    "TC534",
    "TC535",
    "TC536",
    "TC537",
    "TC401",
    "TC402",
    "TC403",
    "TC404",
    "TC405",
    "TC914",
    "TC916",
    "TC406",
    "TC407",
    "TC408",
    "TC301",
    "TC302",
    "TC303",
    "TC305",
    "TC320",
    "TC321",
    "TC322",
    "TC323",
    "TC324",
    "TC325",
    "TC304",
    "TC306",
    "TC307",
    "TC308",
    "TC309",
    "TC310",
    "TC311",
    "TC312",
    "TC330",
    "TC331",
    "TC332",
    "TC101",
    "TC102",
    "TC103",
    "TC104",
    "TC105",
    "TC106",
    "TC107",
    "TC108",
    "TC721",
    "TC722",
    "TC723",
    "TC741",
    "TC742",
    "TC711",
    "TC712",
    "TC713",
    "TC714",
    "TC731",
    "TC126",
    "TC801",
    "TC802",
    "TC803",
    "TC804",
    "TC805",
    "TC807",
    "TC808",
    "TC809",
    "TC806",
    "TC810",
    "TC811",
    "TC812",
    "TC813",
    "TC870",
    "TC871",
    "TC872",
    "TC873",
    "TC874",
    "TC850",
    "TC851",
    "TC852",
    "TC859",
    "TC853",
    "TC854",
    "TC855",
    "TC856",
    "TC857",
    "TC858",
    "TC860",
    "TC861",
    "TC862",
    "TC863",
    "TC864",
    "TC865",
    "TC866",
    "TC751",
    "TC001",
    "TC002",
    "TC003",
    "TC004",
    "TC005",
    "TC006",
    "TC007",
    "TC009",
    "TC110",
    "TC111",
    "TC112",
    "TC113",
    "TC901",
    "TC902",
    "TC903",
    "TC904",
    "TC906",
    "TC907",
    "TC910",
    "TC911",
    "TC912",
    "TC913",
    "TC123",
    "TC125",
    "TC127",
    "TC732",
    "TC601",
    "TC602",
    "TC603",
    "TC609",
    "TC610",
    "TC611",
    "TC620",
    "TC621",
    "TC622",
    "TC623",
    "TC624",
    "TC625",
    "TC626",
    "TC627",
    "TC628",
    "TC629",
    "TC630",
    "TC631",
    "TC632",
    "TC633",
    "TC604",
    "TC605",
    "TC606",
    "TC607",
    "TC608",
    "TC010",
    "TC011",
    "TC012",
    "TC115",
    "TC116",
    "TC701",
    "TC702",
    "TC703",
    "TC704",
    "TC705",
    "TC709",
    "TC706",
    "TC707",
    "TC708",
    "TC710",
    "TC715",
    "TC000",
]

# The rules each gate holds back, as ranges of codes; every other rule is ungated.
GATED = {
    gates.sequence_batching: "TC601-TC633",
    gates.ensemble: "TC501-TC537",
    gates.warmup: "TC701-TC710 TC715",
    gates.batch_io: "TC320-TC325",
    gates.labels: "TC330-TC332",
    gates.backend_owned: "TC340-TC341",
    gates.parameters: "TC721-TC723 TC741-TC742 TC751",
    gates.cache_metrics_rate_limiter: "TC711-TC714 TC731-TC732",
    gates.onnx: "TC801-TC813",
    gates.openvino: "TC870-TC874",
    gates.tensorrt: "TC407 TC850-TC866 TC906 TC911",
    gates.dynamic_batching: "TC202-TC207 TC901-TC902 TC907 TC912",
}


def _codes(ranges: str) -> set[str]:
    """The rule codes within `TCaaa-TCbbb` ranges (and single codes)."""
    found: set[str] = set()
    for part in ranges.split():
        first, _, last = part.partition("-")
        found |= {c for c in ORDER if first <= c <= (last or first)}
    return found


EMITTED = {"TC000", "TC009", "TC010", "TC011"}  # metadata only: the engine or `verify` emits them
REPOSITORY = {"TC101", "TC102", "TC103", "TC916"}


def test_rules_keep_their_order() -> None:
    assert list(RULES) == ORDER


def test_each_rule_keeps_its_gate() -> None:
    expected = {code: gate for gate, ranges in GATED.items() for code in _codes(ranges)}
    assert {code: rule.gate for code, rule in RULES.items()} == {
        code: expected.get(code) for code in ORDER
    }


def test_rule_kinds() -> None:
    assert {c for c, r in RULES.items() if type(r) is Rule} == EMITTED
    assert {c for c, r in RULES.items() if isinstance(r, RepositoryRule)} == REPOSITORY
    assert all(isinstance(r, ModelRule) for c, r in RULES.items() if c not in EMITTED | REPOSITORY)
    assert all(isinstance(r.phase, Phase) for r in RULES.values())


FIXTURE = Path(__file__).parent / "moved_rule_fixture.py"


@pytest.fixture
def moved_rule() -> Iterator[ModelRule]:
    """The fixture module's rule: a sequence-batching check declared outside tritoncfg."""
    spec = importlib.util.spec_from_file_location("moved_rule_fixture", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        rule = module.moved
        assert isinstance(rule, ModelRule)
        yield rule
    finally:
        del sys.modules[spec.name]
        if RULES.pop("TC998", None) is not None:
            _NAMES.discard("moved-rule-fixture")


def test_a_rule_declared_in_another_module_keeps_its_gate(moved_rule: ModelRule) -> None:
    original = RULES["TC601"]
    assert isinstance(original, ModelRule)
    assert moved_rule.check is original.check
    assert moved_rule.check.__module__ != "moved_rule_fixture"
    assert moved_rule.gate is original.gate is gates.sequence_batching
    plain, sequence = ModelConfig(), ModelConfig()
    sequence.sequence_batching.SetInParent()
    plan = RulePlan([moved_rule, RULES["TC201"]])
    assert [r.code for r in plan.for_config(plain)] == ["TC201"]
    assert [r.code for r in plan.for_config(sequence)] == ["TC998", "TC201"]


ROOT = Path(__file__).resolve().parents[2]


def test_the_rule_table_is_the_order_and_every_line_is_declared() -> None:
    """rules.tsv's line order is RULES order; each live line's rule is declared where the line
    says, under its name; removed codes stay as lines (never reused) and load nothing."""
    rows = table()
    assert list(rule_index()) == ORDER == [c for c in RULES]
    for code, rule in RULES.items():
        row = rows[code]
        assert (row.name, f"tritoncfg.checks.{row.module}") == (rule.name, rule.module)
        assert getattr(sys.modules[rule.module], row.attribute) is rule
        scope = {ModelRule: "model", RepositoryRule: "repository"}.get(type(rule), "emitted")
        assert row.scope == scope, code
    removed = [row.code for row in rows.values() if row.lifecycle == "removed"]
    assert removed == ["TC905", "TC908", "TC909"] and not set(removed) & set(RULES)


def test_a_declaration_the_table_does_not_name_is_refused() -> None:
    with pytest.raises(TableError, match=r"TC997 \(io.labels:x\) is not a rule in rules.tsv"):
        row_for("TC997", "tritoncfg.checks.io.labels", "x")
    with pytest.raises(TableError, match=r"TC331 is declared at io\.tensors:label_file_missing"):
        row_for("TC331", "tritoncfg.checks.io.tensors", "label_file_missing")
    with pytest.raises(TableError, match="TC905"):
        row_for("TC905", "tritoncfg.checks.practice.serving", "-")


_SHUFFLED_LINT = """
import importlib, json, random, sys
from tritoncfg.checks.core.index import families
order = families()
random.Random(int(sys.argv[1])).shuffle(order)
for family in order:
    importlib.import_module(f"tritoncfg.checks.{family}")
from tritoncfg.cli.main import main
sys.argv = ["tritoncfg", "lint", "--no-cache", "-f", "json", *sys.argv[2:]]
main()
"""


def test_the_order_families_are_imported_in_changes_nothing(tmp_path: Path) -> None:
    """Every family imported in a shuffled order, three times: the same report, byte for byte,
    as a run that imports them as it needs them (ensembles' first step errors included)."""
    repo = tmp_path / "repo"
    for name, text in {
        "step": 'backend: "python"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        "dynamic_batching { preferred_batch_size: [ 16 ] }\n"
        "instance_group [ { kind: KIND_GPU gpus: [ 7 ] } ]\n",
        "pipe": 'platform: "ensemble"\nmax_batch_size: 8\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'ensemble_scheduling { step [ { model_name: "step" model_version: -1\n'
        'input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ] }\n',
    }.items():
        (repo / name / "1").mkdir(parents=True)
        (repo / name / "config.pbtxt").write_text(text, encoding="utf-8")
    (repo / "step" / "1" / "model.py").write_text("", encoding="utf-8")
    reports = [
        subprocess.run(
            [sys.executable, "-c", _SHUFFLED_LINT, str(seed), str(repo)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        for seed in (0, 1, 2)
    ]
    plain = subprocess.run(
        [sys.executable, "-m", "tritoncfg", "lint", "--no-cache", "-f", "json", str(repo)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert plain.returncode == 1 and "TC" in plain.stdout, plain.stderr
    codes = [d["code"] for d in json.loads(plain.stdout)["diagnostics"]]
    assert len(set(codes)) >= 3, codes  # errors from several families, in both models
    for report in reports:
        assert (report.returncode, report.stdout) == (plain.returncode, plain.stdout), report.stderr


_LINT_AND_LIST_FAMILIES = """
import sys
from tritoncfg.cli.main import main
sys.argv = ["tritoncfg", "lint", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(" ".join(sorted(m for m in sys.modules if m.startswith("tritoncfg.checks."))))
"""


def test_a_run_imports_only_the_families_it_selected(tmp_path: Path) -> None:
    config = tmp_path / "m" / "config.pbtxt"
    (config.parent / "1").mkdir(parents=True)
    (config.parent / "1" / "model.py").write_text("", encoding="utf-8")
    config.write_text(
        'backend: "python"\nmax_batch_size: 8  # tritoncfg: noqa TC999\n'
        "dynamic_batching { preferred_batch_size: [ 16 ] }\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _LINT_AND_LIST_FAMILIES,
            "--no-cache",
            "--select",
            "TC2,TC011",
            str(config),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "TC203" in done.stdout and "TC011" in done.stdout, done.stdout + done.stderr
    loaded = set(done.stdout.split("\n")[-2].split())
    assert "tritoncfg.checks.batching.dynamic_batching" in loaded
    # TC011 asks the index whether TC999 exists: no other family is imported for it
    assert not {
        m
        for m in loaded
        if m.startswith(
            (
                "tritoncfg.checks.ensembles",
                "tritoncfg.checks.model_formats",
                "tritoncfg.checks.sequence_batching",
                "tritoncfg.checks.practice",
            )
        )
    }


def test_a_run_the_cache_replays_imports_no_family(tmp_path: Path) -> None:
    config = tmp_path / "repo" / "m" / "config.pbtxt"
    (config.parent / "1").mkdir(parents=True)
    (config.parent / "1" / "model.py").write_text("", encoding="utf-8")
    config.write_text('backend: "python"\nmax_batch_size: 8\n', encoding="utf-8")
    # the cache trusts only stamps older than its settling time (SETTLE_NS: a change within it
    # might not show in the stamps)
    time.sleep(SETTLE_NS / 1e9 + 0.2)
    (tmp_path / "work").mkdir()
    runs = [
        subprocess.run(
            [sys.executable, "-c", _LINT_AND_LIST_FAMILIES, str(config)],
            cwd=tmp_path / "work",
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for _ in range(2)
    ]
    assert (tmp_path / "work" / ".tritoncfg_cache").is_dir()
    assert runs[0].split("\n")[:-2] == runs[1].split("\n")[:-2]  # the same report
    first, replayed = (set(run.split("\n")[-2].split()) for run in runs)
    assert "tritoncfg.checks.batching.dynamic_batching" in first
    families = {
        m for m in replayed if m.count(".") == 3 and m.split(".")[2] not in ("core", "common")
    }
    # the codes of the always-on parse errors (parse/codes.py), not their rules
    assert families == {"tritoncfg.checks.parse.codes"}
