"""Triton's repository URL forms (core src/filesystem/implementations/s3.h, gcs.h, as.h), and
URLs shown without their credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritoncfg.cloud import CloudUrl, CloudUrlError, is_cloud, parse_url
from tritoncfg.cloud.stage import Staged
from tritoncfg.cloud.url import redact


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("s3://bucket/path/to/repo", CloudUrl("s3://bucket/path/to/repo", "s3", "bucket", "path/to/repo")),
        ("s3://bucket", CloudUrl("s3://bucket", "s3", "bucket", "")),
        ("s3://minio.local:9000/b/repo/", CloudUrl("s3://minio.local:9000/b/repo/", "s3", "b", "repo", endpoint="http://minio.local:9000")),
        ("s3://https://s3.example.com:443/b/r", CloudUrl("s3://https://s3.example.com:443/b/r", "s3", "b", "r", endpoint="https://s3.example.com:443")),
        ("s3://http://10.0.0.1:80/b/r", CloudUrl("s3://http://10.0.0.1:80/b/r", "s3", "b", "r", endpoint="http://10.0.0.1:80")),
        ("gs://bucket/models", CloudUrl("gs://bucket/models", "gcs", "bucket", "models")),
        ("as://account/container/a/b", CloudUrl("as://account/container/a/b", "abfs", "container", "a/b", account="account")),
    ],
)  # fmt: skip
def test_triton_url_forms(url: str, expected: CloudUrl) -> None:
    assert is_cloud(url)
    assert parse_url(url) == expected


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("s3://host:/b/r", "with the port"),
        ("s3://https://host/b/r", "with the port"),
        ("s3://host:9000/Bucket/r", "lower-case bucket"),
        ("s3://host:9000/b/a b", "path segments"),
        ("s3://", "no bucket"),
        ("gs://", "no bucket"),
        ("as://account", "no bucket or container"),
        ("as:///container/x", "no storage account"),
    ],
)
def test_urls_triton_rejects(url: str, why: str) -> None:
    with pytest.raises(CloudUrlError, match=why):
        parse_url(url)


def test_local_paths_are_not_cloud() -> None:
    assert not is_cloud("models/s3://x")
    assert not is_cloud("/data/repo")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("s3://AKIAX:s3cr3t@minio.local:9000/b/r", "s3://***@minio.local:9000/b/r"),
        ("s3://https://AKIAX:s3cr3t@host:443/b/r", "s3://https://***@host:443/b/r"),
        ("gs://TOKEN@bucket/models", "gs://***@bucket/models"),
        ("as://AKIAX:s3cr3t@account/container/x", "as://***@account/container/x"),
        # an AWS secret key may hold '/' and '+', a password an '@'
        ("s3://AKIA:wJal/K7+bP@bucket/r", "s3://***@bucket/r"),
        ("s3://user:p@ss@bucket/r", "s3://***@bucket/r"),
        # as a Path writes the URL (one slash), inside a message, several on one line
        ("s3:/AKIAX:s3cr3t@b/x: no such file or directory", "s3:/***@b/x: no such file or directory"),
        ("s3://h:9000/b/x:3:1: see s3://K:S@h/b", "s3://h:9000/b/x:3:1: see s3://***@h/b"),
    ],
)  # fmt: skip
def test_redact_hides_the_user_part(text: str, shown: str) -> None:
    assert redact(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "s3://bucket/model@v2/config.pbtxt",  # an '@' in a key, after the bucket
        "s3://minio.local:9000/b/r/m/config.pbtxt:7:3: error TC203",
        "mail me at user@example.com",
        "/data/repo@2024/m/config.pbtxt",
    ],
)
def test_redact_keeps_urls_without_credentials(text: str) -> None:
    assert redact(text) == text
    # the same text beside a URL with credentials: that one is redacted, this one kept
    assert redact(f"{text} s3://K:S@h/b") == f"{text} s3://***@h/b"


@pytest.mark.parametrize(
    ("url", "where"),
    [
        ("s3://AKIAX:s3cr3t@minio.local:9000/b/r", "AWS_ACCESS_KEY_ID"),
        ("s3://AKIAX:s3cr3t@bucket/r", "AWS_ACCESS_KEY_ID"),
        ("gs://AKIAX:s3cr3t@bucket/r", "GOOGLE_APPLICATION_CREDENTIALS"),
        ("as://AKIAX:s3cr3t@account/container", "AZURE_STORAGE_KEY"),
    ],
)
def test_credentials_in_the_url_are_refused_unshown(url: str, where: str) -> None:
    with pytest.raises(CloudUrlError) as caught:
        parse_url(url)
    message = str(caught.value)
    assert message.startswith(f"{url[:5]}***@")
    assert "credentials in the URL are not read" in message and where in message
    assert "s3cr3t" not in message and "AKIAX" not in message


def test_staged_findings_are_named_without_credentials(tmp_path: Path) -> None:
    """The rename of staged paths to URLs (every finding's path and message) redacts, whatever
    CloudUrl it is given."""
    url = CloudUrl("s3://AKIAX:s3cr3t@h:9000/b/r/", "s3", "b", "r", endpoint="http://h:9000")
    staged = Staged(tmp_path, url)
    text = f"{tmp_path}/m/config.pbtxt: step '{tmp_path}/n' is missing"
    assert (
        staged.to_url(text)
        == "s3://***@h:9000/b/r/m/config.pbtxt: step 's3://***@h:9000/b/r/n' is missing"
    )
