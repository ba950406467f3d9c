"""`tools/gen_release_fields.py` on a real git repository with two release branches, and the
committed table's agreement with the shipped schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OLD = 'syntax = "proto3";\npackage inference;\nenum DataType { TYPE_INVALID = 0; TYPE_FP32 = 11; }\nmessage ModelConfig { string name = 1; }\n'
NEW = OLD.replace("TYPE_FP32 = 11; }", "TYPE_FP32 = 11; TYPE_BF16 = 14; }").replace(
    "string name = 1; }",
    "string name = 1; ModelMetrics model_metrics = 2; }\n"
    "message ModelMetrics { message Control { string family = 1; } repeated Control c = 1; }",
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _branch(repo: Path, name: str, proto: str) -> None:
    _git(repo, "checkout", "-q", "-B", name)
    (repo / "protobuf").mkdir(exist_ok=True)
    (repo / "protobuf" / "model_config.proto").write_text(proto)
    _git(repo, "add", "-A")
    _git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        name,
    )


def test_tool_records_the_first_release_of_each_name(tmp_path: Path) -> None:
    repo = tmp_path / "common"
    repo.mkdir()
    _git(repo, "init", "-q")
    _branch(repo, "r24.10", OLD)
    _branch(repo, "r24.11", NEW)
    _branch(repo, "feature-x", NEW)  # not a release branch
    out = tmp_path / "releases.json"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "gen_release_fields.py"),
            "--git-dir",
            str(repo / ".git"),
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    table = json.loads(out.read_text())
    assert table["releases"] == {"24.10": "2.51", "24.11": "2.52"}
    assert table["first_release"] == {
        "DataType.TYPE_BF16": "24.11",
        "ModelConfig.model_metrics": "24.11",
        "ModelMetrics.Control.family": "24.11",
        "ModelMetrics.c": "24.11",
    }


def test_committed_table_names_only_what_the_shipped_schema_has() -> None:
    from tritoncfg.checks.parse.target_release import PACKAGE
    from tritoncfg.schema import model_config_pb2

    table = json.loads((ROOT / "tritoncfg" / "schema" / "releases.json").read_text())
    pool = model_config_pb2.DESCRIPTOR.pool
    for name in table["first_release"]:
        owner, _, member = name.rpartition(".")
        try:
            message = pool.FindMessageTypeByName(PACKAGE + owner)
        except KeyError:
            enum = pool.FindEnumTypeByName(PACKAGE + owner)
            assert member in enum.values_by_name, name
        else:
            assert member in message.fields_by_name, name
    assert "ModelConfig.model_metrics" in table["first_release"]
