"""checks/parse/codes.py names the parse-error codes for rule selection without importing the
parse rules: they are the codes the rules in text_format.py declare."""

from __future__ import annotations

from tritoncfg.checks.parse import codes, text_format


def test_the_codes_selection_reads_are_those_the_parse_rules_declare() -> None:
    assert codes.PARSE_ERRORS == text_format.PARSE_ERRORS
    assert text_format.CHECKS_SKIPPED.code == codes.CHECKS_SKIPPED_CODE
