"""Helpers that lay out real repositories under `tmp_path`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Tree = Callable[..., Path]


def build_tree(base: Path, *paths: str, files: dict[str, str | bytes] | None = None) -> Path:
    """Create `paths` under `base`: a trailing `/` makes a directory, anything else an empty
    file; `files` maps more paths to their contents."""
    base.mkdir(parents=True, exist_ok=True)
    for rel in paths:
        target = base / rel
        if rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    for rel, content in (files or {}).items():
        target = base / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return base


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    def make(*paths: str, base: str = "repo", files: dict[str, str | bytes] | None = None) -> Path:
        return build_tree(tmp_path / base, *paths, files=files)

    return make
