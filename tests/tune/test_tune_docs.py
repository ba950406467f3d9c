"""docs/tune.md stays true: every worked example prints what the page shows, every option of
`simulate` and `tune` is documented (there and in docs/cli.md), and the table of what the common
advice gets wrong is what the simulator gives."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from clikit import run_documented

from tritoncfg.tune.arrivals import poisson
from tritoncfg.tune.batcher import BatcherConfig
from tritoncfg.tune.engine import simulate
from tritoncfg.tune.service import parse_service_ms
from tritoncfg.tune.summary import summarize

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC = (DOCS / "tune.md").read_text()
FILE = re.compile(r"<!-- file: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)```\n", re.S)
RUN = re.compile(r"<!-- run -->\n```console\n\$ (?P<command>[^\n]+)\n(?P<output>.*?)```\n", re.S)


def _examples() -> list[tuple[str, str]]:
    return [(m["command"], m["output"]) for m in RUN.finditer(DOC)]


def test_the_page_runs_simulate_and_tune() -> None:
    commands = [command.split()[1] for command, _ in _examples()]
    assert commands.count("simulate") == 2 and commands.count("tune") == 1


@pytest.mark.parametrize(("command", "output"), _examples())
def test_example_output(command: str, output: str, tmp_path: Path) -> None:
    for match in FILE.finditer(DOC):
        path = tmp_path / match["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(match["body"])
        (path.parent / "1").mkdir()
        (path.parent / "1" / "model.py").write_text("# never imported\n")
    done = run_documented(command, tmp_path)
    assert done.returncode == 0, done.stdout
    assert done.stdout == output


@pytest.mark.parametrize("name", ["simulate", "tune"])
def test_every_option_is_documented(name: str) -> None:
    import typer

    from tritoncfg.cli.app import app

    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    options = [o for p in command.params for o in p.opts if o.startswith("--")]
    assert "--service-ms" in options
    missing = [o for o in options if o != "--help" and f"`{o}" not in DOC]
    assert not missing, missing
    cli = (DOCS / "cli.md").read_text()
    assert f"## `tritoncfg {name}`" in cli and f"tritoncfg {name} MODEL" in cli


# the columns of the advice table: the config, and its instance count
ADVICE = [
    BatcherConfig(32, preferred=(16,), delay_us=10_000),
    BatcherConfig(32, instances=2, preferred=(16,), delay_us=10_000),
    BatcherConfig(32),
    BatcherConfig(32, instances=2),
]


def test_the_advice_table_is_what_the_simulator_gives() -> None:
    section = DOC.split("## What the common advice gets wrong", 1)[1]
    rows = re.findall(r"^\| ([\d,]+) \| (.*) \|$", section, re.M)
    assert len(rows) == 3
    curve = parse_service_ms("1:2.0,4:2.6,8:3.4,16:5.6,32:10.4")
    for rate_text, cells_text in rows:
        rate = float(rate_text.replace(",", ""))
        cells = cells_text.split(" | ")
        for config, cell in zip(ADVICE, cells, strict=True):
            arrivals = poisson(rate, 50_000, random.Random(0))
            summary = summarize(simulate(config, curve, arrivals, 0))
            shown = f"p99 {summary.latency.p99_ms:.1f} ms"
            assert cell.startswith(shown), (rate, config, cell, shown)
            if "batch" in cell:
                assert cell.endswith(f"batch {summary.mean_batch:.1f}"), (cell, summary.mean_batch)
