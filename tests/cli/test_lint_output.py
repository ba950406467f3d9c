"""`tritoncfg lint`'s output options, ruff's conventions (issue 23), as a user runs them: the real
command in a subprocess, on real files, with its exit status (0 / 1 / 2 kept)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clikit import run
from lintkit import make_model

from tritoncfg import __version__

PYTHON_MODEL = {"1/model.py": "# never executed\n"}
BROKEN = (
    'name: "bad"\nbackend: "python"\nmax_batch_sise: 8\ninstance_group [ { kind: KIND_GPUS } ]\n'
)
FIXABLE = 'name: "fixable"\nbackend: "python"\ninstance_group [ { kind: KIND_GPUS } ]\n'
CLEAN = 'name: "clean"\nbackend: "python"\n'
BROKEN_LINES = ["models/bad/config.pbtxt:3:1: TC002 ", "models/bad/config.pbtxt:4:26: TC005 "]
VERDICT = "Found 2 errors, 0 warnings, 1 info (2 models, 2 config files)."
# under the verdict of text and concise output (cli/fix_report.py): TC005's fix is safe, TC002's not
FIXABLE_LINE = "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`)."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (the working directory of every run) with a broken and a clean model."""
    make_model(tmp_path / "models", "bad", BROKEN, files=PYTHON_MODEL)
    make_model(tmp_path / "models", "clean", CLEAN, files=PYTHON_MODEL)
    return tmp_path


def lint(project: Path, *args: str) -> tuple[str, str, int]:
    done = run("lint", "models", *args, cwd=project)
    assert "Traceback" not in done.stderr
    return done.stdout, done.stderr, done.returncode


# --- exit status ---------------------------------------------------------------------------


def test_exit_zero_passes_a_run_with_errors_and_still_reports_them(project: Path) -> None:
    out, _, status = lint(project, "--format", "concise")
    assert status == 1
    assert lint(project, "--format", "concise", "--exit-zero") == (out, "", 0)
    # a usage error is not a finding: it still exits 2
    _, err, status = lint(project, "--exit-zero", "--select", "TC9999")
    assert status == 2 and "TC9999" in err


def test_exit_non_zero_on_fix_fails_a_run_that_fixed_everything(tmp_path: Path) -> None:
    def fix(*args: str) -> int:
        return lint(tmp_path, "--fix", "--select", "TC0", *args)[2]

    config = (
        make_model(tmp_path / "models", "fixable", FIXABLE, files=PYTHON_MODEL) / "config.pbtxt"
    )
    assert fix() == 0  # fixed, nothing remains: ruff's default passes
    assert "KIND_GPU " in config.read_text()
    config.write_text(FIXABLE)
    assert fix("--exit-non-zero-on-fix") == 1
    assert "KIND_GPUS" not in config.read_text()
    assert fix("--exit-non-zero-on-fix") == 0  # nothing left to fix
    config.write_text(FIXABLE)
    assert fix("--exit-non-zero-on-fix", "--exit-zero") == 0  # --exit-zero wins, as in ruff
    assert "KIND_GPUS" not in config.read_text()


# --- where the report goes, and how much is said -------------------------------------------


def test_output_file_holds_the_report_and_its_summary_without_colour(project: Path) -> None:
    printed, _, _ = lint(project, "--format", "concise")
    target = project / "reports" / "lint" / "concise.txt"  # its folders are made, as by ruff
    out, err, status = lint(project, "-f", "concise", "-o", str(target), "--color", "always")
    assert (out, err, status) == ("", "", 1)
    assert target.read_text() == printed
    assert "\x1b[" not in target.read_text() and target.read_text().endswith(
        f"{VERDICT}\n{FIXABLE_LINE}\n"
    )


def test_output_file_is_replaced_whole_and_a_directory_is_refused(project: Path) -> None:
    target = project / "lint.json"
    target.write_text("an older, longer report " * 1000)
    assert lint(project, "--format", "json", "--output-file", "lint.json")[2] == 1
    document = json.loads(target.read_text())
    assert {d["code"] for d in document["diagnostics"]} == {"TC002", "TC005", "TC009"}
    assert not [p for p in project.iterdir() if p.name.startswith(".lint.json")]  # no temp left
    (project / "out").mkdir()
    _, err, status = lint(project, "-o", "out")
    assert status == 2 and "out: is a directory" in err


