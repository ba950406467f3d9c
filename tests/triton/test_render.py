"""`verify`'s table shows Triton's whole message, wrapped, brackets and all (no server needed)."""

from __future__ import annotations

import io

from tritoncfg.api import LintResult
from tritoncfg.triton.load import TritonError
from tritoncfg.triton.render import render_verify_text
from tritoncfg.triton.verdict import ModelVerdict
from tritoncfg.triton.verify import ServerInfo, VerifyReport

MESSAGE = (
    "unable to load model 'detector', configuration expects 3 inputs, model provides 2; "
    "model input 'images' has dims [1,3,640,640] that do not match the config's dims [3,640,640]"
    " -- and this tail must be shown too"
)


def _column(text: str, index: int) -> str:
    """The text of one column of a Rich table, its wrapped lines joined."""
    cells = [line.split("│")[index + 1].strip() for line in text.splitlines() if "│" in line]
    return " ".join(cell for cell in cells if cell)


def test_verify_table_wraps_tritons_message_instead_of_cutting_it() -> None:
    verdict = ModelVerdict(
        model="detector",
        config_path="models/detector/config.pbtxt",
        triton_state="REJECTED",
        triton_errors=(TritonError("LOAD", MESSAGE),),
        tritoncfg_errors=[],
        agree=False,
    )
    report = VerifyReport(
        lint=LintResult(diagnostics=[], files=1, models=1),
        models=[verdict],
        server=ServerInfo("tritonserver", "PATH", "2.51.0", "/opt/tritonserver/backends"),
    )
    out = io.StringIO()  # not a terminal: 160 columns
    render_verify_text(out, report, color=False)
    text = out.getvalue()
    assert _column(text, 2) == f"rejected: {MESSAGE}"
    assert "..." not in text
    assert max(len(line) for line in text.splitlines()) <= 160
