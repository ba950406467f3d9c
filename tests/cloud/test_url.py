"""Triton's repository URL forms (core src/filesystem/implementations/s3.h, gcs.h, as.h)."""

from __future__ import annotations

import pytest

from tritoncfg.cloud import CloudUrl, CloudUrlError, is_cloud, parse_url


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
