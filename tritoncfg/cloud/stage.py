"""A cloud repository staged as a local tree, so that local discovery and every check run on it.

The bucket is listed once (one recursive listing of the repository prefix). Then only what lint
reads is downloaded: each model's top-level files (`config.pbtxt`, label files), `configs/`,
`warmup/` and `initial_state/`, and the `.onnx` files that the ONNX Runtime checks open. Every
other object becomes a sparse stand-in of its real size (sizes feed the GPU memory estimate and
the layout checks), so nothing else crosses the network. Requires the `tritoncfg[cloud]` extra.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from tritoncfg.cloud.url import CloudUrl
from tritoncfg.record import record

FETCHED_DIRS = frozenset({"configs", "warmup", "initial_state"})
TOP_LEVEL_LIMIT = 16 * 1024 * 1024  # a model directory's own files above this are not read
MODEL_SUFFIXES = (".onnx",)  # model files a model-aware check opens


class CloudError(Exception):
    """The cloud repository could not be read (missing extra, credentials, network)."""


@record(frozen=True)
class Staged:
    local: Path  # the staged repository root
    url: CloudUrl

    def to_url(self, text: str) -> str:
        """`text` with the staged root written as the repository URL."""
        return text.replace(str(self.local), self.url.url.rstrip("/"))


def filesystem(url: CloudUrl) -> Any:
    """The fsspec filesystem for `url`; credentials come from the environment or profile."""
    try:
        import fsspec
    except ImportError as error:
        raise CloudError(
            f"{url.url}: cloud repositories need the cloud extra: pip install 'tritoncfg[cloud]'"
        ) from error
    options: dict[str, Any] = {}
    if url.endpoint is not None:
        options["client_kwargs"] = {"endpoint_url": url.endpoint}
    if url.account is not None:
        options["account_name"] = url.account
        if os.environ.get("AZURE_STORAGE_KEY"):  # Triton's variable for the account key
            options["account_key"] = os.environ["AZURE_STORAGE_KEY"]
    try:
        return fsspec.filesystem(url.protocol, **options)
    except ImportError as error:
        backend = {"s3": "s3fs", "gcs": "gcsfs", "abfs": "adlfs"}[url.protocol]
        raise CloudError(
            f"{url.url}: needs {backend}: pip install 'tritoncfg[cloud]' ({error})"
        ) from error


def _relative(key: str, root: str) -> PurePosixPath | None:
    """The object's path under the repository root, or None for a key that cannot be a file
    there (outside it, or with an empty, `.` or `..` segment)."""
    key = key.rstrip("/")
    if not key.startswith(root + "/"):
        return None
    parts = key[len(root) + 1 :].split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return PurePosixPath(*parts)


def wanted(rel: PurePosixPath, size: int) -> bool:
    """Whether lint reads this object's bytes (else a stand-in of its size is enough)."""
    parts = rel.parts
    if len(parts) == 2:  # <model>/<file>: config.pbtxt, label files
        return size <= TOP_LEVEL_LIMIT
    if len(parts) >= 3 and parts[1] in FETCHED_DIRS:
        return True
    return len(parts) == 3 and rel.name.endswith(MODEL_SUFFIXES)


def _listing(fs: Any, url: CloudUrl) -> Mapping[str, dict[str, Any]]:
    try:
        found: Mapping[str, dict[str, Any]] = fs.find(url.root, withdirs=True, detail=True)
    except FileNotFoundError:
        return {}
    except Exception as error:  # botocore, google-auth and azure errors share no base class
        raise CloudError(f"{url.url}: cannot list the repository: {error}") from error
    return found


def _fetch(fs: Any, url: CloudUrl, keys: list[str]) -> dict[str, bytes]:
    if not keys:
        return {}
    try:
        data: dict[str, Any] = fs.cat(keys, on_error="return")
    except Exception as error:
        raise CloudError(f"{url.url}: cannot download: {error}") from error
    for key, value in data.items():
        if isinstance(value, BaseException):
            raise CloudError(f"{url.protocol}://{key}: cannot download: {value}")
    return data


def stage(url: CloudUrl, into: Path) -> Staged:
    """List `url` once, write the local tree under `into`, and return where it is."""
    fs = filesystem(url)
    listing = _listing(fs, url)
    if not listing:  # Triton: "repository path is not a valid directory"
        raise CloudError(f"{url.url}: no objects under this prefix; not a model repository")
    local = into / "repository"
    root = url.root.rstrip("/")
    files: dict[str, tuple[PurePosixPath, int]] = {}
    for key, info in listing.items():
        rel = _relative(key, root)
        if rel is None:
            continue
        if info.get("type") == "directory":
            (local / rel).mkdir(parents=True, exist_ok=True)
        else:
            files[key] = (rel, int(info.get("size") or 0))
    if files:
        local.mkdir(parents=True, exist_ok=True)
    fetch = sorted(k for k, (rel, size) in files.items() if wanted(rel, size))
    data = _fetch(fs, url, fetch)
    for key, (rel, size) in files.items():
        target = local / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        content = data.get(key)
        if content is None:
            content = data.get(key.split("://", 1)[-1])
        with target.open("wb") as handle:
            if content is not None:
                handle.write(content)
            else:
                handle.truncate(size)  # sparse: the size without the bytes
    return Staged(local, url)
