"""A cloud repository staged as a local tree, so that local discovery and every check run on it.

The bucket is listed once (one recursive listing of the repository prefix). Then only what lint
reads is downloaded (cloud/tree.py says which: the configs, and the model files the model-aware
checks open); every other object becomes a sparse stand-in of its real size (sizes feed the GPU
memory estimate and the layout checks), so nothing else crosses the network. Requires the
`tritoncfg[cloud]` extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tritoncfg.cloud.client import CloudError, Timeouts, failure, filesystem, timeouts
from tritoncfg.cloud.quiet import Heard, quiet_libraries
from tritoncfg.cloud.tree import Tree, check_config_size, is_config, plan
from tritoncfg.cloud.url import CloudUrl
from tritoncfg.record import record

__all__ = ["CloudError", "Staged", "stage"]


@record(frozen=True)
class Staged:
    local: Path  # the staged repository root
    url: CloudUrl

    def to_url(self, text: str) -> str:
        """`text` with the staged root written as the repository URL (without credentials)."""
        return text.replace(str(self.local), self.url.shown)


def _listing(
    fs: Any, url: CloudUrl, limits: Timeouts, heard: Heard
) -> Mapping[str, dict[str, Any]]:
    """Every object under the root, folder markers (keys ending in '/') included: without
    withdirs, so that an object is not hidden by a folder of the same name."""
    try:
        found: Mapping[str, dict[str, Any]] = fs.find(url.root, withdirs=False, detail=True)
    except FileNotFoundError:
        return {}
    except Exception as error:  # botocore, google-auth and azure errors share no base class
        why = failure(error, limits)
        raise CloudError(
            f"{url.shown}: cannot list the repository: {why}{heard.hint(why)}"
        ) from error
    return found


def _nothing_there(fs: Any, url: CloudUrl) -> str:
    """Why an empty listing is no repository: no such bucket (container), or nothing under the
    prefix (Triton: "repository path is not a valid directory")."""
    kind = "container" if url.protocol == "abfs" else "bucket"
    try:
        exists = bool(fs.exists(url.bucket))
    except Exception:  # unknown (no right to look): say what the listing showed
        exists = True
    if not exists:
        return (
            f"{url.shown}: no {kind} '{url.bucket}'{_where(url)}, or these credentials cannot "
            f"see it; check the {kind} name"
        )
    if not url.prefix:
        return f"{url.shown}: the {kind} '{url.bucket}' is empty; not a model repository"
    return (
        f"{url.shown}: no objects under this prefix ('{url.prefix}/' in the {kind} "
        f"'{url.bucket}'); not a model repository"
    )


def _where(url: CloudUrl) -> str:
    if url.protocol == "abfs":
        from tritoncfg.cloud.azure import endpoint_shown

        return f" in the storage account '{url.account}' ({endpoint_shown(url)})"
    return f" at {url.endpoint}" if url.endpoint is not None else ""


def _fetch(fs: Any, url: CloudUrl, tree: Tree, limits: Timeouts, heard: Heard) -> dict[str, bytes]:
    """The bytes of the files lint reads, by key; each one there, a config within the limit."""
    if not tree.fetched:
        return {}
    try:
        data: dict[str, Any] = fs.cat(list(tree.fetched), on_error="return")
    except Exception as error:
        why = failure(error, limits)
        raise CloudError(f"{url.shown}: cannot download: {why}{heard.hint(why)}") from error
    fetched: dict[str, bytes] = {}
    for key in tree.fetched:
        rel = tree.files[key][0]
        value = data.get(key, data.get(f"{url.protocol}://{key}"))
        if not isinstance(value, bytes):
            why = failure(value, limits) if isinstance(value, BaseException) else "not returned"
            raise CloudError(
                f"{url.object_url(rel.as_posix())}: cannot download: {why}{heard.hint(why)}"
            )
        if is_config(rel):
            check_config_size(url, rel, len(value))  # it may have grown since the listing
        fetched[key] = value
    return fetched


def _write(tree: Tree, data: Mapping[str, bytes], local: Path, url: CloudUrl) -> None:
    rel = None
    try:
        for rel in sorted(tree.folders):
            (local / rel).mkdir(parents=True, exist_ok=True)
        for key, (rel, size) in tree.files.items():
            with (local / rel).open("wb") as handle:
                if key in data:
                    handle.write(data[key])
                else:
                    handle.truncate(size)  # sparse: the size without the bytes
    except OSError as error:  # a path over PATH_MAX, a full disk
        where = url.object_url(rel.as_posix()) if rel is not None else url.shown
        raise CloudError(
            f"{where}: cannot be copied to a local file: {error.strerror or error}"
        ) from error


def stage(url: CloudUrl, into: Path) -> Staged:
    """List `url` once, write the local tree under `into`, and return where it is."""
    limits = timeouts()
    with quiet_libraries() as heard:  # the libraries' logging: one message instead
        fs = filesystem(url, limits)
        listing = _listing(fs, url, limits, heard)
        if not listing:
            raise CloudError(_nothing_there(fs, url))
        tree = plan(url, listing)
        data = _fetch(fs, url, tree, limits, heard)
    local = into / "repository"
    local.mkdir(parents=True, exist_ok=True)
    _write(tree, data, local, url)
    return Staged(local, url)
