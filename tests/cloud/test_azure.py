"""`as://account/container/path` as Azure users configure it: AZURE_STORAGE_CONNECTION_STRING's
endpoint honoured (Azurite, sovereign clouds), AZURE_STORAGE_KEY used at that endpoint, and a
string for another account than the URL's refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from azuritekit import ACCOUNT, KEY, connection_string
from clikit import run
from cloudkit import BROKEN, Store, write_tree

from tritoncfg.cloud.azure import (
    CONNECTION_STRING_ENV,
    AzureSettingsError,
    azure_options,
    blob_endpoint,
    connection_settings,
)
from tritoncfg.cloud.client import CONNECT_TIMEOUT_ENV, READ_TIMEOUT_ENV, Timeouts, filesystem
from tritoncfg.cloud.url import parse_url

LIMIT = 120  # seconds for one CLI run


@pytest.mark.parametrize(
    ("text", "endpoint"),
    [
        (
            "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1/;AccountName=x",
            "http://127.0.0.1:10000/devstoreaccount1",
        ),
        (
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=k;"
            "EndpointSuffix=core.chinacloudapi.cn",
            "https://acct.blob.core.chinacloudapi.cn",
        ),
        ("AccountName=acct;AccountKey=k", "https://acct.blob.core.windows.net"),
        ("UseDevelopmentStorage=true", "http://127.0.0.1:10000/devstoreaccount1"),
        ("SharedAccessSignature=sv=1&sig=x", None),
    ],
)
def test_the_blob_endpoint_of_each_connection_string_form(text: str, endpoint: str | None) -> None:
    assert blob_endpoint(connection_settings(text)) == endpoint


def test_a_sovereign_cloud_endpoint_reaches_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Azure SDK's client (built by adlfs, nothing sent) points at the string's endpoint,
    not at *.blob.core.windows.net."""
    pytest.importorskip("adlfs")
    monkeypatch.setenv(
        CONNECTION_STRING_ENV,
        "DefaultEndpointsProtocol=https;AccountName=acct;EndpointSuffix=core.usgovcloudapi.net",
    )
    monkeypatch.setenv("AZURE_STORAGE_KEY", "a2V5")  # the key, added to the string
    url = parse_url("as://acct/models/repo")
    assert azure_options(url)["connection_string"].endswith(";AccountKey=a2V5")
    fs = filesystem(url, Timeouts())
    assert fs.service_client.url.startswith("https://acct.blob.core.usgovcloudapi.net")


def test_without_a_connection_string_triton_s_route(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONNECTION_STRING_ENV, raising=False)
    monkeypatch.setenv("AZURE_STORAGE_KEY", "a2V5")
    options = azure_options(parse_url("as://acct/models/repo"))
    assert options == {"account_name": "acct", "account_key": "a2V5"}


@pytest.mark.parametrize(
    "text",
    [
        f"DefaultEndpointsProtocol=http;AccountName=other;AccountKey={KEY}",
        "BlobEndpoint=https://other.blob.core.windows.net/;SharedAccessSignature=sv=1&sig=x",
        "BlobEndpoint=http://127.0.0.1:10000/other;SharedAccessSignature=sv=1&sig=x",
    ],
)
def test_another_account_than_the_url_s_is_refused(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONNECTION_STRING_ENV, text)
    url = "as://acct/models/repo"

    result = run("lint", url, timeout=LIMIT)

    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"tritoncfg: error: {url}: the URL names the storage account 'acct', but "
        f"{CONNECTION_STRING_ENV} is for the account 'other' ("
    )
    assert line.endswith("); use the string's account in the URL, or unset the variable")
    assert KEY not in result.stderr and "sig=x" not in result.stderr  # never the secret


def test_a_malformed_connection_string_is_one_line_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CONNECTION_STRING_ENV, "AccountName=acct;s3cr3t-no-equals")
    result = run("lint", "as://acct/models/repo", timeout=LIMIT)
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"tritoncfg: error: as://acct/models/repo: {CONNECTION_STRING_ENV} is malformed"
    )
    assert "s3cr3t" not in result.stderr
    with pytest.raises(AzureSettingsError):
        connection_settings("=value")


def test_the_key_route_reaches_azurite_through_the_string_s_endpoint(
    azure_store: Store, azurite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AZURE_STORAGE_KEY (Triton's variable) with a connection string that names only the
    endpoint: the key is used there, not at devstoreaccount1.blob.core.windows.net."""
    azure_store.put(write_tree(tmp_path / "repo", BROKEN), "keyed")
    monkeypatch.setenv(CONNECTION_STRING_ENV, f"BlobEndpoint={azurite}")
    monkeypatch.setenv("AZURE_STORAGE_KEY", KEY)
    url = f"as://{ACCOUNT}/models/keyed"

    result = run("lint", url, timeout=LIMIT)

    assert result.returncode == 1, result.stderr
    assert f"{url}/bad_batching/config.pbtxt:3:" in result.stdout
    assert result.stderr == ""


def test_a_wrong_key_is_one_line(
    azure_store: Store, azurite: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = KEY.replace("Eby8", "AAAA")
    monkeypatch.setenv(CONNECTION_STRING_ENV, connection_string(azurite).replace(KEY, wrong))
    url = f"as://{ACCOUNT}/models/any"

    result = run("lint", url, timeout=LIMIT)

    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"tritoncfg: error: {url}: ")
    assert wrong not in result.stderr


def test_a_frozen_endpoint_ends_lint_with_the_url(
    frozen_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two attempts bounded by the timeouts, not the SDK's four with back-offs of 15 s and more."""
    pytest.importorskip("adlfs")
    monkeypatch.setenv(CONNECTION_STRING_ENV, connection_string(f"http://{frozen_endpoint}/acct"))
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "1")
    monkeypatch.setenv(READ_TIMEOUT_ENV, "1")
    url = "as://devstoreaccount1/models/repo"
    started = time.monotonic()

    result = run("lint", url, timeout=LIMIT)

    # 11 s here (13 s under four busy loops); the SDK's own retries wait 15 + 18 + 24 s
    assert time.monotonic() - started < 50, result.stderr
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"tritoncfg: error: {url}: cannot list the repository: no answer ")