def test_silent_prints_nothing_and_exits_by_the_findings(project: Path) -> None:
    assert lint(project, "--silent") == ("", "", 1)
    assert lint(project, "-s", "--exit-zero") == ("", "", 0)
    clean = run("lint", "models/clean", "-s", cwd=project)
    assert (clean.stdout, clean.stderr, clean.returncode) == ("", "", 0)
    # errors are still shown, and -s with an output file still writes the report asked for
    _, err, status = lint(project, "-s", "--select", "TC9999")
    assert status == 2 and "TC9999" in err
    assert lint(project, "-s", "-f", "concise", "-o", "r.txt") == ("", "", 1)
    assert (project / "r.txt").read_text().startswith(BROKEN_LINES[0])


@pytest.mark.parametrize("pair", [("-q", "-s"), ("-s", "-v"), ("--quiet", "--verbose")])
def test_quiet_silent_and_verbose_exclude_each_other(project: Path, pair: tuple[str, str]) -> None:
    out, err, status = lint(project, *pair)
    assert (out, status) == ("", 2)
    assert "cannot be used with" in err


def test_verbose_says_settings_models_and_cache_hits_on_stderr(project: Path) -> None:
    (project / "tritoncfg.toml").write_text('ignore = ["TC9"]\n')
    quiet_out = lint(project, "-f", "concise", "--no-cache")[0]
    out, err, status = lint(project, "-f", "concise", "-v")
    assert (out, status) == (quiet_out, 1)  # stdout is the report, unchanged
    lines = err.splitlines()
    assert all(line.startswith("tritoncfg: debug: ") for line in lines)
    assert f"tritoncfg: debug: settings file: {(project / 'tritoncfg.toml').resolve()}" in lines
    assert f"tritoncfg: debug: cache: {(project / '.tritoncfg_cache').resolve()}" in lines
    assert "tritoncfg: debug: found 2 models, 2 config files" in lines
    assert "tritoncfg: debug: cache hits: 0 of 2 models" in lines
    assert {"tritoncfg: debug: linted: bad", "tritoncfg: debug: linted: clean"} <= set(lines)
    (project / "models" / "clean" / "config.pbtxt").write_text(CLEAN + "# edited\n")
    err = lint(project, "-f", "concise", "-v")[1]
    assert "tritoncfg: debug: cache hits: 1 of 2 models" in err.splitlines()
    assert "linted: clean" in err and "linted: bad" not in err
    isolated = lint(project, "-v", "--isolated")[1]
    assert "tritoncfg: debug: settings file: none (--isolated)" in isolated.splitlines()


# --- versions ------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["-V"], ["--version"], ["version"], ["version", "-f", "text"]])
def test_version_flag_and_command(args: list[str]) -> None:
    done = run(*args)
    assert (done.stdout, done.returncode) == (f"tritoncfg {__version__}\n", 0)


