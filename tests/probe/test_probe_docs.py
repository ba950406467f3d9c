"""docs/probe.md stays true: every option is documented, its JSON example follows the schema,
and its `--plan-only` example is what the command prints."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import run

from tritoncfg.probe.report import schema

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "probe.md").read_text(encoding="utf-8")
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC, flags=re.DOTALL)


def options() -> list[str]:
    """The long options of `tritoncfg probe`, as click sees them."""
    import typer.main

    from tritoncfg.cli.app import app

    command = typer.main.get_command(app).commands["probe"]  # type: ignore[attr-defined]
    return [o for p in command.params for o in p.opts if o.startswith("--")]


def test_every_option_is_in_the_cli_reference() -> None:
    names = options()
    assert "--plan-only" in names and "--latency-budget-ms" in names
    missing = [o for o in names if f"`{o}" not in CLI_DOC]
    assert not missing, missing


def test_the_json_example_follows_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    (example,) = blocks("json")
    jsonschema.Draft202012Validator(schema()).validate(json.loads(example))


def test_the_plan_only_example_is_what_probe_prints(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    root = tmp_path / "model_repository"
    shutil.copytree(ROOT / "examples" / "model_repository", root)
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_models.py"), "--repository", str(root)],
        check=True,
        capture_output=True,
    )
    shown = next(b for b in blocks("") if b.startswith("classifier: onnxruntime"))
    done = run("probe", str(root / "classifier"), "--plan-only")
    assert done.returncode == 0 and done.stdout == shown
