"""The fsspec filesystem of each cloud gets the timeouts (S3's and Azure's are exercised against a
frozen endpoint in test_s3_hardening.py and test_azure.py)."""

from __future__ import annotations

import pytest

from tritoncfg.cloud.client import Timeouts, backend_options, filesystem
from tritoncfg.cloud.url import parse_url

LIMITS = Timeouts(connect=2.5, read=7.0)


def test_s3_gets_timeouts_and_two_attempts() -> None:
    pytest.importorskip("s3fs")
    url = parse_url("s3://minio.local:9000/b/repo")
    options = backend_options(url, LIMITS)
    assert options["config_kwargs"] == {
        "connect_timeout": 2.5,
        "read_timeout": 7.0,
        "retries": {"total_max_attempts": 2, "mode": "standard"},
    }
    assert options["client_kwargs"] == {"endpoint_url": "http://minio.local:9000"}
    fs = filesystem(url, LIMITS)
    assert fs.retries == 1  # s3fs's own retries off: botocore's two attempts are all
    assert fs.config_kwargs["read_timeout"] == 7.0


def test_gcs_gets_socket_timeouts() -> None:
    aiohttp = pytest.importorskip("aiohttp")
    timeout = backend_options(parse_url("gs://bucket/repo"), LIMITS)["requests_timeout"]
    assert timeout == aiohttp.ClientTimeout(sock_connect=2.5, sock_read=7.0)


def test_azure_gets_timeouts_and_the_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_STORAGE_KEY", "k")
    monkeypatch.delenv("AZURE_STORAGE_CONNECTION_STRING", raising=False)
    options = backend_options(parse_url("as://acct/container/repo"), LIMITS)
    assert options == {
        "connection_timeout": 2.5,
        "read_timeout": 7.0,
        "account_name": "acct",
        "account_key": "k",
    }
