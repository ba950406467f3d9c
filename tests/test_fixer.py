"""`lint --fix` passes: every fix that overlaps no other is applied in one pass, and a file with
more repeated fields than a lint reports (MAX_TEXT_ERRORS) is fixed in as many passes as it
takes, not cut off at MAX_PASSES."""

from __future__ import annotations

from pathlib import Path

from lintkit import make_model

from tritoncfg.diagnostics import Diagnostic, Fix, Severity
from tritoncfg.fixer import MAX_PASSES, _apply, fix
from tritoncfg.text.bind import MAX_TEXT_ERRORS
from tritoncfg.text.edits import Edit
from tritoncfg.text.span import Span

HEAD = 'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 4\n'


def _fixed(tmp_path: Path, repeats: int) -> tuple[str, int]:
    make_model(tmp_path / "repo", "m", HEAD + "max_batch_size: 4\n" * repeats)
    outcome = fix(tmp_path / "repo")
    assert "TC003" not in [d.code for d in outcome.result.diagnostics]
    assert len(outcome.applied) == repeats
    (text,) = outcome.after.values()
    return text, outcome.passes


def test_two_thousand_adjacent_repeats_take_two_passes(tmp_path: Path) -> None:
    text, passes = _fixed(tmp_path, 2_000)
    assert text == HEAD
    assert passes == 2_000 // MAX_TEXT_ERRORS  # each pass fixes every repeat the lint reported


def test_more_repeats_than_max_passes_can_report_are_all_fixed(tmp_path: Path) -> None:
    repeats = (MAX_PASSES + 1) * MAX_TEXT_ERRORS  # was: 1,000 left after MAX_PASSES
    text, passes = _fixed(tmp_path, repeats)
    assert text == HEAD
    assert passes == MAX_PASSES + 1


def _diagnostic(*spans: Span) -> Diagnostic:
    edits = tuple(Edit(span, "") for span in spans)
    return Diagnostic(
        "TC003", "duplicate-field", Severity.ERROR, "x", "c", spans[0], fix=Fix("drop", edits)
    )


def test_a_fix_that_overlaps_one_taken_waits_and_touching_fixes_do_not() -> None:
    source = "a: 1\nb: 2\nc: 3\nd: 4\n"
    first = _diagnostic(Span(1, 1, 2, 1))  # line 1
    touching = _diagnostic(Span(2, 1, 3, 1))  # line 2: starts where the first ends
    overlapping = _diagnostic(Span(1, 3, 3, 1))  # part of line 1 and line 2
    own_overlap = _diagnostic(Span(4, 1, 4, 3), Span(4, 2, 5, 1))  # its two edits overlap
    apart = _diagnostic(Span(3, 1, 3, 3), Span(4, 1, 5, 1))  # line 3's "c:" and line 4
    edited, used = _apply(source, [first, touching, overlapping, own_overlap, apart])
    assert used == [first, touching, apart]
    assert edited == " 3\n"
