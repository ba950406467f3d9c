"""The wheel ships templates/ and `new` works from a non-editable install of it.

Builds an sdist and a wheel with `make dist` (`python -m build`, then `twine check --strict` of
both), checks that every file under templates/ is inside, installs the wheel into a fresh virtual environment (its dependencies are
this environment's, through a .pth file: nothing is downloaded) and runs `new` and `lint` there.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _shipped() -> list[str]:
    """Every file of templates/ that git tracks or would (what a checkout has)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "templates"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    return [line.removeprefix("templates/") for line in listed.stdout.splitlines()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make dist` into a temporary folder, with this environment's python (the venv stamp that
    would install the dev extra is taken as done: `-o`)."""
    if importlib.util.find_spec("build") is None or importlib.util.find_spec("twine") is None:
        pytest.skip("the `build` and `twine` packages (dev extra) are not installed")
    if shutil.which("make") is None:
        pytest.skip("no `make` here")
    out = tmp_path_factory.mktemp("dist") / "dist"
    command = ["make", "-s", "-o", ".venv/.stamp-dev", "dist"]
    command += [f"BIN={Path(sys.executable).parent}", f"DIST={out}"]
    # without isolation when this environment has the build requirements: no download needed
    if _has_build_requirements():
        command.append("BUILD_FLAGS=--no-isolation")
    built = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
        env={k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "NO_COLOR"}} | {"NO_COLOR": "1"},
    )  # fmt: skip
    if built.returncode != 0:
        if "BUILD_FLAGS=--no-isolation" not in command and "pip" in built.stderr:
            pytest.skip(f"cannot build in isolation (offline?): {built.stderr[-500:]}")
        pytest.fail(built.stdout[-2000:] + built.stderr[-2000:])
    (found,) = out.glob("tritoncfg-*.whl")
    # make dist ends with twine check --strict of both files
    shown = " ".join(built.stdout.split())  # twine's lines wrap at the terminal's width
    assert shown.count("PASSED") == 2, built.stdout
    assert all(f"{p.name}:" in shown for p in out.iterdir()), built.stdout
    return found


def _has_build_requirements() -> bool:
    """setuptools>=77 and wheel, as [build-system] requires."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("setuptools").split(".")[0]) >= 77 and bool(version("wheel"))
    except PackageNotFoundError:
        return False


def test_wheel_ships_every_template(wheel: Path) -> None:
    shipped = _shipped()
    assert "repository/dot-github/workflows/tritoncfg.yml" in shipped
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = [f for f in shipped if f"tritoncfg/templates/{f}" not in names]
    assert not missing, f"not in {wheel.name}: {missing}"
    assert not [n for n in names if "__pycache__" in n]


def test_sdist_carries_the_templates(wheel: Path) -> None:
    import tarfile

    (sdist,) = wheel.parent.glob("tritoncfg-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert "setup.py" in names
    assert not [f for f in _shipped() if f"templates/{f}" not in names]


def test_new_and_lint_from_a_non_editable_install(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # nothing of the test run's own: its PYTHONPATH holds the checkout (with the egg-info the
    # build leaves), which pip would take for an installed tritoncfg and skip the wheel
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            env=env, capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    assert (site / "tritoncfg" / "__init__.py").is_file(), installed.stdout
    # the dependencies (protobuf, typer, onnx, ...) from this environment, after the wheel's own
    (site / "zz_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    work = tmp_path / "work"  # outside the checkout
    work.mkdir()

    def tritoncfg(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(env_dir / "bin" / "tritoncfg"), *args],
            cwd=work, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip

    where = subprocess.run(
        [str(python), "-c", "import tritoncfg.templates as t; print(t.__file__)"],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)  # the wheel, not the checkout
    from models.onnxkit import make_runnable

    source = make_runnable(work / "clf.onnx", input_shape=["n", 3], output_shape=["n", 3])
    done = tritoncfg("new", "demo", "--model", "clf", "--from-model", str(source))
    assert done.returncode == 0, done.stderr
    for template in ("python", "ensemble", "bls"):
        target = ("--target", "clf") if template == "bls" else ()
        added = tritoncfg("new", "demo", "-m", template, "-t", template, *target)
        assert added.returncode == 0, added.stderr
    # CI and the hooks install the tritoncfg that wrote them: the wheel's version
    version = wheel.name.split("-")[1]
    workflow = (work / "demo" / ".github" / "workflows" / "tritoncfg.yml").read_text()
    assert f'run: "pip install tritoncfg=={version}"' in workflow
    hooks = (work / "demo" / ".pre-commit-config.yaml").read_text()
    assert hooks.count(f'additional_dependencies: ["tritoncfg=={version}"]') == 2
    linted = tritoncfg("lint", "demo/model_repository")
    assert linted.returncode == 0 and linted.stdout.startswith("All checks passed"), linted.stdout
    checked = tritoncfg("fmt", "--check", "demo/model_repository")
    assert checked.returncode == 0, checked.stdout
    # the project folder stands for its repository (tritoncfg.toml: repository = ...)
    linted = tritoncfg("lint", "demo")
    assert linted.returncode == 0 and linted.stdout.startswith("All checks passed"), linted.stdout
    assert tritoncfg("fmt", "--check", "demo").returncode == 0
