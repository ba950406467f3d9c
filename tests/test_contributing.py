"""CONTRIBUTING.md stays true: every path and module it quotes exists, every name it quotes as
`module:attr` or `tritoncfg.x.y` resolves, every Python snippet compiles, and the snippets marked
`python run` of each section run together, in order, in a fresh directory."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "CONTRIBUTING.md"
TEXT = GUIDE.read_text(encoding="utf-8")
# a fenced block: its info string and its body
BLOCKS = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```$", re.M | re.S)
# a quoted repository path: tritoncfg/..., tests/..., docs/..., tools/..., bench/...
PATHS = re.compile(r"`((?:tritoncfg|tests|docs|tools|bench)/[\w./-]*|[\w.-]+\.(?:md|toml))`")
# a quoted module or module attribute: `tritoncfg.a.b`, `tritoncfg.a.b:C`
MODULES = re.compile(r"`(tritoncfg(?:\.\w+)+)(?::(\w+))?`")
# files the examples create: named in the text, not in the repository yet
EXAMPLE_FILES = {
    "tritoncfg/report/csv.py",
    "tritoncfg/gen/max_batch_size.py",
    "tritoncfg/probe/runners/openvino.py",
}


def _prose() -> str:
    return BLOCKS.sub("", TEXT)


def _sections() -> dict[str, list[tuple[str, str]]]:
    """(info, body) of each fenced block, by the `## ` section it is in."""
    found: dict[str, list[tuple[str, str]]] = {}
    for part in re.split(r"^## ", TEXT, flags=re.M)[1:]:
        title = part.splitlines()[0]
        found[title] = [(m["info"].strip(), m["body"]) for m in BLOCKS.finditer(part)]
    return found


def test_the_guide_has_its_five_examples() -> None:
    assert {
        "Add a rule",
        "Add an output format",
        "Add a probe runtime",
        "Add a generator",
        "Add a lint option",
    } <= set(_sections())


def test_every_quoted_path_exists() -> None:
    quoted = set(PATHS.findall(_prose()))
    assert "tritoncfg/runtimes.py" in quoted  # the pattern finds them
    missing = sorted(p for p in quoted - EXAMPLE_FILES if not (ROOT / p).exists())
    assert not missing, f"CONTRIBUTING.md names paths that do not exist: {missing}"
    for example in EXAMPLE_FILES:  # still examples: not added since without the guide updated
        assert example in quoted and not (ROOT / example).exists(), example


def test_every_quoted_module_and_runner_resolves() -> None:
    quoted = MODULES.findall(_prose())
    assert ("tritoncfg.api.load", "") in quoted
    for dotted, attr in quoted:
        module, name = dotted, attr
        try:
            found: object = importlib.import_module(module)
        except ImportError:  # `tritoncfg.api.load`: an attribute of its module
            module, _, name = dotted.rpartition(".")
            found = importlib.import_module(module)
        if name:
            assert hasattr(found, name), f"{module} has no {name}"


def test_every_name_the_steps_edit_exists() -> None:
    """The registries and functions the steps tell a contributor to edit or call."""
    from tritoncfg import lintoptions
    from tritoncfg.checks.core import context, registry
    from tritoncfg.cli import gen, gen_result
    from tritoncfg.options import declare, table
    from tritoncfg.probe import contract
    from tritoncfg.report import formats
    from tritoncfg.runtimes import RUNTIMES

    named = {
        "model_rule": registry,
        "FORMATS": formats,
        "OutputFormat": formats,
        "Report": formats,
        "_target": gen,
        "finish_change": gen_result,
        "Runner": contract,
        "RunnerUnavailable": contract,
        "LintOption": declare,
        "LINT_OPTIONS": table,
        "LintOverrides": lintoptions,
        "LintOptions": context,
    }
    for name, module in named.items():
        assert f"`{name}`" in TEXT, name
        assert hasattr(module, name), f"{module.__name__} has no {name}"
    for runtime in RUNTIMES:  # every runner is named "module:Class", as the guide says
        module, _, attr = runtime.runner.partition(":")
        assert attr and (ROOT / (module.replace(".", "/") + ".py")).is_file(), runtime.runner
    runner_methods = {"load", "run", "describe", "close"}
    assert runner_methods <= set(vars(contract.Runner)), "the guide's runner lists these"


def test_every_python_snippet_compiles() -> None:
    snippets = [
        (title, body)
        for title, blocks in _sections().items()
        for info, body in blocks
        if info.split()[:1] == ["python"]
    ]
    assert len(snippets) >= 8
    for title, body in snippets:
        compile(body, f"CONTRIBUTING.md ({title})", "exec")


@pytest.mark.parametrize(
    "section",
    [
        "Add a rule",
        "Add an output format",
        "Add a probe runtime",
        "Add a generator",
        "Add a lint option",
    ],
)
def test_the_runnable_snippets_run(section: str, tmp_path: Path) -> None:
    script = "\n\n".join(body for info, body in _sections()[section] if info == "python run")
    assert script, f"{section}: no `python run` snippet"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, f"{section}:\n{done.stderr}"
