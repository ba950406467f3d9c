"""A bucket listing as a local tree: what is downloaded, and the names a disk cannot hold."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import pytest

from tritoncfg.cloud.stage import CloudError
from tritoncfg.cloud.tree import CONFIG_SIZE_LIMIT, plan
from tritoncfg.cloud.url import parse_url

URL = parse_url("s3://minio.local:9000/b/repo")


def _listing(*objects: tuple[str, int]) -> dict[str, dict[str, Any]]:
    """As fsspec's find(withdirs=False, detail=True) answers: every object, markers included."""
    return {f"b/repo/{key}": {"name": f"b/repo/{key}", "size": size, "type": "file"} for key, size in objects}  # fmt: skip


def test_only_what_lint_reads_is_fetched() -> None:
    tree = plan(URL, _listing(
        ("m/config.pbtxt", 40), ("m/configs/gpu.pbtxt", 40), ("m/configs/notes.txt", 9),
        ("m/labels.txt", 9), ("m/warmup/x", 9), ("m/1/model.onnx", 9), ("m/1/model.xml", 9),
        ("m/1/model.bin", 9), ("m/1/model.plan", 9), ("m/2/", 0),
    ))  # fmt: skip
    assert tree.fetched == tuple(
        f"b/repo/m/{name}"
        for name in ("1/model.onnx", "1/model.xml", "config.pbtxt", "configs/gpu.pbtxt")
    )
    assert PurePosixPath("m/2") in tree.folders and PurePosixPath("m/warmup") in tree.folders
    assert tree.files["b/repo/m/1/model.plan"] == (PurePosixPath("m/1/model.plan"), 9)


def test_a_config_up_to_the_limit_is_fetched_and_over_it_refused() -> None:
    at_limit = plan(URL, _listing(("m/config.pbtxt", CONFIG_SIZE_LIMIT)))
    assert at_limit.fetched == ("b/repo/m/config.pbtxt",)
    with pytest.raises(CloudError) as caught:
        plan(URL, _listing(("m/configs/big.pbtxt", CONFIG_SIZE_LIMIT + 1)))
    assert str(caught.value) == (
        "s3://minio.local:9000/b/repo/m/configs/big.pbtxt: 64.0 MiB, over the 64.0 MiB limit "
        "on a config file; it is not read"
    )


@pytest.mark.parametrize(
    "objects",
    [
        (("a/config.pbtxt", 9), ("a/config.pbtxt/x", 1)),  # a file and a folder of one name
        (("a/config.pbtxt/x", 1), ("a/config.pbtxt", 9)),  # listed the other way round
        (("a/config.pbtxt", 9), ("a/config.pbtxt/", 0)),  # a folder marker object
    ],
)
def test_an_object_that_is_also_a_folder_is_refused(objects: tuple[tuple[str, int], ...]) -> None:
    with pytest.raises(CloudError, match="an object and also a folder of objects") as caught:
        plan(URL, _listing(*objects))
    assert str(caught.value).startswith("s3://minio.local:9000/b/repo/a/config.pbtxt: ")
    assert "(s3://minio.local:9000/b/repo/a/config.pbtxt/" in str(caught.value)


def test_a_name_over_255_bytes_is_refused() -> None:
    fine = plan(URL, _listing(("m/config.pbtxt", 9), ("m/1/" + "x" * 255, 1)))
    assert len(fine.files) == 2
    with pytest.raises(CloudError) as caught:
        plan(URL, _listing(("m/config.pbtxt", 9), ("m/1/" + "é" * 128, 1)))  # 256 bytes
    message = str(caught.value)
    assert message.startswith("s3://minio.local:9000/b/repo/m/1/" + "é" * 40 + "...: ")
    assert "a name of 256 bytes" in message and "at most 255" in message
