"""The project is releasable: .github/workflows/release.yml builds and checks what `make dist`
builds and checks, refuses a tag that does not name the version built, and publishes through
trusted publishing (issue 22, item 3). The wheel itself is built and used in
tests/scaffold/test_wheel.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")
ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(
        (ROOT / ".github" / "workflows" / "release.yml").read_text()
    )
    return loaded


def _runs(job: dict[str, Any]) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def test_runs_on_version_tags_only(workflow: dict[Any, Any]) -> None:
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads `on` as true
    assert workflow["permissions"] == {"contents": "read"}


def test_builds_and_checks_as_make_dist_does(workflow: dict[Any, Any]) -> None:
    runs = _runs(workflow["jobs"]["build"])
    assert "python -m build --outdir dist ." in runs
    assert "python -m twine check --strict dist/*" in runs
    recipe = (ROOT / "Makefile").read_text().split("\ndist:", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/python -m build $(BUILD_FLAGS) --outdir $(DIST) ." in recipe
    assert "$(BIN)/python -m twine check --strict $(DIST)/*" in recipe
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "dev"
    ]
    assert {re.split(r"[<>=!~]", d)[0] for d in dev} >= {"build", "twine"}


def test_publishes_with_trusted_publishing_only(workflow: dict[Any, Any]) -> None:
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    (upload,) = [
        s for s in publish["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")
    ]
    assert "with" not in upload  # no password or token: the OIDC token is the credential
    assert "secrets." not in (ROOT / ".github" / "workflows" / "release.yml").read_text()


@pytest.mark.parametrize(
    ("tag", "passes"), [(f"v{VERSION}", True), ("v999.0.0", False), (VERSION, False)]
)
def test_the_tag_must_name_the_version_built(
    workflow: dict[Any, Any], tag: str, passes: bool, tmp_path: Path
) -> None:
    """The workflow's own step, run in a copy of what it reads (pyproject.toml, dist/)."""
    (step,) = [r for r in _runs(workflow["jobs"]["build"]) if "GITHUB_REF_NAME" in r]
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "dist").mkdir()
    for name in (f"tritoncfg-{VERSION}.tar.gz", f"tritoncfg-{VERSION}-py3-none-any.whl"):
        (tmp_path / "dist" / name).write_bytes(b"")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # its `python`
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step],
        cwd=tmp_path, env=os.environ | {"GITHUB_REF_NAME": tag, "PATH": path}, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert (done.returncode == 0) == passes, done.stdout + done.stderr
    if not passes:
        assert f"tag {tag} does not name the version built (v{VERSION})" in done.stdout
