"""A bucket listing as the local tree it is staged as: its folders, its files, and which files
lint reads (those are downloaded; every other file is a sparse stand-in of its size).

Object storage holds names a local file system cannot: an object `a/config.pbtxt` beside objects
under `a/config.pbtxt/` (a file and a folder of one name), a name segment over 255 bytes. Triton
copies a cloud model to a local folder before it loads it, and fails on them the same way; here
each is refused with the object's URL, before anything is downloaded. So is a config over the
size limit on config files, which would otherwise be staged without its bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from tritoncfg.cloud.client import CloudError
from tritoncfg.cloud.url import CloudUrl
from tritoncfg.confined import CONFIG_SIZE_LIMIT
from tritoncfg.record import record
from tritoncfg.units import format_size

CONFIG_FILENAME = "config.pbtxt"
CONFIGS_DIRNAME = "configs"
NAME_MAX = 255  # bytes in one file name (Linux, macOS, Windows)
MODEL_SUFFIXES = (".onnx", ".xml")  # model files the model-aware checks open (ONNX, OpenVINO IR)


@record(frozen=True)
class Tree:
    folders: frozenset[PurePosixPath]  # every folder, parents of files included
    files: Mapping[str, tuple[PurePosixPath, int]]  # object key -> (path, listed size)
    fetched: tuple[str, ...]  # the keys of the files lint reads, sorted


def relative(key: str, root: str) -> PurePosixPath | None:
    """The object's path under the repository root, or None for a key that cannot be a file
    there (outside it, or with an empty, `.` or `..` segment)."""
    key = key.rstrip("/")
    if not key.startswith(root + "/"):
        return None
    parts = key[len(root) + 1 :].split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return PurePosixPath(*parts)


def is_config(rel: PurePosixPath) -> bool:
    """`<model>/config.pbtxt` or `<model>/configs/<name>.pbtxt`: the configs lint parses."""
    parts = rel.parts
    if len(parts) == 2:
        return parts[1] == CONFIG_FILENAME
    return len(parts) == 3 and parts[1] == CONFIGS_DIRNAME and rel.suffix == ".pbtxt"


def is_read(rel: PurePosixPath) -> bool:
    """Whether lint reads the file's bytes (else a stand-in of its size is all it needs)."""
    return is_config(rel) or (len(rel.parts) == 3 and rel.name.endswith(MODEL_SUFFIXES))


def check_config_size(url: CloudUrl, rel: PurePosixPath, size: int) -> None:
    """Refuse a config over the size limit (the listed size, and again the downloaded one)."""
    if size > CONFIG_SIZE_LIMIT:
        raise CloudError(
            f"{url.object_url(rel.as_posix())}: {format_size(size)}, over the "
            f"{format_size(CONFIG_SIZE_LIMIT)} limit on a config file; it is not read"
        )


def _check_names(url: CloudUrl, rel: PurePosixPath) -> None:
    for index, part in enumerate(rel.parts):
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > NAME_MAX:
            shown = "/".join((*rel.parts[:index], part[:40] + "..."))
            raise CloudError(
                f"{url.object_url(shown)}: a name of {size} bytes in the object's key; a local "
                f"file name holds at most {NAME_MAX}, so the repository cannot be copied to disk "
                "(Triton copies a cloud model to a local folder before loading it, and fails "
                "the same way); shorten the name"
            )


def plan(url: CloudUrl, listing: Mapping[str, Mapping[str, Any]]) -> Tree:
    """The tree of the objects under the repository root. Raises CloudError for a name that
    cannot be a local file and for a config over the size limit."""
    root = url.root.rstrip("/")
    folder_of: dict[PurePosixPath, str] = {}  # each folder -> a key that makes it one
    files: dict[str, tuple[PurePosixPath, int]] = {}
    for key, info in listing.items():
        rel = relative(key, root)
        if rel is None:
            continue
        _check_names(url, rel)
        if key.endswith("/") or info.get("type") == "directory":  # a folder marker object
            folder_of.setdefault(rel, key)
        else:
            files[key] = (rel, int(info.get("size") or 0))
        for parent in rel.parents[:-1]:
            folder_of.setdefault(parent, key)
    for rel, size in files.values():
        if rel in folder_of:
            other = folder_of[rel][len(root) + 1 :]
            raise CloudError(
                f"{url.object_url(rel.as_posix())}: an object and also a folder of objects "
                f"({url.object_url(other)}); a local file system cannot hold both "
                "(Triton copies a cloud model to a local folder before loading it); rename or "
                "delete one of them"
            )
        if is_config(rel):
            check_config_size(url, rel, size)
    fetched = tuple(sorted(key for key, (rel, _) in files.items() if is_read(rel)))
    return Tree(frozenset(folder_of), files, fetched)
