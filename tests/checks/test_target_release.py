"""TC012 and `--triton-version`: fields and values an older Triton release does not know."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import run
from lintkit import lint_config

from tritoncfg.schema.releases import UnknownRelease, find_release, release_table

METRICS = (
    'name: "m"\nbackend: "python"\n'
    'model_metrics { metric_control [ { metric_identifier { family: "x" } } ] }\n'
)
BF16 = (
    'name: "m"\nbackend: "python"\n'
    'input [ { name: "x" data_type: TYPE_BF16 dims: [ 1 ] is_non_linear_format_io: false } ]\n'
)


def _tc012(tmp_path: Path, config: str, version: str | None) -> list[tuple[str, str | None]]:
    found = lint_config(tmp_path, config, triton_version=version)
    return [
        (str(d.span), d.triton.message if d.triton else None) for d in found if d.code == "TC012"
    ]


def test_release_table_maps_versions_and_knows_when_fields_came() -> None:
    assert str(find_release("2.51")) == "Triton 2.51 (24.10)"
    assert find_release("24.10") == find_release("r24.10") == find_release("2.51.0")
    table = release_table()
    assert table.first_release["ModelConfig.model_metrics"] == "24.11"
    assert table.first_release["DataType.TYPE_BF16"] == "22.05"
    assert "ModelConfig.model_metrics" in table.unknown_to(find_release("2.51"))
    assert "ModelConfig.model_metrics" not in table.unknown_to(find_release("2.52"))
    with pytest.raises(UnknownRelease, match=r"give a version from 2\.10"):
        find_release("1.9")


def test_model_metrics_is_unknown_to_2_51_and_reported_once(tmp_path: Path) -> None:
    assert _tc012(tmp_path / "a", METRICS, "2.51") == [
        ("3:1", 'Message type "inference.ModelConfig" has no field named "model_metrics".')
    ]
    assert _tc012(tmp_path / "b", METRICS, "2.52") == []
    # without a target release the rule is silent (the config parsed: TC012 ran and found none)
    found = lint_config(tmp_path / "c", METRICS)
    assert not [d for d in found if d.code == "TC012"]
    assert all(d.code not in ("TC001", "TC002") for d in found)


def test_enum_values_and_fields_written_with_default_values(tmp_path: Path) -> None:
    assert _tc012(tmp_path, BF16, "2.20") == [
        ("3:32", 'Unknown enumeration value of "TYPE_BF16" for field "data_type".'),
        (
            "3:54",
            'Message type "inference.ModelInput" has no field named "is_non_linear_format_io".',
        ),
    ]


def test_cli_option_setting_and_unknown_release(tmp_path: Path) -> None:
    repo = tmp_path / "models"
    (repo / "m" / "1").mkdir(parents=True)
    (repo / "m" / "1" / "model.py").write_text("# never executed\n")
    (repo / "m" / "config.pbtxt").write_text(METRICS)
    flagged = run("lint", str(repo), "--triton-version", "2.51")
    assert flagged.returncode == 1 and "TC012" in flagged.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.tritoncfg]\ntriton-version = "24.10"\n')
    configured = run("lint", str(repo), cwd=tmp_path)
    assert configured.returncode == 1 and "Triton 2.51 (24.10)" in configured.stdout
    wrong = run("lint", str(repo), "--triton-version", "1.9")
    assert wrong.returncode == 2 and "unknown Triton release '1.9'" in wrong.stderr
