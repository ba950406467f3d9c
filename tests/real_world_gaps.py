"""The ERRORs a real-world config gets only because the corpus does not hold everything its
upstream deploys: one entry per case, each with a reason the test checks against the corpus.

The corpus keeps configs, not model files, custom backends or models a QA test.sh generates at
run time. Each `Gap` names the finding it accounts for (its kind gives the code; the model the
finding is about; the step model, backend, agent or file the message names) and the fact that
explains it ("step model 'x' is not in the corpus folder"). The test fails an entry as stale when
that fact no longer holds (the file is in the corpus now) or when the finding no longer comes.

The entries are in real_world_gaps.tsv. To add one, run the real-world test: an unexpected ERROR of one of these kinds is printed with
the `Gap(...)` line that would account for it; add it only if its reason is true of the case.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from tritoncfg.diagnostics import Diagnostic

GapKind = Literal["step_missing", "step_fails", "model_file", "backend", "repo_agent", "label_file"]

CODES: dict[GapKind, str] = {
    "step_missing": "TC520",
    "step_fails": "TC522",
    "model_file": "TC110",
    "backend": "TC120",
    "repo_agent": "TC124",
    "label_file": "TC331",
}


@dataclass(frozen=True)
class Gap:
    kind: GapKind
    model: str  # the model the finding is about (an ensemble's finding shows under its steps too)
    subject: str = ""  # the step model, backend, agent or label file the message names
    missing: str = ""  # step_fails: the step's own step model that the corpus lacks

    def reason(self) -> str:
        return {
            "step_missing": f"step model '{self.subject}' of ensemble '{self.model}' is not in "
            "the corpus folder (the QA test copies or generates it at run time)",
            "step_fails": f"step model '{self.subject}' of '{self.model}' is in the corpus, "
            f"but its own step '{self.missing}' is not",
            "model_file": f"no model file of '{self.model}' is in the corpus (it is fetched or "
            "built at deploy time), so the backend cannot be detected from it",
            "backend": f"custom backend '{self.subject}', installed by the upstream's QA image or "
            f"host; the corpus holds no libtriton_{self.subject}.so",
            "repo_agent": f"repository agent '{self.subject}', installed by the upstream's QA "
            f"image; the corpus holds no libtritonrepoagent_{self.subject}.so",
            "label_file": f"label file '{self.subject}' of '{self.model}' is not in the corpus",
        }[self.kind]

    def matches(self, diagnostic: Diagnostic) -> bool:
        return (
            diagnostic.code == CODES[self.kind]
            and diagnostic.model == self.model
            and (not self.subject or f"'{self.subject}'" in diagnostic.message)
        )

    def stale_because(self, models: frozenset[str], files: frozenset[str] | None) -> str | None:
        """Why the reason no longer holds, or None. `models`: the models the corpus provides to
        this case (the config's own and its siblings'); `files`: the paths (relative, `/`) the
        corpus holds in the model dir of `self.model`, None if it provides no such model."""
        if self.kind == "step_missing":
            return f"the corpus now holds '{self.subject}'" if self.subject in models else None
        if self.kind == "step_fails":
            if self.subject not in models:
                return f"the corpus no longer holds '{self.subject}'"
            return f"the corpus now holds '{self.missing}'" if self.missing in models else None
        if files is None:
            return f"the corpus provides no model '{self.model}' to this case"
        wanted = {
            "model_file": re.compile(r"(^|/)model\.[^/]+$"),
            "backend": re.compile(rf"(^|/)libtriton_{re.escape(self.subject)}\.so$"),
            "repo_agent": re.compile(rf"(^|/)libtritonrepoagent_{re.escape(self.subject)}\.so$"),
            "label_file": re.compile(rf"^{re.escape(self.subject)}$"),
        }[self.kind]
        present = sorted(f for f in files if wanted.search(f))
        return f"the corpus now holds {', '.join(present)}" if present else None


_PROPOSALS: tuple[tuple[GapKind, re.Pattern[str]], ...] = (
    ("step_missing", re.compile(r"runs model '([^']+)', which is not in the repository")),
    (
        "step_fails",
        re.compile(r"runs model '([^']+)', which .*not available or ambiguous: ([^)]+)"),
    ),
    ("model_file", re.compile(r"()")),
    ("backend", re.compile(r"backend '([^']+)'")),
    ("repo_agent", re.compile(r"repository agent '([^']+)'")),
    ("label_file", re.compile(r"label file '([^']+)'")),
)


def propose(diagnostic: Diagnostic) -> Gap | None:
    """The entry that would account for `diagnostic`, if it is of a gap kind (to be checked by
    hand before it is added: the reason must be true of the case)."""
    for kind, pattern in _PROPOSALS:
        found = pattern.search(diagnostic.message)
        if diagnostic.code == CODES[kind] and found and diagnostic.model:
            groups = (*found.groups(), "")
            return Gap(kind, diagnostic.model, groups[0], groups[1] if kind == "step_fails" else "")
    return None


TABLE = Path(__file__).with_name("real_world_gaps.tsv")


def _read_table() -> dict[str, tuple[Gap, ...]]:
    """real_world_gaps.tsv: one row per entry (case_id, kind, model, subject, missing), written
    with `propose` over the corpus and read case by case."""
    gaps: dict[str, list[Gap]] = {}
    with TABLE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            kind = row["kind"]
            if kind not in CODES:
                raise ValueError(f"{TABLE.name}: unknown kind {kind!r} for {row['case_id']}")
            gap = Gap(cast(GapKind, kind), row["model"], row["subject"], row["missing"])
            gaps.setdefault(row["case_id"], []).append(gap)
    return {case: tuple(entries) for case, entries in gaps.items()}


CORPUS_GAPS: dict[str, tuple[Gap, ...]] = _read_table()
