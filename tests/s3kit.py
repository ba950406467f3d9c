"""Test support for cloud repositories: putting a local tree into an S3 bucket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

BUCKET = "models"


def upload(client: Any, local: Path, prefix: str) -> None:
    """Every file of `local` as an object under `prefix`; an empty directory as a `dir/` marker
    object, as the S3 console creates folders."""
    for path in sorted(local.rglob("*")):
        key = f"{prefix}/{path.relative_to(local).as_posix()}"
        if path.is_dir() and not any(path.iterdir()):
            client.put_object(Bucket=BUCKET, Key=key + "/", Body=b"")
        elif path.is_file():
            client.put_object(Bucket=BUCKET, Key=key, Body=path.read_bytes())
