"""`make docs`: regenerate docs/rules.md from the rules (a test fails when it is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from tritoncfg.checks import RULES
    from tritoncfg.checks.core.docs import rules_markdown

    target = ROOT / "docs" / "rules.md"
    text = rules_markdown([RULES[code] for code in sorted(RULES)])
    if target.exists() and target.read_text(encoding="utf-8") == text:
        print(f"unchanged {target.relative_to(ROOT)}")
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)} ({len(RULES)} rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
