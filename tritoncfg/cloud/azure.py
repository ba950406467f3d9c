"""Which Azure Blob service an `as://account/container/path` URL is read from, and with what key.

Triton's own filesystem (core `src/filesystem/implementations/as.h`) takes the account from the
URL and its key from `AZURE_STORAGE_KEY`, and always talks to `https://<account>.blob.core.
windows.net`. tritoncfg does the same unless `AZURE_STORAGE_CONNECTION_STRING` is set: then the
string's Blob endpoint is used (`BlobEndpoint=`, or `DefaultEndpointsProtocol` + `AccountName` +
`EndpointSuffix`, or `UseDevelopmentStorage=true`), which is how Azurite and the sovereign clouds
are reached. A string naming another account than the URL is refused: the URL would be read from
an account it does not name. No message quotes the string: it holds the account key.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from tritoncfg.cloud.url import CloudUrl

CONNECTION_STRING_ENV = "AZURE_STORAGE_CONNECTION_STRING"
KEY_ENV = "AZURE_STORAGE_KEY"  # Triton's variable for the account key
DEVELOPMENT_ACCOUNT = "devstoreaccount1"  # Azurite's (and the old emulator's) fixed account
DEVELOPMENT_ENDPOINT = f"http://127.0.0.1:10000/{DEVELOPMENT_ACCOUNT}"
_CREDENTIAL_KEYS = ("ACCOUNTKEY", "SHAREDACCESSSIGNATURE")


class AzureSettingsError(ValueError):
    """The connection string cannot be used for the URL (malformed, or another account)."""


def connection_settings(text: str) -> dict[str, str]:
    """`Key=Value;...` as a dict with upper-case keys (the keys are case-insensitive)."""
    settings: dict[str, str] = {}
    for part in text.strip().rstrip(";").split(";"):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise AzureSettingsError(
                f"{CONNECTION_STRING_ENV} is malformed: expected 'Key=Value' pairs separated by "
                "';', such as 'DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...'"
            )
        settings[key.strip().upper()] = value.strip()
    return settings


def blob_endpoint(settings: dict[str, str]) -> str | None:
    """The Blob service URL the string names, as the Azure SDK builds it."""
    if settings.get("USEDEVELOPMENTSTORAGE", "").lower() == "true":
        return DEVELOPMENT_ENDPOINT
    if settings.get("BLOBENDPOINT"):
        return settings["BLOBENDPOINT"].rstrip("/")
    if "ACCOUNTNAME" not in settings:
        return None
    protocol = settings.get("DEFAULTENDPOINTSPROTOCOL", "https")
    suffix = settings.get("ENDPOINTSUFFIX", "core.windows.net")
    return f"{protocol}://{settings['ACCOUNTNAME']}.blob.{suffix}"


def account_of(settings: dict[str, str], endpoint: str | None) -> str | None:
    """The storage account the string is for: `AccountName`, else read off the endpoint
    (`https://<account>.blob.<suffix>`, or Azurite's path style `http://host:port/<account>`)."""
    if settings.get("USEDEVELOPMENTSTORAGE", "").lower() == "true":
        return DEVELOPMENT_ACCOUNT
    if settings.get("ACCOUNTNAME"):
        return settings["ACCOUNTNAME"]
    if endpoint is None:
        return None
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if ".blob." in host:
        return host.split(".", 1)[0]
    path = parts.path.strip("/")
    return path.split("/", 1)[0] if path else None


def azure_options(url: CloudUrl) -> dict[str, Any]:
    """adlfs's keyword arguments for `url`'s account, from the environment.

    Raises AzureSettingsError for a malformed connection string or one for another account."""
    key = os.environ.get(KEY_ENV, "")
    text = os.environ.get(CONNECTION_STRING_ENV, "").strip()
    if not text:  # Triton's route: the URL's account on the public cloud, AZURE_STORAGE_KEY
        return {"account_name": url.account} | ({"account_key": key} if key else {})
    settings = connection_settings(text)
    endpoint = blob_endpoint(settings)
    if endpoint is None:
        raise AzureSettingsError(
            f"{CONNECTION_STRING_ENV} names no Blob endpoint: give BlobEndpoint=, or AccountName= "
            "(with DefaultEndpointsProtocol= and EndpointSuffix= outside the public cloud)"
        )
    account = account_of(settings, endpoint)
    if account is not None and url.account is not None and account.lower() != url.account.lower():
        raise AzureSettingsError(
            f"the URL names the storage account '{url.account}', but "
            f"{CONNECTION_STRING_ENV} is for the account '{account}' ({endpoint}); "
            "use the string's account in the URL, or unset the variable"
        )
    if key and not any(settings.get(name) for name in _CREDENTIAL_KEYS):
        text = f"{text.rstrip(';')};AccountKey={key}"  # the string names the endpoint, not the key
        if "ACCOUNTNAME" not in settings and url.account is not None:
            text += f";AccountName={url.account}"
    return {"connection_string": text}


def endpoint_shown(url: CloudUrl) -> str:
    """Where `url` is read from, for messages: the connection string's endpoint or the public
    cloud's."""
    text = os.environ.get(CONNECTION_STRING_ENV, "").strip()
    if text:
        try:
            endpoint = blob_endpoint(connection_settings(text))
        except AzureSettingsError:
            endpoint = None
        if endpoint is not None:
            return endpoint
    return f"https://{url.account}.blob.core.windows.net"


def bound_client(fs: Any, connect: float, read: float) -> None:
    """Give adlfs's filesystem `fs` a Blob service client like its own (the same endpoint and
    credential, chosen as adlfs chose them) that waits at most `connect`/`read` seconds and
    tries a request twice: the SDK's default retries (15 s, 18 s, 24 s back-offs) held a lint
    on an unreachable endpoint for minutes."""
    from azure.storage.blob.aio import BlobServiceClient, ExponentialRetry  # the async ones

    options: dict[str, Any] = {
        "connection_timeout": connect,
        "read_timeout": read,
        "retry_policy": ExponentialRetry(
            initial_backoff=1, increment_base=2, retry_total=1, random_jitter_range=1
        ),
    }
    if fs.connection_string is not None:
        client = BlobServiceClient.from_connection_string(fs.connection_string, **options)
    else:
        url, credential = fs.account_url, fs.credential or fs.account_key
        if credential is None and fs.sas_token is not None:
            url += fs.sas_token  # adlfs made it start with '?'
        client = BlobServiceClient(url, credential=credential, **options)
    fs.service_client = client  # adlfs's own is not opened until a request: nothing to close
