"""Configs that public repositories ship as working (../shared/corpus/real_world, issue 3) lint
without an ERROR.

Each config is linted in its own temp copy of its model dir, placed in a temp repository, with
the files LAYOUT.tsv lists for it (binaries and code were not copied) recreated as empty files,
so that model files exist for backend detection. Triton's default mode; one GPU, since these
ship for GPU servers. `${var}` templates (is_template=yes) are left out.

Run with `-s` to see the counts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

from corpus import REAL_WORLD, copy_tree, read_tsv, require_corpus, touch

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text import parse

GPUS: tuple[int, ...] = (0,)

# case_id -> why the config is right to fail (it does not load in Triton either, or not in the
# setting linted here). Filled by the lead only, with justified entries.
REAL_WORLD_EXCEPTIONS: dict[str, str] = {}


@cache
def index_rows() -> list[dict[str, str]]:
    return read_tsv(REAL_WORLD / "INDEX.tsv")


@cache
def layout_rows() -> dict[str, list[str]]:
    files: dict[str, list[str]] = defaultdict(list)
    for row in read_tsv(REAL_WORLD / "LAYOUT.tsv"):
        files[row["case_id"]].append(row["relpath_in_model_dir"])
    return files


def synthetic_dir(row: dict[str, str]) -> bool:
    """Whether the config's folder in the corpus is not its upstream model dir: a config not
    named `config.pbtxt` (its folder holds other configs), or a string extracted from a test or a
    README block (`path` has `#Lnnn` / `#blockN`; the corpus made up the folder)."""
    return "#" in row["path"] or Path(row["corpus_path"]).name != "config.pbtxt"


def model_name(row: dict[str, str]) -> str:
    """The model dir's name: its own upstream; for a synthetic folder, the config's `name`, or
    the file's stem (folder name for a `config.pbtxt`)."""
    config = REAL_WORLD / row["corpus_path"]
    if not synthetic_dir(row):
        return config.parent.name
    parsed = parse(config.read_text(encoding="utf-8"), str(config))
    fallback = config.parent.name if config.name == "config.pbtxt" else config.stem
    return parsed.message.name or fallback


def materialize(row: dict[str, str], work: Path) -> Path:
    """A temp repository holding this config's model dir; returns the model dir."""
    config = REAL_WORLD / row["corpus_path"]
    model = work / "models" / model_name(row)
    if config.name == "config.pbtxt":
        copy_tree(config.parent, model)
    else:  # its folder holds other configs, not a model dir: the config alone
        model.mkdir(parents=True)
        (model / "config.pbtxt").write_bytes(config.read_bytes())
    for rel in layout_rows().get(row["case_id"], []):
        touch(model / rel)
    return model


def errors_of(row: dict[str, str], work: Path) -> tuple[list[Diagnostic], bool]:
    """The ERROR diagnostics, and whether the model dir has a numeric (version) folder."""
    model = materialize(row, work)
    diagnostics = lint(model, LintOptions(triton_mode="default", gpus=GPUS)).diagnostics
    versioned = any(p.is_dir() and p.name.isdigit() for p in model.iterdir())
    return [d for d in diagnostics if d.severity is Severity.ERROR], versioned


def examples(cases: list[str], count: int = 3) -> list[str]:
    """A few cases, from different repositories where possible."""
    picked: list[str] = []
    for case in cases:
        if len(picked) < count and case.split("__")[0] not in {p.split("__")[0] for p in picked}:
            picked.append(case)
    picked += [c for c in cases if c not in picked][: count - len(picked)]
    return picked


def describe(case_id: str, errors: list[Diagnostic], work: Path) -> str:
    lines = [f"  {case_id}"]
    for d in errors:
        triton = d.triton.message if d.triton is not None and d.triton.message else "-"
        lines.append(f"    {d.code} {d.message} [triton: {triton}]".replace(str(work), "<tmp>"))
    return "\n".join(lines)


def test_templates_are_templates() -> None:
    require_corpus(REAL_WORLD)
    templates = [r for r in index_rows() if r["is_template"] == "yes"]
    assert templates
    plain = [
        r["case_id"]
        for r in templates
        if "${" not in (REAL_WORLD / r["corpus_path"]).read_text(encoding="utf-8")
    ]
    assert not plain, f"is_template=yes but no '${{': {plain}"


def test_real_world_configs_lint_without_errors(tmp_path: Path) -> None:
    require_corpus(REAL_WORLD)
    rows = index_rows()
    ids = {r["case_id"] for r in rows}
    assert set(REAL_WORLD_EXCEPTIONS) <= ids, set(REAL_WORLD_EXCEPTIONS) - ids
    assert set(layout_rows()) <= ids, set(layout_rows()) - ids
    linted = [r for r in rows if r["is_template"] != "yes"]
    by_case: dict[str, list[Diagnostic]] = {}
    unversioned: list[str] = []
    crashes: list[str] = []
    for number, row in enumerate(linted):
        try:
            errors, versioned = errors_of(row, tmp_path / f"case{number:03d}")
        except Exception as error:  # one crash must not hide the other results
            crashes.append(f"  {row['case_id']}: {type(error).__name__}: {error}")
            continue
        by_case[row["case_id"]] = errors
        if not versioned:
            unversioned.append(row["case_id"])
    failing = {case: errors for case, errors in by_case.items() if errors}
    by_code = Counter(d.code for errors in failing.values() for d in errors)
    cases_by_code: dict[str, list[str]] = defaultdict(list)
    for case, errors in failing.items():
        for code in sorted({d.code for d in errors}):
            cases_by_code[code].append(case)
    summary = (
        f"real_world: {len(rows)} configs, {len(by_case)} linted, "
        f"{len(rows) - len(linted)} excluded (templates), {len(failing)} with errors, "
        f"{len(crashes)} crashed; {len(unversioned)} have no numeric version folder in their "
        "corpus layout (LAYOUT.tsv lists none)\nerrors by code:"
        + "".join(
            f"\n  {code}: {count} in {len(cases_by_code[code])} configs, e.g. "
            + ", ".join(examples(cases_by_code[code]))
            for code, count in by_code.most_common()
        )
    )
    print("\n" + summary)

    unexpected = {c: e for c, e in failing.items() if c not in REAL_WORLD_EXCEPTIONS}
    stale = sorted(c for c in REAL_WORLD_EXCEPTIONS if c in by_case and not by_case[c])
    problems: list[str] = []
    if crashes:
        problems.append(f"lint raised on {len(crashes)} configs:\n" + "\n".join(crashes))
    if unexpected:
        problems.append(
            f"{len(unexpected)} shipped configs get ERROR diagnostics:\n"
            + "\n".join(describe(c, e, tmp_path) for c, e in sorted(unexpected.items()))
        )
    if stale:
        problems.append(
            "REAL_WORLD_EXCEPTIONS entries that now lint clean (remove them): " + ", ".join(stale)
        )
    assert not problems, summary + "\n\n" + "\n\n".join(problems)