def test_version_as_json() -> None:
    done = run("version", "--format", "json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["version"] == __version__


# --- formats: the environment's default, the new ones, --statistics ------------------------


def test_output_format_from_the_environment_and_the_flag_wins(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRITONCFG_OUTPUT_FORMAT", "json-lines")
    # `lint PATH` alone takes the fast path (cli/main.py); with an option, Typer: both read it
    for args in ([], ["--quiet"]):
        out, _, status = lint(project, *args)
        assert status == 1
        assert [json.loads(line)["code"] for line in out.splitlines()] == [
            "TC002",
            "TC005",
            "TC009",
        ]
    assert lint(project, "-f", "concise")[0].startswith(BROKEN_LINES[0])
    monkeypatch.setenv("TRITONCFG_OUTPUT_FORMAT", "yaml")
    for args in ([], ["--quiet"]):
        out, err, status = lint(project, *args)
        assert (out, status) == ("", 2)
        assert "TRITONCFG_OUTPUT_FORMAT" in err and "'yaml' is not one of" in err
    monkeypatch.setenv("TRITONCFG_OUTPUT_FORMAT", "")  # empty: unset, as Click reads it
    assert lint(project)[0].endswith(f"{VERDICT}\n{FIXABLE_LINE}\n")


def test_concise_json_lines_and_gitlab_from_the_command_line(project: Path) -> None:
    out, _, status = lint(project, "--format", "concise")
    lines = out.splitlines()
    assert status == 1 and len(lines) == 5 and lines[-2:] == [VERDICT, FIXABLE_LINE]
    assert all(line.startswith(prefix) for line, prefix in zip(lines, BROKEN_LINES, strict=False))
    # ruff's concise output marks a fixable finding too: TC005's fix is safe, TC002's is not
    assert lines[1].startswith(BROKEN_LINES[1] + "[*] ") and "[*]" not in lines[0]
    assert lint(project, "--format", "concise", "-q")[0].splitlines() == lines[:-2]
    out, _, status = lint(project, "--format", "json-lines")
    assert status == 1 and [json.loads(line)["line"] for line in out.splitlines()] == [3, 4, 1]
    out, _, status = lint(project, "--format", "gitlab")
    issues = json.loads(out)
    assert status == 1 and [i["check_name"] for i in issues] == ["TC002", "TC005", "TC009"]
    assert {i["location"]["path"] for i in issues} == {"models/bad/config.pbtxt"}


def test_statistics_prints_the_table_not_the_findings(project: Path) -> None:
    out, _, status = lint(project, "--statistics")
    assert status == 1
    *table, verdict = out.splitlines()
    assert verdict == VERDICT  # the table ends with the verdict, as ruff's
    assert [row.split()[:3] for row in table] == [
        ["1", "TC002", "error"],
        ["1", "TC005", "error"],
        ["1", "TC009", "info"],
    ]
    assert "max_batch_sise" not in out and "|" not in out  # no finding, no source line
    assert lint(project, "--statistics", "-q")[0].splitlines() == table
    assert lint(project, "--statistics", "-f", "concise")[0] == out


def test_statistics_as_json_and_refused_in_other_formats(project: Path) -> None:
    out, _, status = lint(project, "--statistics", "--format", "json")
    assert status == 1
    statistics = json.loads(out)
    assert [(s["code"], s["name"], s["count"]) for s in statistics] == [
        ("TC002", "unknown-field", 1),
        ("TC005", "unknown-enum-value", 1),
        ("TC009", "checks-skipped", 1),
    ]
    assert all(set(s) == {"code", "name", "count", "fixable", "fixable_count"} for s in statistics)
    assert [s["fixable"] for s in statistics] == [False, True, False]  # TC005 has a safe fix
    for fmt in ("sarif", "github", "junit", "json-lines", "gitlab"):
        out, err, status = lint(project, "--statistics", "--format", fmt)
        assert (out, status) == ("", 2)
        assert f"not --format {fmt}" in err


def test_help_lists_the_output_options() -> None:
    done = run("lint", "--help")
    squeezed = re.sub(r"[\s│╭╮╰╯─]", "", done.stdout)  # wrapped and framed: compare unframed
    for option in (
        "--exit-zero",
        "--exit-non-zero-on-fix",
        "--output-file",
        "--silent",
        "--verbose",
        "--statistics",
        "TRITONCFG_OUTPUT_FORMAT",
        "json-lines",
        "gitlab",
        "concise",
    ):
        assert option in squeezed, option


def test_diff_names_files_as_the_findings_do(project: Path) -> None:
    """`lint --diff`'s headers are relative to the working directory, as findings and
    `fmt --diff` show paths; the file is left as it was."""
    make_model(project / "models", "fixable", FIXABLE, files=PYTHON_MODEL)
    config = project / "models" / "fixable" / "config.pbtxt"
    out, _, status = lint(project, "--unsafe-fixes", "--diff")
    assert status == 1
    assert "--- models/fixable/config.pbtxt\n+++ models/fixable/config.pbtxt\n" in out, out
    assert "+instance_group [ { kind: KIND_GPU } ]" in out and str(project) not in out
    assert config.read_text() == FIXABLE
