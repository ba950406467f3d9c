"""Differential test: tritoncfg's parser against `google.protobuf.text_format.Parse` on the corpora.

Verdict (accept/reject) must agree on every file, and accepted files must give equal messages.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CORPUS, corpus_config_files, require_corpus
from google.protobuf import text_format

from tritoncfg.schema import ModelConfig
from tritoncfg.text import parse


def _reference(text: str) -> ModelConfig | None:
    message = ModelConfig()
    try:
        text_format.Parse(text, message)
    except text_format.ParseError:
        return None
    return message


def test_parser_agrees_with_text_format_on_every_corpus_file() -> None:
    require_corpus()
    files = corpus_config_files()
    assert len(files) > 500, f"expected the whole corpus, found {len(files)} files"
    disagreements: list[str] = []
    accepted = rejected = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        ours = parse(text, str(path))
        reference = _reference(text)
        rel = path.relative_to(CORPUS)
        if reference is None:
            rejected += 1
            if ours.ok:
                disagreements.append(f"{rel}: text_format rejects, tritoncfg accepts")
        else:
            accepted += 1
            if not ours.ok:
                disagreements.append(
                    f"{rel}: text_format accepts, tritoncfg rejects: {ours.errors[0]}"
                )
            elif ours.message != reference:
                disagreements.append(f"{rel}: messages differ")
    total = accepted + rejected
    agree = total - len(disagreements)
    print(
        f"\nparser differential: {agree}/{total} files agree ({100 * agree / total:.1f}%); "
        f"{accepted} accepted (message equal), {rejected} rejected by both"
    )
    assert not disagreements, "\n".join(disagreements)


def test_corpus_listing_covers_both_corpora() -> None:
    require_corpus()
    files = corpus_config_files()
    assert any("real_world" in Path(p).parts for p in files)
    assert any("triton_qa" in Path(p).parts for p in files)
