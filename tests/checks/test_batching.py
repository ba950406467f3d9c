"""TC2xx: max_batch_size and dynamic batching (`model_config_utils.cc:ValidateModelConfig`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus import TRITON_QA, parametrize_corpus, read_tsv, require_corpus
from lintkit import found_at, lint_config, lint_repo, make_model

PY = 'backend: "python"\n'


def test_negative_max_batch_size(tmp_path: Path) -> None:
    diagnostics = lint_config(tmp_path, PY + "max_batch_size: -1\n")
    assert found_at(diagnostics, "TC201") == [
        ("2:17", "'max_batch_size' must be non-negative value for m")
    ]


def test_zero_max_batch_size_passes(tmp_path: Path) -> None:
    assert not found_at(lint_config(tmp_path, PY + "max_batch_size: 0\n"), "TC201")


def test_preferred_batch_size_not_positive(tmp_path: Path) -> None:
    config = PY + "max_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 0, 4, -2 ] }\n"
    message = "dynamic batching preferred size must be positive for m"
    assert found_at(lint_config(tmp_path, config), "TC202") == [
        ("3:44", message),
        ("3:50", message),
    ]


def test_preferred_batch_size_filled_from_max_batch_size_passes(tmp_path: Path) -> None:
    # `NormalizeModelConfig` fills an empty list with [max_batch_size]; that is never an error
    diagnostics = lint_config(tmp_path, PY + "max_batch_size: 8\ndynamic_batching { }\n")
    assert not found_at(diagnostics, "TC202")
    assert not found_at(diagnostics, "TC203")


def test_preferred_batch_size_exceeds_max(tmp_path: Path) -> None:
    config = PY + "max_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 4, 16 ] }\n"
    diagnostics = [d for d in lint_config(tmp_path, config) if d.code == "TC203"]
    assert [(str(d.span), d.triton.message if d.triton else None) for d in diagnostics] == [
        ("3:47", "dynamic batching preferred size must be <= max batch size for m")
    ]
    assert "above max_batch_size 8" in diagnostics[0].message


def test_any_preferred_batch_size_exceeds_zero_max_batch_size(tmp_path: Path) -> None:
    config = PY + "dynamic_batching { preferred_batch_size: [ 1 ] }\n"
    diagnostics = [d for d in lint_config(tmp_path, config) if d.code == "TC203"]
    assert [str(d.span) for d in diagnostics] == ["2:44"]
    assert "max_batch_size is 0" in diagnostics[0].message


def test_preferred_batch_size_within_max_passes(tmp_path: Path) -> None:
    config = PY + "max_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 4, 8 ] }\n"
    assert not found_at(lint_config(tmp_path, config), "TC203")


def test_negative_max_batch_size_is_not_compared(tmp_path: Path) -> None:
    config = PY + "max_batch_size: -1\ndynamic_batching { preferred_batch_size: [ 4 ] }\n"
    diagnostics = lint_config(tmp_path, config)
    assert found_at(diagnostics, "TC201")
    assert not found_at(diagnostics, "TC203")


def test_default_priority_level_unset(tmp_path: Path) -> None:
    config = PY + "dynamic_batching { priority_levels: 3 }\n"
    assert found_at(lint_config(tmp_path, config), "TC204") == [
        ("2:37", "default priority level must be in range [1, 3] for m")
    ]


def test_default_priority_level_too_high(tmp_path: Path) -> None:
    config = PY + "dynamic_batching { priority_levels: 3 default_priority_level: 5 }\n"
    assert found_at(lint_config(tmp_path, config), "TC204") == [
        ("2:63", "default priority level must be in range [1, 3] for m")
    ]


@pytest.mark.parametrize(
    "batching", ["priority_levels: 3 default_priority_level: 3", "default_priority_level: 7"]
)
def test_default_priority_level_passes(tmp_path: Path, batching: str) -> None:
    config = PY + f"dynamic_batching {{ {batching} }}\n"
    assert not found_at(lint_config(tmp_path, config), "TC204")


def test_priority_queue_policy_levels_out_of_range(tmp_path: Path) -> None:
    config = PY + (
        "dynamic_batching {\n"
        "  priority_levels: 3\n"
        "  default_priority_level: 1\n"
        "  priority_queue_policy { key: 5 value { } }\n"
        "  priority_queue_policy { key: 2 value { } }\n"
        "  priority_queue_policy { key: 0 value { } }\n"
        "}\n"
    )
    message = "priority queue policy must have priority level in range [1, 3] for m"
    assert found_at(lint_config(tmp_path, config), "TC205") == [
        ("5:32", message),
        ("7:32", message),
    ]


def test_priority_queue_policy_keys_unchecked_without_levels(tmp_path: Path) -> None:
    config = PY + "dynamic_batching { priority_queue_policy { key: 0 value { } } }\n"
    assert not found_at(lint_config(tmp_path, config), "TC205")


def test_preserve_ordering_with_priority_levels(tmp_path: Path) -> None:
    config = PY + (
        "dynamic_batching { preserve_ordering: true priority_levels: 2 default_priority_level: 1 }\n"
    )
    assert found_at(lint_config(tmp_path, config), "TC206") == [
        ("2:61", "Only one priority level is allowed when 'preserve_ordering' is true for m")
    ]


def test_preserve_ordering_with_one_priority_level_passes(tmp_path: Path) -> None:
    config = PY + (
        "dynamic_batching { preserve_ordering: true priority_levels: 1 default_priority_level: 1 }\n"
    )
    assert not found_at(lint_config(tmp_path, config), "TC206")


DELAY = "timeout_action: DELAY default_timeout_microseconds: 100"


def test_preserve_ordering_with_delay_policies(tmp_path: Path) -> None:
    config = PY + (
        "dynamic_batching {\n"
        "  preserve_ordering: true\n"
        f"  default_queue_policy {{ {DELAY} }}\n"
        f"  priority_queue_policy {{ key: 1 value {{ {DELAY} }} }}\n"
        "}\n"
    )
    message = (
        "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for m"
    )
    # the priority policies are checked even without priority_levels (`ValidateModelConfig`)
    assert found_at(lint_config(tmp_path, config), "TC207") == [
        ("4:42", message),
        ("5:58", message),
    ]


@pytest.mark.parametrize(
    "batching",
    [
        "preserve_ordering: true default_queue_policy { timeout_action: DELAY }",
        "preserve_ordering: true default_queue_policy { default_timeout_microseconds: 100 }",
        f"default_queue_policy {{ {DELAY} }}",
    ],
)
def test_delay_policy_passes(tmp_path: Path, batching: str) -> None:
    config = PY + f"dynamic_batching {{ {batching} }}\n"
    assert not found_at(lint_config(tmp_path, config), "TC207")


def test_no_config_file_has_no_batching_findings(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", None, files={"1/model.py": ""})
    assert not [d for d in lint_repo(tmp_path / "repo") if d.code.startswith("TC2")]


# -- Triton's own QA cases (strict mode, the platform line injected as its test does) ----------
QA_CASES = {
    "negative_max_batch_size",
    "default_priority_level0",
    "default_priority_level1",
    "priority_level0",
    "priority_level1",
    "preserve_ordering0",
    "preserve_ordering1",
    "preserve_ordering2",
}


def _variants(cases: set[str]) -> list[dict[str, str]]:
    if not (TRITON_QA / "VARIANTS.tsv").is_file():
        return []
    rows = read_tsv(TRITON_QA / "VARIANTS.tsv")
    return [r for r in rows if Path(r["path"]).name in cases]


VARIANTS = _variants(QA_CASES)


@parametrize_corpus(TRITON_QA, "row", VARIANTS, ids=lambda r: r["variant_id"])
def test_triton_qa_case(tmp_path: Path, row: dict[str, str]) -> None:
    source = require_corpus(TRITON_QA) / row["path"]
    model = tmp_path / "repo" / source.name
    (model / "1").mkdir(parents=True)
    shutil.copyfile(source / "config.pbtxt", model / "config.pbtxt")
    expected = row["expected_message"].replace("\\[", "[").replace("\\]", "]")
    diagnostics = lint_repo(tmp_path / "repo", triton_mode="strict")
    messages = [
        d.triton.message or "" for d in diagnostics if d.code.startswith("TC2") and d.triton
    ]
    assert any(expected in m for m in messages), (expected, messages)


def test_triton_qa_extreme_priority_levels_pass(tmp_path: Path) -> None:
    source = require_corpus(TRITON_QA) / "other_qa/server/L0_config_json/max_priority_level"
    model = tmp_path / "repo" / "max_priority_level"
    (model / "1").mkdir(parents=True)
    shutil.copyfile(source / "config.pbtxt", model / "config.pbtxt")
    assert not [d for d in lint_repo(tmp_path / "repo") if d.code.startswith("TC2")]


def test_qa_variants_found() -> None:
    if VARIANTS:
        assert len(VARIANTS) == 3 * len(QA_CASES)
