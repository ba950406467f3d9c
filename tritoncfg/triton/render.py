"""Rendering `verify` (a Rich table of verdicts, or the lint JSON contract plus a `verify`
section) and `diff` (field paths, old → new). Rich is imported here only, when text is drawn."""

from __future__ import annotations

import json
from typing import Any, TextIO

from tritoncfg.diagnostics import Diagnostic
from tritoncfg.report.formats import shown_path
from tritoncfg.triton.semantic_diff import Change
from tritoncfg.triton.verdict import ModelVerdict
from tritoncfg.triton.verify import VerifyReport

_STATE_TEXT = {
    "READY": "loaded",
    "REJECTED": "rejected",
    "BACKEND_UNAVAILABLE": "backend not available on this server",
    "AGENT_UNAVAILABLE": "repository agent not available on this server",
    "DEPENDENCY_FAILED": "a step model did not load",
}


def _relative(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d.moved(shown_path(d.path)) for d in diagnostics]


def _tritoncfg_cell(verdict: ModelVerdict) -> str:
    if not verdict.tritoncfg_errors:
        return "no error"
    codes = sorted({d.code for d in verdict.tritoncfg_errors})
    count = len(verdict.tritoncfg_errors)
    return f"{count} error{'s' if count != 1 else ''} ({', '.join(codes)})"


def _triton_cell(verdict: ModelVerdict) -> str:
    text = _STATE_TEXT[verdict.triton_state]
    step = next((e.dependency for e in verdict.triton_errors if e.dependency), None)
    if step is not None:
        return f"step model '{step}' did not load"
    if verdict.triton_state == "REJECTED" and verdict.triton_errors:
        text += f": {verdict.triton_errors[0].message}"  # whole: the table wraps it
    return text


def _agree_cell(verdict: ModelVerdict) -> str:
    if not verdict.verified:
        return "n/a"
    if verdict.agree:
        return "yes"
    if verdict.triton_state == "READY":
        return "NO: Triton loads it"
    return "NO: tritoncfg found no error"


def render_verify_text(out: TextIO, report: VerifyReport, *, color: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    from tritoncfg.report.console import rich_console
    from tritoncfg.report.text import render_text

    lint = report.lint
    sources = {shown_path(p): text for p, text in lint.sources.items()}
    render_text(
        out,
        _relative(report.diagnostics),
        sources,
        files=lint.files,
        models=lint.models,
        color=color,
        summary=False,
    )
    console = rich_console(out, color=color, highlight=False, width=_width(out))
    if report.server is None:
        console.print("No model to load.")
        return
    title = f"Triton {report.server.version or '?'} ({report.server.origin})"
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("model", no_wrap=True)
    table.add_column("tritoncfg", overflow="fold")
    table.add_column("Triton", overflow="fold", ratio=1)
    table.add_column("agree", no_wrap=True)
    for verdict in report.models:
        agree = _agree_cell(verdict)
        style = "red" if agree.startswith("NO") else ("dim" if agree == "n/a" else "green")
        table.add_row(  # Text, not markup: Triton's messages hold brackets ("dims [1,2]")
            Text(verdict.model),
            Text(_tritoncfg_cell(verdict)),
            Text(_triton_cell(verdict)),
            Text(agree, style=style),
        )
    console.print(table)
    for verdict in report.models:
        if verdict.note:
            console.print(f"  {verdict.model}: {verdict.note}", markup=False, soft_wrap=True)
    console.print(_summary(report), markup=False, soft_wrap=True)


def _width(out: TextIO) -> int | None:
    return None if out.isatty() else 160


def _summary(report: VerifyReport) -> str:
    states = [m.triton_state for m in report.models]
    loaded = states.count("READY")
    unverified = sum(not m.verified for m in report.models)
    rejected = len(report.rejected)
    compared = [m for m in report.models if m.verified]
    agreed = sum(m.agree for m in compared)
    parts = [f"{loaded} loaded", f"{rejected} rejected"]
    if unverified:
        parts.append(f"{unverified} not verifiable on this server")
    return (
        f"Triton: {', '.join(parts)}; tritoncfg agrees on {agreed} of {len(compared)} "
        f"model{'s' if len(compared) != 1 else ''} Triton could judge."
    )


def verify_json(report: VerifyReport) -> dict[str, Any]:
    """The lint JSON contract (`tritoncfg lint --format json`) plus a `verify` section."""
    from tritoncfg.report.json import render_json

    lint = report.lint
    document: dict[str, Any] = json.loads(
        render_json(_relative(report.diagnostics), files=lint.files, models=lint.models)
    )
    document["verify"] = {
        "server": None if report.server is None else report.server.to_json(),
        "gpus": list(report.gpus),
        "models": [{**m.to_json(), "path": shown_path(m.config_path)} for m in report.models],
        "summary": {
            "models": len(report.models),
            "loaded": sum(m.triton_state == "READY" for m in report.models),
            "rejected": len(report.rejected),
            "unverified": sum(not m.verified for m in report.models),
            "disagreements": len(report.disagreements),
        },
    }
    return document


def render_changes(
    out: TextIO, title: str, changes: list[Change], labels: dict[str, str] | None = None
) -> None:
    """`title` then one `path: old → new` line per change (with its label, when given)."""
    out.write(f"{title}\n")
    if not changes:
        out.write("  (no differences)\n")
    for change in changes:
        label = (labels or {}).get(change.path)
        out.write(f"  {change}" + (f"  [{label}]" if label else "") + "\n")
