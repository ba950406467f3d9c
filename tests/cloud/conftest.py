"""A real S3 API server (moto in server mode) on 127.0.0.1, for the cloud repository tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from s3kit import BUCKET

pytest.importorskip("s3fs", reason="s3fs (dev extra) is needed to read s3:// repositories")
moto_server = pytest.importorskip("moto.server", reason="moto[server] (dev extra) is needed")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def s3_server() -> Iterator[str]:
    """`http://127.0.0.1:<port>`, an S3 endpoint that lives for the module."""
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3(s3_server: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A boto3 S3 client on the server, with the bucket created; credentials from the
    environment, the standard way, as tritoncfg reads them too."""
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    client = boto3.client("s3", endpoint_url=s3_server, region_name="us-east-1")
    if BUCKET not in {b["Name"] for b in client.list_buckets()["Buckets"]}:
        client.create_bucket(Bucket=BUCKET)
    return client
