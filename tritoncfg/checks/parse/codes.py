"""The codes rule selection must know without importing the parse rules (which import the text
parser and the schema): a config Triton cannot read is always an error, and TC009 says why the
other checks did not run. text_format.py declares these rules; a test keeps the two equal."""

from __future__ import annotations

# text-format-syntax-error .. unreadable-config: text_format.PARSE_ERRORS
PARSE_ERRORS = frozenset({"TC001", "TC002", "TC003", "TC004", "TC005", "TC006", "TC007"})
CHECKS_SKIPPED_CODE = "TC009"  # checks-skipped: text_format.CHECKS_SKIPPED
