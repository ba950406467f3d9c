"""`tritoncfg diff --server` against the session's real Triton, over HTTP and over gRPC (run in
the environment that has tritonclient[http,grpc], as extra tritoncfg[server] gives a user)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import SharedServer
from lintkit import make_model

from tritoncfg.triton.ports import LOOPBACK

ECHO = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
CONFIG = (
    'name: "m1"\nbackend: "python"\nmax_batch_size: 8\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    "instance_group [ { count: 1 kind: KIND_CPU } ]\ndynamic_batching { }\n"
)


@pytest.fixture
def served(triton_server: SharedServer) -> Iterator[SharedServer]:
    triton_server.clear()
    make_model(triton_server.repository, "m1", CONFIG, files={"1/model.py": ECHO})
    make_model(triton_server.repository, "m2", 'backend: "python"\n', files={"1/model.py": ECHO})
    triton_server.server.http.load("m1")
    yield triton_server
    triton_server.server.http.unload("m1")


def urls(shared: SharedServer) -> list[str]:
    server = shared.server
    return [f"http://{LOOPBACK}:{server.http_port}", f"grpc://{LOOPBACK}:{server.grpc_port}"]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_auto_complete_is_labelled_and_not_a_difference(
    served: SharedServer, protocol: str
) -> None:
    url = next(u for u in urls(served) if u.startswith(protocol))
    done = served.env.run_cli("diff", "--server", url, str(served.repository))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"model m1 (repository → {url})" in out
    assert "version_policy: (absent) → { latest { num_versions: 1 } }  [auto-complete]" in out
    assert "dynamic_batching.preferred_batch_size: [ ] → [ 8 ]  [auto-complete]" in out
    assert 'instance_group[0].name: (absent) → "m1_0"  [auto-complete]' in out
    assert "model m2: not loaded on the server" in out


def test_http_and_grpc_give_the_same_diff(served: SharedServer) -> None:
    http, grpc = (
        json.loads(
            served.env.run_cli(
                "diff", "--server", url, str(served.repository), "--format", "json"
            ).stdout
        )
        for url in urls(served)
    )
    assert http["models"] == grpc["models"]
    m1 = next(m for m in http["models"] if m["model"] == "m1")
    assert {c["origin"] for c in m1["changes"]} == {"auto-complete"}


def test_a_runtime_change_is_shown_as_such(served: SharedServer) -> None:
    changed = served.server.http.model_config("m1")
    changed["instance_group"][0]["count"] = 2
    served.server.http.load("m1", config=changed)  # Triton's load with a config override
    for url in urls(served):
        done = served.env.run_cli("diff", "--server", url, str(served.repository))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "instance_group[0].count: 1 → 2  [backend or runtime]" in done.stdout
