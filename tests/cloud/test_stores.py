"""`tritoncfg lint s3://… gs://… as://…` against a real local server of each cloud's API (moto,
gcp-storage-emulator, Azurite): the same findings as from disk, and one clear line when the
repository is not there."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clikit import run
from cloudkit import BROKEN, Store, assert_same_as_local, make_repository, write_tree

LIMIT = 120  # seconds for one CLI run: a hang fails the test


def test_findings_equal_the_local_ones(store: Store, tmp_path: Path) -> None:
    repository = make_repository(tmp_path / "repo")
    store.put(repository, "team/repo")
    assert_same_as_local(repository, store.url("team/repo"))


def test_cli_names_the_object_url_and_line_and_nothing_else(store: Store, tmp_path: Path) -> None:
    store.put(write_tree(tmp_path / "repo", BROKEN), "cli")
    url = store.url("cli")

    result = run("lint", url, timeout=LIMIT)

    assert result.returncode == 1, result.stderr
    assert f"{url}/bad_batching/config.pbtxt:3:" in result.stdout
    assert f"{url}/no_parse/config.pbtxt:" in result.stdout
    # the libraries' logging stays off the terminal (gcsfs warns of missing credentials for
    # every bucket it looks at, even on an emulator)
    assert result.stderr == ""


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # no library log lines, no traceback
    line: str = lines[0]
    return line


def test_missing_prefix_is_not_a_repository(store: Store, tmp_path: Path) -> None:
    store.put(write_tree(tmp_path / "repo", BROKEN), "elsewhere")  # the bucket is not empty
    url = store.url("nothing/here")
    line = _one_error_line(run("lint", url, timeout=LIMIT))
    assert line == (
        f"tritoncfg: error: {url}: no objects under this prefix ('nothing/here/' in the "
        f"{store.kind} 'models'); not a model repository"
    )


def test_missing_bucket_is_told_apart(store: Store) -> None:
    url = store.missing_bucket_url
    line = _one_error_line(run("lint", url, timeout=LIMIT))
    assert line.startswith(f"tritoncfg: error: {url}: no {store.kind} 'no-such-{store.kind}'")
    assert f"check the {store.kind} name" in line


@pytest.mark.parametrize(
    "args",
    [
        ("fmt", "s3://bucket/repo"),
        ("lint", "--fix", "s3://bucket/repo"),
        ("complete", "--write", "gs://bucket/repo/model"),
    ],
)
def test_writing_commands_refuse_cloud_paths(args: tuple[str, ...]) -> None:
    result = run(*args, timeout=LIMIT)
    assert result.returncode == 2
    assert "cloud repositories are read-only" in result.stderr
    assert args[-1] in result.stderr
