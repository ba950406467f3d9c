"""The project files `new` writes: pre-commit hooks that exist, a workflow that lints with SARIF
and uploads it, a .gitignore for model files, a README that says where they come from."""

from __future__ import annotations

import re
import subprocess
import sys
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


def test_pre_commit_hooks_are_tritoncfgs_own_installed_as_ci_installs_it(project: Path) -> None:
    """Local hooks, each as the project's .pre-commit-hooks.yaml declares it, installing the
    requirement the workflow installs; `pre-commit validate-config` accepts the file."""
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())
    declared = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    assert [h["id"] for h in repo["hooks"]] == ["tritoncfg-lint", "tritoncfg-fmt"]
    for hook in repo["hooks"]:
        assert hook.pop("additional_dependencies") == [f"tritoncfg=={__version__}"]
        assert hook.items() <= declared[hook["id"]].items(), hook["id"]
    checked = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_workflow_lints_to_sarif_and_uploads_it(project: Path) -> None:
    workflow = yaml.safe_load((project / ".github" / "workflows" / "tritoncfg.yml").read_text())
    (job,) = workflow["jobs"].values()
    # what the SARIF upload needs (github/codeql-action's upload-sarif)
    assert job["permissions"] == {
        "contents": "read", "security-events": "write", "actions": "read"
    }  # fmt: skip
    steps = job["steps"]
    runs = [s.get("run", "") for s in steps]
    assert f"pip install tritoncfg=={__version__}" in runs  # this tritoncfg by default
    assert f"tritoncfg fmt --check {REPOSITORY}" in runs
    assert f"tritoncfg lint {REPOSITORY} --format sarif > tritoncfg.sarif" in runs
    (upload,) = [
        s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    assert upload["with"]["sarif_file"] == "tritoncfg.sarif"
    assert upload["if"] == "always()"  # findings make lint exit 1; the upload still runs
    assert workflow[True] == ["push", "pull_request"]  # YAML 1.1 reads `on` as true


def test_gitignore_keeps_model_files_out_and_what_configs_refer_to_in(project: Path) -> None:
    """Real git decides: model files in version folders are ignored; warmup and initial state
    data, labels and the version folder's .gitkeep are committed (issue 22, item 2)."""
    model = f"{REPOSITORY}/m"
    paths = {
        f"{model}/1/model.onnx": True,
        f"{model}/1/model.bin": True,
        f"{model}/12/model.savedmodel/variables/variables.data": True,
        f"{model}/1/sub/weights.bin": True,
        f"{model}/1/.gitkeep": False,
        f"{model}/1/model.py": False,
        f"{model}/warmup/INPUT0.bin": False,
        f"{model}/initial_state/state.bin": False,
        f"{model}/labels.txt": False,
        f"{model}/config.pbtxt": False,
        "tritoncfg.sarif": True,
    }
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    checked = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"], cwd=project, input="\n".join(paths),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr  # 0: some path is ignored (so it ran)
    ignored = set(checked.stdout.splitlines())
    assert {p for p, expected in paths.items() if expected} == ignored


def test_readme_names_the_model_files_gitignore_leaves_out(project: Path) -> None:
    readme = (project / "README.md").read_text()
    section = readme.split("## Model files\n", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`([^`]+)`", section.split(" inside the version", 1)[0])
    patterns = [
        line.rsplit("/**/", 1)[1]
        for line in (project / ".gitignore").read_text().splitlines()
        if line.startswith(f"/{REPOSITORY}/*/[0-9]*/**/")
    ]
    assert named[0] == ".gitignore" and named[1:] == patterns and len(patterns) >= 10
    assert 'model-files = "optional"' in section and "git lfs track" in section
    assert 'model-files = "optional"' in (project / "tritoncfg.toml").read_text()


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
