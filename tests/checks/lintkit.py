"""Test support for rules: build a real repository on disk and lint it."""

from __future__ import annotations

from pathlib import Path

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Diagnostic


def make_model(
    root: Path,
    name: str,
    config: str | None,
    *,
    files: dict[str, str] | None = None,
    versions: tuple[str, ...] = ("1",),
) -> Path:
    """Write `root/name/config.pbtxt` (unless None), version dirs and extra files (relative paths)."""
    model = root / name
    model.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (model / "config.pbtxt").write_text(config, encoding="utf-8")
    for version in versions:
        (model / version).mkdir(exist_ok=True)
    for rel, text in (files or {}).items():
        target = model / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return model


def lint_repo(root: Path, **options: object) -> list[Diagnostic]:
    return lint(root, LintOptions(**options)).diagnostics  # type: ignore[arg-type]


def codes(diagnostics: list[Diagnostic], prefix: str = "TC") -> list[str]:
    return [d.code for d in diagnostics if d.code.startswith(prefix)]


def lint_config(
    tmp_path: Path,
    config: str,
    *,
    name: str = "m",
    files: dict[str, str] | None = None,
    **options: object,
) -> list[Diagnostic]:
    """Lint one model `name` with the given config (a python-backend model file is added unless
    the config or `files` say otherwise)."""
    default_files = {"1/model.py": "# never executed\n"} if files is None else files
    make_model(tmp_path / "repo", name, config, files=default_files)
    return lint_repo(tmp_path / "repo", **options)
