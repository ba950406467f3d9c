"""The project files `new` writes: pre-commit hooks that exist, a workflow that lints with SARIF
and uploads it, a .gitignore for model binaries, a README."""

from __future__ import annotations

from pathlib import Path

import pytest
from scaffold.scaffoldkit import REPOSITORY, new

from tritoncfg import __version__

yaml = pytest.importorskip("yaml")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("p") / "demo"
    done = new(root, "-m", "m")
    assert done.returncode == 0, done.stderr
    return root


def test_pre_commit_config_uses_tritoncfg_hooks(project: Path) -> None:
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["rev"] == f"v{__version__}"
    used = [h["id"] for h in repo["hooks"]]
    assert used == ["tritoncfg-lint", "tritoncfg-fmt"]
    assert set(used) <= {h["id"] for h in hooks}


def test_workflow_lints_to_sarif_and_uploads_it(project: Path) -> None:
    workflow = yaml.safe_load((project / ".github" / "workflows" / "tritoncfg.yml").read_text())
    (job,) = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    steps = job["steps"]
    runs = [s.get("run", "") for s in steps]
    assert f"tritoncfg lint {REPOSITORY} --format sarif > tritoncfg.sarif" in runs
    (upload,) = [
        s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    assert upload["with"]["sarif_file"] == "tritoncfg.sarif"
    assert upload["if"] == "always()"  # findings make lint exit 1; the upload still runs
    assert workflow[True] == ["push", "pull_request"]  # YAML 1.1 reads `on` as true


def test_gitignore_keeps_model_binaries_out(project: Path) -> None:
    ignored = (project / ".gitignore").read_text().splitlines()
    assert {"*.onnx", "*.plan", "*.pt"} <= set(ignored)


def test_readme_names_the_repository(project: Path) -> None:
    readme = (project / "README.md").read_text()
    assert readme.startswith("# demo\n")
    assert f"tritoncfg lint {REPOSITORY}" in readme
    assert "$" not in readme.replace("$(pwd)", "")  # every placeholder filled


def test_readme_layout_columns_line_up(project: Path) -> None:
    """The README's layout block, as written (placeholders filled): every description starts
    in the same column."""
    readme = (project / "README.md").read_text()
    block = readme.split("```\n", 2)[1].splitlines()
    assert block[0].startswith(f"{REPOSITORY}/ ") and len(block) >= 4
    columns = {len(line) - len(line.split(maxsplit=1)[1]) for line in block}
    assert len(columns) == 1, block
