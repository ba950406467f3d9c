"""Test support for `tritoncfg new`: run it, lint and fmt-check what it wrote, snapshot trees."""

from __future__ import annotations

import subprocess
from pathlib import Path

from clikit import run

REPOSITORY = "model_repository"


def new(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run("new", str(root), *args)


def assert_clean(root: Path) -> None:
    """`lint` finds nothing at all (not even info) and `fmt --check` changes nothing."""
    repository = root / REPOSITORY
    linted = run("lint", str(repository))
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert linted.stdout.startswith("All checks passed"), linted.stdout
    checked = run("fmt", "--check", str(repository))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under root: content and modification time (ns)."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"", p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
    }
