"""Code and docs cite Triton's sources and the project's docs, never the research notes beside the
checkout: no validation-rule ids (T + V/N + digits), no section signs, no notes file names.

The checkout must make sense without `../shared`, so a comment says `model_lifecycle.cc:
VersionsToLoad`, not the id of a research note about it. Tests may still read the corpus there
by path (`../shared/corpus/...`); what is checked here is citing the notes as the authority.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("tritoncfg", "docs", "tests", "tools", "bench", "examples", "templates", "README.md")
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache"}

_NOTES = ("availability", "probe-design", "generators", "peers", "triton-validation-rules")
FORBIDDEN = re.compile(
    r"\bT[VN][0-9]{2,3}[a-z]?\b"  # rule ids of the research notes
    "|\u00a7"  # section sign: "spec <sign>6", "<notes>.md <sign>1.2"
    r"|shared/spec\b"
    "|" + "|".join(re.escape(name) + r"\.md\b" for name in _NOTES)
)


def text_files(root: Path) -> list[Path]:
    """Every readable text file under the scanned roots, relative to `root`."""
    found: list[Path] = []
    for name in SCANNED:
        top = root / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in candidates:
            if path.is_file() and not SKIPPED_DIRS.intersection(path.parts):
                found.append(path.relative_to(root))
    return found


def offences(root: Path) -> list[str]:
    """`path:line: text` for each forbidden reference."""
    lines: list[str] = []
    for rel in text_files(root):
        posix = rel.as_posix()
        if posix == "tests/test_citations.py":
            continue
        try:
            text = (root / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary fixtures
        for number, line in enumerate(text.splitlines(), start=1):
            if FORBIDDEN.search(line):
                lines.append(f"{posix}:{number}: {line.strip()}")
    return lines


def test_scanner_finds_each_kind_of_reference(tmp_path: Path) -> None:
    bad = [
        "see spec \u00a76",
        "TV018 says so",
        "(TN10b)",
        "availability.md, caveat 2",
        "../shared/spec/x",
        "probe-design.md",
    ]
    good = ["model_lifecycle.cc:VersionsToLoad", "TC110 and TC520", "TVM", "docs/complete.md"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("\n".join(bad + good), encoding="utf-8")
    (tmp_path / "tritoncfg" / "checks").mkdir(parents=True)
    (tmp_path / "tritoncfg" / "checks" / "r.py").write_text("# TV031\n", encoding="utf-8")
    (tmp_path / "tritoncfg" / "blob.bin").write_bytes(b"\xff\xfe TV001")

    assert offences(tmp_path) == [
        "tritoncfg/checks/r.py:1: # TV031",
        *(f"docs/a.md:{n}: {line}" for n, line in enumerate(bad, start=1)),
    ]


def test_code_and_docs_cite_triton_sources() -> None:
    scanned = {p.as_posix() for p in text_files(ROOT)}
    assert {
        "tritoncfg/complete/autofill.py",
        "tritoncfg/checks/core/registry.py",
        "docs/complete.md",
        "docs/rules.md",
        "README.md",
    } <= scanned
    found = offences(ROOT)
    assert not found, "cite Triton's source file and function instead:\n" + "\n".join(found)
