"""`diff`'s building blocks without a server: reading configs, labelling changes, endpoints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.api import load
from tritoncfg.triton.compare import (
    AUTO_COMPLETE,
    NOT_AUTO_COMPLETE,
    ConfigFileError,
    diff_model,
    label_changes,
    read_config_file,
)
from tritoncfg.triton.completion import expected_config
from tritoncfg.triton.remote import Endpoint, RemoteError, config_from_json
from tritoncfg.triton.semantic_diff import Change

PBTXT = 'name: "m"\nbackend: "python"\nmax_batch_size: 8\ninstance_group [ { count: 1 kind: KIND_CPU } ]\n'


def test_read_pbtxt_and_json(tmp_path: Path) -> None:
    (tmp_path / "a.pbtxt").write_text(PBTXT)
    served = {
        "name": "m",
        "backend": "python",
        "max_batch_size": 8,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4, -1]}],
    }
    (tmp_path / "b.json").write_text(json.dumps(served))
    assert read_config_file(tmp_path / "a.pbtxt").max_batch_size == 8
    assert list(read_config_file(tmp_path / "b.json").input[0].dims) == [4, -1]
    # camelCase and int64-as-string, as protobuf's own JSON writes it
    (tmp_path / "c.json").write_text('{"maxBatchSize": 4, "input": [{"name": "x", "dims": ["2"]}]}')
    assert read_config_file(tmp_path / "c.json").max_batch_size == 4


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("bad.pbtxt", "max_batch_size 8\n", r"bad.pbtxt:1:16: "),
        ("bad.json", '{"max_batch_size": ', r"bad.json:1:\d+: "),
        ("list.json", "[1]", "a JSON config is an object"),
        ("unknown.json", '{"bogus": 1}', "does not fit tritoncfg's schema"),
    ],
)
def test_unreadable_configs_say_where(tmp_path: Path, name: str, text: str, error: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigFileError, match=error):
        read_config_file(tmp_path / name)


def test_config_from_json_refuses_unknown_fields() -> None:
    with pytest.raises(RemoteError, match="model_metricz"):
        config_from_json({"model_metricz": {}})


def test_endpoints() -> None:
    assert Endpoint.parse("http://127.0.0.1:8000") == Endpoint("http", "127.0.0.1:8000")
    assert Endpoint.parse("grpc://h:8001") == Endpoint("grpc", "h:8001")
    assert Endpoint.parse("h:8000") == Endpoint("http", "h:8000")
    assert Endpoint.parse("https://h:443").ssl
    with pytest.raises(RemoteError, match="expected http://HOST:PORT"):
        Endpoint.parse("ftp://h:1")


def test_labels_follow_what_completion_explains() -> None:
    changes = [
        Change("version_policy", None, "{ latest { num_versions: 1 } }"),
        Change("instance_group[0].count", "1", "2"),
        Change("instance_group[0].kind", None, "KIND_CPU"),
    ]
    remaining = [
        Change("instance_group[0].count", "1", "2"),
        Change("instance_group[0].kind", None, "KIND_CPU"),
    ]
    labels = label_changes(changes, remaining, unknown={"instance_group[0].kind"})
    assert labels == {
        "version_policy": AUTO_COMPLETE,
        "instance_group[0].count": NOT_AUTO_COMPLETE,
        "instance_group[0].kind": AUTO_COMPLETE,  # decided by the host, which is unknown
    }


def test_diff_model_against_what_triton_would_serve(tmp_path: Path) -> None:
    make_model(tmp_path, "m", PBTXT, files={"1/model.py": ""})
    (model,) = load(tmp_path).models
    served = expected_config(model, ()).config
    served.instance_group[0].count = 3  # changed at runtime
    found = diff_model(model, served, ())
    assert found.labels["instance_group[0].count"] == NOT_AUTO_COMPLETE
    assert found.labels["version_policy"] == AUTO_COMPLETE
    assert [str(c) for c in found.unexplained] == ["instance_group[0].count: 1 → 3"]


def test_expected_config_normalizes_instance_groups(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'backend: "python"\n', files={"1/model.py": ""})
    (model,) = load(tmp_path).models
    group = expected_config(model, ()).config.instance_group[0]
    assert (group.name, group.count, group.kind) == ("m", 1, group.KIND_CPU)
    unknown = expected_config(model, None)
    assert unknown.unknown == {"instance_group[0].kind", "instance_group[0].gpus"}


def test_cli_diff_of_two_files(tmp_path: Path) -> None:
    (tmp_path / "a.pbtxt").write_text(PBTXT)
    (tmp_path / "b.pbtxt").write_text(PBTXT.replace("count: 1", "count: 2"))
    done = run("diff", "a.pbtxt", "b.pbtxt", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stdout == "a.pbtxt → b.pbtxt\n  instance_group[0].count: 1 → 2\n"
    same = run("diff", "a.pbtxt", "a.pbtxt", "--format", "json", cwd=tmp_path)
    assert same.returncode == 0 and json.loads(same.stdout)["changes"] == []


def test_cli_diff_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "a.pbtxt").write_text(PBTXT)
    (tmp_path / "bad.pbtxt").write_text("max_batch_size 8\n")
    for args, message in [
        (("diff", "a.pbtxt"), "give two config files"),
        (("diff", "a.pbtxt", "bad.pbtxt"), "bad.pbtxt:1:16"),
        (("diff", "a.pbtxt", "absent.pbtxt"), "no such file"),
        (("diff", "--server", "http://127.0.0.1:1", ".", "a.pbtxt"), "give one path"),
    ]:
        done = run(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert message in done.stderr and "Traceback" not in done.stderr


def test_cli_diff_server_unreachable(tmp_path: Path) -> None:
    make_model(tmp_path / "repo", "m", PBTXT, files={"1/model.py": ""})
    done = run("diff", "--server", "grpc://127.0.0.1:1", "repo", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr and "tritoncfg: error:" in done.stderr
