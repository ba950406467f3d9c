"""Real local servers of the three clouds' APIs on 127.0.0.1, for the cloud repository tests:
moto in server mode (S3), gcp-storage-emulator (GCS) and Azurite (Azure Blob, from npm; see
tests/azuritekit.py). Each `*_store` fixture gives a `Store`: an empty bucket on its server, the
environment set the standard way for its cloud, and how to put a local tree into it."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from azuritekit import ACCOUNT, azurite_blob, connection_string
from cloudkit import Store, free_port, upload_fs, wait_listening
from s3kit import BUCKET, upload

START_TIMEOUT = 30.0  # seconds for a server to listen


@pytest.fixture
def frozen_endpoint() -> Iterator[str]:
    """`127.0.0.1:<port>`: a TCP server that accepts every connection and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:  # closed: the test is over
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        thread.join(timeout=5)
        for connection in held:
            connection.close()


@pytest.fixture(scope="module")
def s3_server() -> Iterator[str]:
    """`http://127.0.0.1:<port>`, an S3 endpoint that lives for the module."""
    pytest.importorskip("s3fs", reason="s3fs (dev extra) is needed to read s3:// repositories")
    moto_server = pytest.importorskip("moto.server", reason="moto[server] (dev extra) is needed")
    # port 0: the server binds a free port itself (a port picked before could be taken by then,
    # and `start` would wait forever for a server that failed to bind)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    _, port = server.get_host_and_port()
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


@pytest.fixture
def s3_store(s3: Any, s3_server: str) -> Store:
    where = s3_server.removeprefix("http://")  # Triton's endpoint form: s3://host:port/bucket
    return Store(
        url=lambda prefix: f"s3://{where}/{BUCKET}/{prefix}",
        missing_bucket_url=f"s3://{where}/no-such-bucket/repo",
        put=lambda local, prefix: upload(s3, local, prefix),
        kind="bucket",
    )


@pytest.fixture(scope="session")
def gcs_server() -> Iterator[str]:
    """`http://127.0.0.1:<port>`: gcp-storage-emulator, in memory, for the session."""
    pytest.importorskip("gcsfs", reason="gcsfs (cloud extra) is needed to read gs:// repositories")
    emulator = pytest.importorskip(
        "gcp_storage_emulator.server", reason="gcp-storage-emulator (dev extra) is needed"
    )
    port = free_port()
    server = emulator.create_server("127.0.0.1", port, in_memory=True)
    server.start()
    try:
        wait_listening(port, START_TIMEOUT)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def gcs_store(gcs_server: str, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The emulator named the standard way (STORAGE_EMULATOR_HOST), no Google credentials."""
    from gcsfs.core import GCSFileSystem  # not the class that asks Google's control plane

    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs_server)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    fs = GCSFileSystem(skip_instance_cache=True, token="anon")
    if not fs.exists(BUCKET):
        fs.mkdir(BUCKET)
    return Store(
        url=lambda prefix: f"gs://{BUCKET}/{prefix}",
        missing_bucket_url="gs://no-such-bucket/repo",
        put=lambda local, prefix: upload_fs(fs, local, f"{BUCKET}/{prefix}"),
        kind="bucket",
    )


@pytest.fixture(scope="session")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Azurite's blob endpoint, `http://127.0.0.1:<port>/devstoreaccount1`, for the session."""
    pytest.importorskip("adlfs", reason="adlfs (cloud extra) is needed to read as:// repositories")
    with azurite_blob(tmp_path_factory.mktemp("azurite")) as endpoint:
        yield endpoint


@pytest.fixture
def azure_store(azurite: str, monkeypatch: pytest.MonkeyPatch) -> Store:
    """Azurite named the standard way: its connection string in AZURE_STORAGE_CONNECTION_STRING,
    and the URL in Triton's form, `as://devstoreaccount1/container/path`."""
    import fsspec

    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection_string(azurite))
    monkeypatch.delenv("AZURE_STORAGE_KEY", raising=False)
    fs = fsspec.filesystem(
        "abfs", skip_instance_cache=True, connection_string=connection_string(azurite)
    )
    if not fs.exists(BUCKET):
        fs.mkdir(BUCKET)
    return Store(
        url=lambda prefix: f"as://{ACCOUNT}/{BUCKET}/{prefix}",
        missing_bucket_url=f"as://{ACCOUNT}/no-such-container/repo",
        put=lambda local, prefix: upload_fs(fs, local, f"{BUCKET}/{prefix}"),
        kind="container",
    )


@pytest.fixture(params=["s3", "gcs", "azure"])
def store(request: pytest.FixtureRequest) -> Store:
    """Each cloud's store in turn: the same test against the three servers."""
    found: Store = request.getfixturevalue(f"{request.param}_store")
    return found
