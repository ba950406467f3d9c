"""Formatter properties on every real_world corpus config: meaning kept, idempotent, no comment lost."""

from __future__ import annotations

from corpus import CORPUS, REAL_WORLD, require_corpus

from tritoncfg.text import parse
from tritoncfg.text.parser import SyntaxProblem, parse_tree
from tritoncfg.text.printer import format_source


def _comment_texts(source: str) -> list[str]:
    return [c.text for c in parse_tree(source).comments()]


def test_format_properties_hold_on_every_real_world_config() -> None:
    require_corpus(REAL_WORLD)
    files = sorted(REAL_WORLD.rglob("*.pbtxt"))
    assert len(files) > 300
    failures: list[str] = []
    comments_total = 0
    changed = 0
    unparsable = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(CORPUS)
        try:
            once = format_source(source)
        except SyntaxProblem:
            # fmt refuses text that is not text format: here `${var}` templates and a doc fragment
            assert "${" in source or "_readme_snippets" in rel.parts, f"{rel} does not parse"
            unparsable += 1
            continue
        twice = format_source(once)
        changed += once != source
        before, after = parse(source), parse(once)
        if before.ok != after.ok or before.message != after.message:
            failures.append(f"{rel}: parse(fmt(x)) != parse(x)")
        if [e.message for e in before.errors] != [e.message for e in after.errors]:
            failures.append(f"{rel}: errors changed")
        if once != twice:
            failures.append(f"{rel}: fmt is not idempotent")
        original_comments = _comment_texts(source)
        comments_total += len(original_comments)
        if original_comments != _comment_texts(once):
            failures.append(f"{rel}: comments lost or reordered")
    print(
        f"\nfmt properties: {len(files) - unparsable - len(failures)}/{len(files) - unparsable} "
        "text-format real_world configs pass; "
        f"{changed} reformatted, {comments_total} comments all kept in order; "
        f"{unparsable} not text format (syntax error, left alone)"
    )
    assert not failures, "\n".join(failures)
