"""SARIF details code scanning and the SARIF Multitool look for: a directory's location (TC104,
TC105) and the commit that was linted (`versionControlProvenance`), read from a real git work
tree with the real `git`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from clikit import run
from lintkit import make_model

from tritoncfg.report.provenance import find_version_control, repository_uri
from tritoncfg.report.sarif_schema import SARIF_SCHEMA_SUBSET

CONFIG = """name: "versionless"
backend: "python"
input [{ name: "x" data_type: TYPE_FP32 dims: [1] }]
output [{ name: "y" data_type: TYPE_FP32 dims: [1] }]
"""
TOKEN_REMOTE = "https://ci-bot:s3cret-token@example.com/team/models.git"


def git(work: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def checkout(tmp_path: Path, *, remote: str | None = TOKEN_REMOTE) -> Path:
    """A git work tree holding a repository with a model that has no version directory."""
    work = tmp_path / "checkout"
    make_model(work / "models", "versionless", CONFIG, versions=())
    git(work, "init", "-q", "-b", "release")
    if remote is not None:
        git(work, "remote", "add", "origin", remote)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "models")
    return work


def sarif_run(work: Path, *args: str) -> dict[str, Any]:
    result = run("lint", "models", "--format", "sarif", *args, cwd=work)
    assert result.returncode == 1, result.stderr  # TC105 is an error
    document = json.loads(result.stdout)
    jsonschema.Draft202012Validator(SARIF_SCHEMA_SUBSET).validate(document)
    return document["runs"][0]  # type: ignore[no-any-return]


def test_a_directory_finding_is_located_at_the_directory_with_a_message(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    (tc105,) = [r for r in sarif_run(work)["results"] if r["ruleId"] == "TC105"]
    (location,) = tc105["locations"]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "models/versionless/", "uriBaseId": "%SRCROOT%"}
    }
    assert "directory" in location["message"]["text"]


def test_sarif_names_the_commit_branch_and_origin_without_its_credentials(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    (provenance,) = sarif_run(work)["versionControlProvenance"]
    assert provenance == {
        "repositoryUri": "https://example.com/team/models.git",
        "revisionId": git(work, "rev-parse", "HEAD"),
        "branch": "release",
        "mappedTo": {"uriBaseId": "%SRCROOT%"},
    }
    assert "s3cret" not in json.dumps(provenance)


def test_a_detached_head_in_a_subdirectory_has_no_branch_and_no_mapping(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    git(work, "checkout", "-q", "--detach")
    result = run("lint", "versionless", "--format", "sarif", cwd=work / "models")
    assert result.returncode == 1, result.stderr
    (provenance,) = json.loads(result.stdout)["runs"][0]["versionControlProvenance"]
    assert provenance["revisionId"] == git(work, "rev-parse", "HEAD")
    assert "branch" not in provenance  # detached
    assert "mappedTo" not in provenance  # %SRCROOT% is models/, not the work tree's top


def test_a_repository_without_origin_is_named_by_its_work_tree(tmp_path: Path) -> None:
    work = checkout(tmp_path, remote=None)
    (provenance,) = sarif_run(work)["versionControlProvenance"]
    assert provenance["repositoryUri"] == work.resolve().as_uri() + "/"
    assert provenance["revisionId"] == git(work, "rev-parse", "HEAD")


def test_outside_a_work_tree_or_without_git_there_is_no_provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    make_model(plain / "models", "versionless", CONFIG, versions=())
    assert find_version_control(plain) is None
    run_ = sarif_run(plain)
    assert "versionControlProvenance" not in run_ and run_["results"]  # the lint itself ran
    work = checkout(tmp_path)
    assert find_version_control(work) is not None
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))  # git cannot be found
    assert find_version_control(work) is None


@pytest.mark.parametrize(
    ("remote", "uri"),
    [
        ("git@github.com:team/models.git", "ssh://github.com/team/models.git"),
        ("ssh://git@host.example:2222/team/models", "ssh://host.example:2222/team/models"),
        ("https://user:pw@example.com/m.git", "https://example.com/m.git"),
        ("https://example.com/m.git", "https://example.com/m.git"),
    ],
)
def test_remote_urls_become_uris_without_credentials(remote: str, uri: str) -> None:
    assert repository_uri(remote) == uri


def test_the_subset_schema_requires_a_repository_uri(tmp_path: Path) -> None:
    document = json.loads(run("lint", "models", "--format", "sarif", cwd=checkout(tmp_path)).stdout)
    validator = jsonschema.Draft202012Validator(SARIF_SCHEMA_SUBSET)
    assert validator.is_valid(document)
    del document["runs"][0]["versionControlProvenance"][0]["repositoryUri"]
    assert not validator.is_valid(document)
