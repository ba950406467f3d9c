"""`make docs`: regenerate docs/rules.md from the rules, and the lint options' tables in
docs/cli.md and docs/linting.md from their declarations (tritoncfg/options/table.py); a test
fails when either is stale. The rule table, tritoncfg/checks/rules.tsv, is hand-edited: the
rules are declared from it."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from tritoncfg.checks.core.docs import rules_markdown
    from tritoncfg.checks.core.index import load_rules
    from tritoncfg.options.markdown import regenerate, sections

    RULES = load_rules()
    write(ROOT / "docs" / "rules.md", rules_markdown(sorted(RULES.values(), key=lambda r: r.code)))
    for name, generated in sections().items():
        target = ROOT / name
        write(target, regenerate(target.read_text(encoding="utf-8"), generated))
    return 0


def write(target: Path, text: str) -> None:
    if target.exists() and target.read_text(encoding="utf-8") == text:
        print(f"unchanged {target.relative_to(ROOT)}")
        return
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
