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


# The config (or another config of the repository) does not parse; TC009 follows from these.
PARSE_ERRORS = frozenset({"TC001", "TC002", "TC003", "TC004", "TC005", "TC006", "TC007"})


def lint_config(
    tmp_path: Path,
    config: str,
    *,
    name: str = "m",
    files: dict[str, str] | None = None,
    parse_errors: bool = False,
    **options: object,
) -> list[Diagnostic]:
    """Lint one model `name` with the given config (a python-backend model file is added unless
    the config or `files` say otherwise).

    A config that does not parse makes the test fail, unless `parse_errors=True` says that is what
    the test is about: otherwise a typo in a config meant to exercise a rule would make every
    "does not fire" assertion pass without the rule ever looking at the config."""
    default_files = {"1/model.py": "# never executed\n"} if files is None else files
    make_model(tmp_path / "repo", name, config, files=default_files)
    diagnostics = lint_repo(tmp_path / "repo", **options)
    if not parse_errors:
        failed = [
            f"{d.path}:{d.span} {d.code} {d.message}" for d in diagnostics if d.code in PARSE_ERRORS
        ]
        assert not failed, "the test config does not parse: " + "; ".join(failed)
    return diagnostics


def found(diagnostics: list[Diagnostic], code: str) -> list[tuple[str, str, str | None]]:
    """(line:col, severity, Triton's message) of each diagnostic with `code`."""
    return [
        (str(d.span), d.severity.value, d.triton.message if d.triton else None)
        for d in diagnostics
        if d.code == code
    ]


def found_at(diagnostics: list[Diagnostic], code: str) -> list[tuple[str, str | None]]:
    """(line:col, Triton's message) of each diagnostic with `code`."""
    return [(span, message) for span, _, message in found(diagnostics, code)]


def only(diagnostics: list[Diagnostic], code: str) -> Diagnostic:
    """The one diagnostic with `code` (the test fails unless there is exactly one)."""
    (diagnostic,) = [d for d in diagnostics if d.code == code]
    return diagnostic
