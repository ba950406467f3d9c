"""Configs that public repositories ship as working (../shared/corpus/real_world, issue 3) lint
without an ERROR.

Each config is linted in its own temp copy of its model dir, placed in a temp repository beside
the other model dirs of its upstream repository (an ensemble needs its steps), with the files
LAYOUT.tsv lists (binaries and code were not copied) recreated as empty files, so that model files
exist for backend detection. Triton's default mode; one GPU, since these
ship for GPU servers. `${var}` templates (is_template=yes) are left out.

Run with `-s` to see the counts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

from corpus import REAL_WORLD, copy_tree, read_tsv, require_corpus, touch
from real_world_gaps import CODES, CORPUS_GAPS, propose

from tritoncfg.api import lint
from tritoncfg.checks import LintOptions
from tritoncfg.diagnostics import Diagnostic, Severity
from tritoncfg.text import parse

GPUS: tuple[int, ...] = (0,)

# case_id -> why the config is right to fail (it does not load in Triton either, or not in the
# setting linted here). Filled by the lead only, with justified entries.
REAL_WORLD_EXCEPTIONS: dict[str, str] = {
    "dali_backend__qa__L0_many_versions__model_repository__dali_specific__config.pbtxt": (
        "the QA test creates the `specific` version folders at run time; the corpus has only 1/"
    ),
    "onnxruntime_backend___readme_snippets__block1.pbtxt": (
        "a README fragment that is not valid text format upstream (INDEX: MALFORMED UPSTREAM); Triton rejects it too"
    ),
    "python_backend__examples__instance_kind__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__L0_backend_python__io__requested_output_model__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__L0_register__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__L0_response_cache__models__decoupled_cache__config.pbtxt": (
        "a QA fixture that must fail: response cache on a decoupled model (Triton rejects it, L0_response_cache checks that)"
    ),
    "server__qa__python_models__execute_delayed_model__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__python_models__pytorch_fp32_fp32__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__python_models__sequence_int32__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__python_models__torchvision__resnet50__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "server__qa__python_models__wrong_model__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "tutorials__Feature_Guide__Data_Pipelines__model_repository__ensemble_model__1__config.pbtxt": (
        'ensemble_scheduling without platform "ensemble" (INDEX: LIKELY BROKEN UPSTREAM); Triton rejects it with the same message'
    ),
    "tutorials__Quick_Deploy__PyTorch__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
    "tutorials__Quick_Deploy__TensorFlow__config.pbtxt": (
        "TC107: deployed under a directory named after its `name` (the QA test.sh or the tutorial copies it there); the corpus keeps the upstream folder name"
    ),
}


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


def siblings(row: dict[str, str]) -> list[dict[str, str]]:
    """The other configs of the same upstream model repository (e.g. an ensemble's steps)."""
    if synthetic_dir(row):
        return []
    folder = (REAL_WORLD / row["corpus_path"]).parent.parent
    return [
        other
        for other in index_rows()
        if other is not row
        and other["is_template"] != "yes"
        and not synthetic_dir(other)
        and (REAL_WORLD / other["corpus_path"]).parent.parent == folder
    ]


def materialize(row: dict[str, str], work: Path) -> Path:
    """A temp repository holding this config's model dir and its sibling model dirs (context for
    cross-model checks); returns the model dir."""
    for other in siblings(row):
        _materialize_one(other, work)
    return _materialize_one(row, work)


def _materialize_one(row: dict[str, str], work: Path) -> Path:
    config = REAL_WORLD / row["corpus_path"]
    model = work / "models" / model_name(row)
    if model.exists():
        return model
    if config.name == "config.pbtxt":
        copy_tree(config.parent, model)
    else:  # its folder holds other configs, not a model dir: the config alone
        model.mkdir(parents=True)
        (model / "config.pbtxt").write_bytes(config.read_bytes())
    for rel in layout_rows().get(row["case_id"], []):
        touch(model / rel)
    if not any(p.is_dir() and p.name.isdigit() for p in model.iterdir()):
        # Upstream ships these without a version folder (git keeps no empty dirs, and examples
        # say "copy model.py into 1/"): deploy them the way their READMEs and test.sh do.
        version = model / "1"
        version.mkdir()
        for entry in model.iterdir():
            if (
                entry.is_file() and entry.name.startswith("model.")
            ) or entry.name == "model.savedmodel":
                touch(version / entry.name)
    for version in (p for p in model.iterdir() if p.is_dir() and p.name.isdigit()):
        if _backend(model) == "python" and not (version / "model.py").exists():
            touch(version / "model.py")  # python examples ship model.py beside the config
    return model


def _backend(model: Path) -> str:
    config = model / "config.pbtxt"
    return parse(config.read_text(encoding="utf-8")).message.backend if config.exists() else ""


def corpus_files(row: dict[str, str]) -> frozenset[str]:
    """The paths (relative to the model dir, `/`-separated) the corpus holds for this config's
    model dir: its folder's files (none for a synthetic folder) and what LAYOUT.tsv lists."""
    files = set(layout_rows().get(row["case_id"], []))
    if not synthetic_dir(row):
        folder = (REAL_WORLD / row["corpus_path"]).parent
        files.update(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    return frozenset(files)


def set_aside_gaps(
    row: dict[str, str], errors: list[Diagnostic]
) -> tuple[list[Diagnostic], list[str], list[str]]:
    """The errors no entry of CORPUS_GAPS accounts for, the kinds of the entries used, and a line
    per stale entry (its reason no longer holds of the corpus, or its finding no longer comes)."""
    case = row["case_id"]
    provided = {model_name(r): r for r in [row, *siblings(row)]}
    left, used, stale = list(errors), [], []
    for gap in CORPUS_GAPS.get(case, ()):
        model = provided.get(gap.model)
        why = gap.stale_because(frozenset(provided), None if model is None else corpus_files(model))
        if why is None and not any(gap.matches(d) for d in errors):
            why = f"lint no longer reports {CODES[gap.kind]} for it"
        if why is not None:
            stale.append(f"  {case}: {gap} ({gap.reason()}): {why}")
            continue
        left = [d for d in left if not gap.matches(d)]
        used.append(gap.kind)
    return left, used, stale


def errors_of(row: dict[str, str], work: Path) -> tuple[list[Diagnostic], bool]:
    """The ERROR diagnostics, and whether the model dir has a numeric (version) folder."""
    model = materialize(row, work)
    # model-files = "optional": upstream repositories ship these configs without their model
    # files (fetched or built at deploy time), exactly the case the opt-out is for; LAYOUT.tsv
    # recreates only the files it lists
    options = LintOptions(triton_mode="default", gpus=GPUS, model_files="optional")
    diagnostics = lint(model, options).diagnostics
    versioned = any(
        p.is_dir() and p.name.isdigit() for p in (REAL_WORLD / row["corpus_path"]).parent.iterdir()
    )
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
        gap = propose(d)
        if gap is not None:
            lines.append(f"      if the corpus lacks it (check!), CORPUS_GAPS entry: {gap}")
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
    assert set(CORPUS_GAPS) <= ids, set(CORPUS_GAPS) - ids
    linted = [r for r in rows if r["is_template"] != "yes"]
    by_case: dict[str, list[Diagnostic]] = {}
    unversioned: list[str] = []
    crashes: list[str] = []
    gaps: Counter[str] = Counter()
    stale_gaps: list[str] = []
    for number, row in enumerate(linted):
        try:
            errors, versioned = errors_of(row, tmp_path / f"case{number:03d}")
        except Exception as error:  # one crash must not hide the other results
            crashes.append(f"  {row['case_id']}: {type(error).__name__}: {error}")
            continue
        errors, used, stale = set_aside_gaps(row, errors)
        gaps.update(used)
        stale_gaps += stale
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
        f"{len(crashes)} crashed; {len(unversioned)} ship without a version folder (given `1/`, "
        "with the model.* files of the model dir, as their READMEs deploy them)\n"
        + "set aside as corpus gaps (each checked against its case): "
        + f"{sum(gaps.values())} of {sum(len(g) for g in CORPUS_GAPS.values())} entries "
        + f"in {len(CORPUS_GAPS)} configs ("
        + (", ".join(f"{kind} {CODES[kind]} x{n}" for kind, n in sorted(gaps.items())) or "none")
        + ")"
        + "\nerrors by code:"
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
    if stale_gaps:
        problems.append(
            "CORPUS_GAPS entries whose reason no longer holds (remove or fix them):\n"
            + "\n".join(stale_gaps)
        )
    assert not problems, summary + "\n\n" + "\n\n".join(problems)
