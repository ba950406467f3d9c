"""`new --tritoncfg-spec`: the tritoncfg the scaffold's workflow and pre-commit hooks install, the
same requirement in both files: a version, a URL or a path (issue 22, item 3)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from scaffold.scaffoldkit import new

from tritoncfg import __version__

yaml = pytest.importorskip("yaml")


def _installed(root: Path) -> tuple[list[str], list[str]]:
    """(the workflow's install command split as the shell splits it, each hook's dependencies)."""
    workflow = yaml.safe_load((root / ".github" / "workflows" / "tritoncfg.yml").read_text())
    (job,) = workflow["jobs"].values()
    (command,) = [s["run"] for s in job["steps"] if s.get("run", "").startswith("pip install")]
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    (dependencies,) = {tuple(h["additional_dependencies"]) for h in hooks}
    return shlex.split(command), list(dependencies)


@pytest.mark.parametrize(
    ("spec", "wanted"),
    [
        (None, f"tritoncfg=={__version__}"),
        ("0.2.0", "tritoncfg==0.2.0"),
        ("1.0rc1", "tritoncfg==1.0rc1"),
        ("~=0.1", "tritoncfg~=0.1"),
        ("git+https://example.com/t/tritoncfg@v0.1.0", "tritoncfg @ git+https://example.com/t/tritoncfg@v0.1.0"),
    ],
)  # fmt: skip
def test_a_version_or_url_is_one_requirement_in_both_files(
    spec: str | None, wanted: str, tmp_path: Path
) -> None:
    root = tmp_path / "demo"
    done = new(root, "-m", "m", *(["--tritoncfg-spec", spec] if spec else []))
    assert done.returncode == 0, done.stderr
    assert _installed(root) == (["pip", "install", wanted], [wanted])


def test_a_path_is_written_absolute_and_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pre-commit installs hook dependencies from its own folder: a relative path would miss."""
    wheel = tmp_path / "my wheels" / "tritoncfg-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"")
    from clikit import run

    done = run(
        "new", "demo", "-m", "m", "--tritoncfg-spec", "my wheels/" + wheel.name, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert _installed(tmp_path / "demo") == (["pip", "install", str(wheel)], [str(wheel)])


@pytest.mark.parametrize("spec", ["no-such-dir", "latest", "ftp://example.com/x", ""])
def test_an_unknown_spec_is_refused_before_anything_is_written(spec: str, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    done = new(root, "-m", "m", "--tritoncfg-spec", spec)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--tritoncfg-spec {spec!r} is not a version" in done.stderr
    assert "Traceback" not in done.stderr and not root.exists()
