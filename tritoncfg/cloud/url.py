"""Triton's repository URL forms, parsed as its filesystem implementations parse them.

* `s3://bucket/path`; `s3://host:port/bucket/path` for an S3-compatible endpoint (HTTP), and
  `s3://http://host:port/...` or `s3://https://host:port/...`: the regex of Triton's
  `S3FileSystem::ParsePath` (core `src/filesystem/implementations/s3.h`) needs the port in
  the endpoint forms, and a host of `[0-9a-zA-Z-.]+`.
* `gs://bucket/path` (core `gcs.h`).
* `as://account/container/path` (core `as.h`): the storage account, then the container.

None of them takes credentials in the URL (`s3://KEY:SECRET@...` names no bucket Triton can
reach), so a URL with a user part is refused, and every message that shows a URL shows it through
`redact`.
"""

from __future__ import annotations

import re

from tritoncfg.record import record

SCHEMES = ("s3://", "gs://", "as://")

# S3FileSystem's endpoint form (its `s3_regex_`, matched in full after repeated slashes are
# collapsed): optional http(s)://, host, mandatory :port, a lower-case bucket, then the path
_S3_ENDPOINT = re.compile(
    r"s3://(?:(?P<proto>https?)://)?(?P<host>[0-9a-zA-Z\-.]+):(?P<port>[0-9]+)/"
    r"(?P<rest>[0-9a-z.\-]+(?:/[0-9a-zA-Z.\-_]+)*)/?"
)


# a URL's user part (RFC 3986 userinfo), after one or more schemes (`s3://https://K:S@host`; one
# slash where the URL went through a Path, `s3:/K:S@b`):
# a `user:secret` pair up to the last '@' (a secret may hold an unescaped '/', as AWS secret keys
# do, or an '@'), or a token
_USERINFO = re.compile(r"(?P<schemes>(?:[A-Za-z][A-Za-z0-9+.\-]*:/+)+)(?:[^\s/@:]*:\S*|[^\s/@:]+)@")
REDACTED = "***"
_CREDENTIALS = {  # where each cloud's credentials go (docs/cloud.md, Credentials)
    "s3://": "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    "gs://": "GOOGLE_APPLICATION_CREDENTIALS",
    "as://": "AZURE_STORAGE_KEY or AZURE_STORAGE_CONNECTION_STRING",
}


def redact(text: str) -> str:
    """`text` with the user part of every URL in it (credentials) written as `***`."""
    if "@" not in text:
        return text
    return _USERINFO.sub(lambda m: f"{m['schemes']}{REDACTED}@", text)


class CloudUrlError(ValueError):
    """A cloud path that cannot name a repository (no bucket, an endpoint without a port)."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


@record(frozen=True)
class CloudUrl:
    """One repository location. `url` is the text the user gave (findings are named under it);
    `protocol`/`bucket`/`prefix` address the objects through fsspec."""

    url: str
    protocol: str  # fsspec's: "s3", "gcs", "abfs"
    bucket: str  # the S3/GCS bucket or the Azure container
    prefix: str  # the key prefix of the repository, no leading or trailing '/'
    endpoint: str | None = None  # http(s)://host:port of an S3-compatible server
    account: str | None = None  # the Azure storage account

    @property
    def root(self) -> str:
        """The repository as fsspec names it: `bucket/prefix`."""
        return f"{self.bucket}/{self.prefix}".rstrip("/")

    @property
    def shown(self) -> str:
        """The URL as messages and findings show it: no credentials, no trailing '/'."""
        return redact(self.url).rstrip("/")

    def object_url(self, relative: str) -> str:
        """The URL of the object at `relative` (a '/'-separated path under the repository)."""
        return f"{self.shown}/{relative}"


def is_cloud(path: object) -> bool:
    return isinstance(path, str) and path.startswith(SCHEMES)


def _split(rest: str, url: str) -> tuple[str, str]:
    bucket, _, prefix = rest.strip("/").partition("/")
    if not bucket:
        raise CloudUrlError(f"{url}: no bucket or container in the repository URL")
    return bucket, "/".join(p for p in prefix.split("/") if p)


def parse_url(url: str) -> CloudUrl:
    """Raises CloudUrlError for a URL Triton would not accept as a repository."""
    if redact(url) != url:
        raise CloudUrlError(
            f"{redact(url)}: credentials in the URL are not read (nor does Triton read them); "
            f"remove them and give them the standard way, such as {_CREDENTIALS[url[:5]]}"
        )
    if url.startswith("s3://"):
        endpoint = _S3_ENDPOINT.fullmatch(re.sub(r"(?<!:)/{2,}", "/", url))
        if endpoint is not None:
            scheme = endpoint["proto"] or "http"  # Triton's S3 endpoint form is HTTP by default
            bucket, prefix = _split(endpoint["rest"], url)
            where = f"{scheme}://{endpoint['host']}:{endpoint['port']}"
            return CloudUrl(url, "s3", bucket, prefix, endpoint=where)
        if re.match(r"s3://(https?://|[^/]*:)", url):
            raise CloudUrlError(
                f"{url}: an S3 endpoint is written 's3://host:port/bucket/path', with the "
                "port, a lower-case bucket, and path segments of letters, digits, '.', '-' "
                "and '_', as Triton's S3 filesystem requires"
            )
        return CloudUrl(url, "s3", *_split(url[len("s3://") :], url))
    if url.startswith("gs://"):
        return CloudUrl(url, "gcs", *_split(url[len("gs://") :], url))
    if url.startswith("as://"):
        account, _, rest = url[len("as://") :].partition("/")
        if not account:
            raise CloudUrlError(f"{url}: no storage account in 'as://account/container/path'")
        container, prefix = _split(rest, url)
        return CloudUrl(url, "abfs", container, prefix, account=account)
    raise CloudUrlError(f"{url}: not a cloud repository URL ({', '.join(SCHEMES)})")
