"""report/formats.py's FORMATS is the one list of `tritoncfg lint`'s output formats: the option's
choices and help, TRITONCFG_OUTPUT_FORMAT, --statistics and docs/cli.md all follow it, and every
entry's renderer has the one signature."""

from __future__ import annotations

import importlib
import inspect
import io
import re
from pathlib import Path

import pytest

from tritoncfg.cli.lint_options import FormatOption
from tritoncfg.cli.lint_output import environment_format
from tritoncfg.report import formats
from tritoncfg.report.formats import FORMATS, NAMES, STATISTICS_NAMES, OutputFormat, Report

ROOT = Path(__file__).resolve().parents[2]
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _resolve(target: str) -> object:
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)


@pytest.mark.parametrize("output", FORMATS, ids=lambda output: output.name)
def test_every_renderer_has_the_one_signature(output: OutputFormat) -> None:
    for target in filter(None, (output.renderer, output.statistics)):
        renderer = _resolve(target)
        assert callable(renderer)
        assert list(inspect.signature(renderer).parameters) == ["out", "report"], target


def test_the_option_and_the_environment_take_the_registry_names() -> None:
    assert [member.value for member in FormatOption] == list(NAMES)
    assert NAMES == ("text", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit")
    assert STATISTICS_NAMES == ("text", "concise", "json")


def test_the_environment_default_is_checked_against_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in NAMES:
        monkeypatch.setenv("TRITONCFG_OUTPUT_FORMAT", name)
        assert environment_format() == name
    monkeypatch.setenv("TRITONCFG_OUTPUT_FORMAT", "yaml")
    assert environment_format() is None


def test_docs_list_every_format_as_the_registry_does() -> None:
    synopsis = re.search(r"^tritoncfg lint PATH\.\.\. \[--format ([\w|-]+)\]", CLI_DOC, re.M)
    assert synopsis is not None
    assert tuple(synopsis.group(1).split("|")) == NAMES
    rows = re.findall(r"^\| `--format ([\w-]+)` \| (.*) \|$", CLI_DOC, re.M)
    assert rows == [(output.name, output.help) for output in FORMATS]


def test_a_new_format_is_one_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry names its renderer by "module:function"; nothing else needs to know it."""
    (tmp_path / "upper_format.py").write_text(
        "def render(out, report):\n"
        "    for d in report.diagnostics:\n"
        "        out.write(d.code.upper() + ' ' + d.path + '\\n')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from tritoncfg.api import lint

    model = tmp_path / "repo" / "m"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text('backend: "python"\nmax_batch_sise: 8\n')
    result = lint(model.parent)
    report = Report(result.diagnostics, result.sources, 1, 1, result.file_paths)
    out = io.StringIO()
    OutputFormat("upper", "upper_format:render", "codes").render(out, report)
    assert f"TC002 {model / 'config.pbtxt'}\n" in out.getvalue()


def test_the_report_says_which_fixes_count() -> None:
    from tritoncfg.diagnostics import Diagnostic, Fix, Severity
    from tritoncfg.text.span import Span

    span = Span(1, 1, 1, 2)
    safe = Diagnostic("TC001", "r", Severity.ERROR, "m", "p", span, fix=Fix("f", (), safe=True))
    unsafe = Diagnostic("TC001", "r", Severity.ERROR, "m", "p", span, fix=Fix("f", (), safe=False))
    plain = Report([safe, unsafe], {}, 1, 1, [])
    assert [plain.fixable(d) for d in (safe, unsafe)] == [True, False]
    assert Report([], {}, 1, 1, [], unsafe_fixes=True).fixable(unsafe)
    assert formats.named("sarif").relative is False
    assert [f.name for f in FORMATS if f.fix_report] == ["text", "concise"]


def test_every_command_shows_paths_one_way(tmp_path: Path) -> None:
    """`shown_path`, the one place a path is made relative (findings, reports, gen and verify)."""
    from tritoncfg.report.formats import shown_path

    inside = tmp_path / "repo" / "m" / "config.pbtxt"
    assert shown_path(inside, tmp_path) == "repo/m/config.pbtxt"
    assert shown_path(str(inside), tmp_path / "repo") == "m/config.pbtxt"
    assert shown_path(inside, tmp_path / "other") == str(inside)  # outside: as given
    assert shown_path("./repo/x/../m/config.pbtxt", tmp_path) == "repo/m/config.pbtxt"
    assert shown_path("gs://bucket/repo/m/config.pbtxt", tmp_path) == (
        "gs://bucket/repo/m/config.pbtxt"
    )
