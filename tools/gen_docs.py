"""`make docs`: regenerate docs/rules.md and the rule index (tritoncfg/checks/rule_index.tsv) from
the rules (tests fail when either is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fresh_index() -> str:
    """rule_index.tsv as the rules say, in the order the families register them: run in a
    process that has imported no family yet."""
    from importlib import import_module

    from tritoncfg.checks.core.index import FAMILIES, index_text
    from tritoncfg.checks.core.registry import RULES

    for family in FAMILIES:
        import_module(f"tritoncfg.checks.{family}")
    return index_text(RULES.values())


def main() -> int:
    from tritoncfg.checks.core.docs import rules_markdown
    from tritoncfg.checks.core.index import INDEX_FILE
    from tritoncfg.checks.core.registry import RULES

    write(INDEX_FILE, fresh_index())
    write(ROOT / "docs" / "rules.md", rules_markdown(sorted(RULES.values(), key=lambda r: r.code)))
    return 0


def write(target: Path, text: str) -> None:
    if target.exists() and target.read_text(encoding="utf-8") == text:
        print(f"unchanged {target.relative_to(ROOT)}")
        return
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
