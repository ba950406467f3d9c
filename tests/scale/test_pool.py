"""The process pool gives the serial run's diagnostics, in the same order."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from scalekit import config, model_name, write_repository

import tritoncfg.lintdriver
from tritoncfg.api import lint
from tritoncfg.checks.core.selection import PathFilters
from tritoncfg.lintrun import (
    CHUNKS_PER_PROCESS,
    LAST_CHUNK,
    POOL_MIN_MODELS,
    chunk_bounds,
    processes,
)

MODELS = 320


def test_pool_output_is_the_serial_output(tmp_path: Path) -> None:
    root = write_repository(tmp_path / "repo", MODELS)
    # a rate-limiter resource global in the first model and per-device in the last: TC731's
    # repository-wide index, built in whichever process needs it first, sees both
    for name, scope in (("a_limited", "global: true "), ("z_limited", "")):
        (root / name / "1").mkdir(parents=True)
        (root / name / "1" / "model.py").write_text("# never executed\n", encoding="utf-8")
        (root / name / "config.pbtxt").write_text(
            'backend: "python"\ninstance_group [ { kind: KIND_CPU rate_limiter { resources '
            f'[ {{ name: "R" {scope}count: 1 }} ] }} }} ]\n',
            encoding="utf-8",
        )

    serial = lint(root, jobs=1)
    pooled = lint(root, jobs=3)

    assert sorted(d.model for d in serial.diagnostics if d.code == "TC731") == [
        "a_limited",
        "z_limited",
    ]
    codes = {d.code for d in serial.diagnostics}
    # parse errors, batching errors, ensemble steps missing or broken, used suppressions
    assert {"TC001", "TC203", "TC520"} <= codes, sorted(codes)
    assert not any(
        d.code == "TC203" and d.model == model_name(77) for d in serial.diagnostics
    )  # suppressed by its comment (77 is a multiple of 7 and 11)
    assert any(d.code == "TC203" and d.model == model_name(7) for d in serial.diagnostics)
    assert pooled.diagnostics == serial.diagnostics
    assert pooled.sources == serial.sources
    assert pooled.file_paths == serial.file_paths
    assert (pooled.files, pooled.models) == (serial.files, serial.models)
    assert serial.models == MODELS + 2
    everything = ["a_limited", *(model_name(i) for i in range(MODELS)), "z_limited"]
    assert sorted(pooled.relinted) == sorted(serial.relinted) == everything


def test_the_pool_that_scans_gives_the_serial_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository given whole is scanned by the workers as they lint: the repository
    findings inside a model directory still go with that model (its suppression comments apply
    to them), an excluded model's layout issues are still reported, and the root's own."""
    root = write_repository(tmp_path / "repo", MODELS)
    outside = tmp_path / "outside.onnx"
    outside.write_bytes(b"not a model")
    for index in (3, 22):  # 22: its config suppresses TC102 for the whole file
        (root / model_name(index) / "1" / "model.onnx").symlink_to(outside)
    (root / model_name(22) / "config.pbtxt").write_text(
        "# tritoncfg: noqa-file TC102\n" + config(22, MODELS), encoding="utf-8"
    )
    (root / model_name(5) / "1" / "model.onnx").symlink_to(outside)  # excluded below
    (root / ".ipynb_checkpoints").mkdir()
    filters = PathFilters(base=root, exclude=(f"{model_name(5)}/",))
    pooled_by_scanning = []
    scanning = tritoncfg.lintdriver._lint_scanning
    monkeypatch.setattr(
        tritoncfg.lintdriver,
        "_lint_scanning",
        lambda *args: pooled_by_scanning.append(True) or scanning(*args),
    )

    serial = lint(root, filters=filters, jobs=1)
    pooled = lint(root, filters=filters, jobs=2)

    assert pooled_by_scanning == [True]  # the pool that scans ran, the serial lint did not
    symlinks = [Path(d.path).parent.parent.name for d in serial.diagnostics if d.code == "TC102"]
    # 22's is suppressed by its config (found by the repository rules, routed to the model);
    # the excluded model's is reported all the same
    assert sorted(symlinks) == [model_name(3), model_name(5)]
    assert any(d.code == "TC101" for d in serial.diagnostics)
    assert model_name(5) not in serial.relinted
    assert any(d.code == "TC203" for d in serial.diagnostics)  # the models were linted
    assert pooled.diagnostics == serial.diagnostics
    assert pooled.sources == serial.sources
    assert pooled.file_paths == serial.file_paths
    # every model but the excluded, and the hidden directory (a model to Triton), without config
    expected = (MODELS - 1, MODELS)
    assert (pooled.files, pooled.models) == (serial.files, serial.models) == expected
    assert pooled.relinted == serial.relinted


def test_the_pool_starts_only_for_large_repositories() -> None:
    assert processes(None, POOL_MIN_MODELS - 1) == 1
    assert processes(1, 10_000) == 1
    assert processes(4, 3) == 3
    assert processes(None, 10_000) >= 1


def test_a_step_linted_and_forgotten_still_informs_its_ensemble(tmp_path: Path) -> None:
    """Lint holds one model at a time (a linted model is forgotten, its memory freed): an
    ensemble linted after its broken step still reports the step, as when the step is only its
    context (the ensemble's directory linted alone)."""
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.selection import RuleSelection
    from tritoncfg.lintrun import Linter, LintJob
    from tritoncfg.repository import discover

    root = write_repository(tmp_path / "repo", 40)  # m0000..m0039; m0013, m0026: parse errors
    broken, ensemble = model_name(26), model_name(30)  # 30's steps: 31 and "missing_step"
    (root / ensemble / "config.pbtxt").write_text(
        config(30, 40).replace('"missing_step"', f'"{broken}"'), encoding="utf-8"
    )

    # a model with another config: its alternative is loaded and checked too (TC915), and let go
    # with it
    (root / model_name(1) / "configs").mkdir()
    (root / model_name(1) / "configs" / "prod.pbtxt").write_text(
        'backend: "python"\nmax_batch_size: 4\ndynamic_batching { preferred_batch_size: [ 16 ] }\n',
        encoding="utf-8",
    )

    whole = lint(root, jobs=1)
    alone = lint(root / ensemble, jobs=1)
    assert any(d.code == "TC915" and d.model == model_name(1) for d in whole.diagnostics)

    def about_step(result: object) -> list[tuple[str, str]]:
        return [
            (d.code, d.message)
            for d in result.diagnostics  # type: ignore[attr-defined]
            if d.model == ensemble and broken in d.message
        ]

    assert about_step(alone), [d.code for d in alone.diagnostics]  # the step's error is there
    assert about_step(whole) == about_step(alone)
    # and the linter keeps only the step models ensembles asked for (they may be asked again)
    repository = discover(root)
    job = LintJob(
        LintOptions(), tuple(RuleSelection().active_codes()), RuleSelection(), PathFilters()
    )
    linter = Linter((repository,), job, [])
    for directory in repository.models:
        linter.outcome(linter.workspace.adopt(directory, repository))
        assert linter.workspace.models == []
    peers = {id(m) for m in linter.workspace._peers.values() if m is not None}
    completed = set(linter.ctx._completions)
    assert completed and completed <= peers and len(peers) <= 10  # 4 ensembles, 2 steps each


def test_routed_findings_meet_the_model_suppressions_without_a_second_lint(tmp_path: Path) -> None:
    """`settle`: a repository finding routed to a model after it was linted is suppressed by its
    config's comment, and only then is a comment that suppressed nothing reported (TC010)."""
    from tritoncfg.checks import LintOptions
    from tritoncfg.checks.core.selection import RuleSelection
    from tritoncfg.diagnostics import Diagnostic, Severity
    from tritoncfg.lintrun import Linter, LintJob, ModelOutcome, settle
    from tritoncfg.repository import discover
    from tritoncfg.text.span import NO_LINE

    root = write_repository(tmp_path / "repo", 1)
    config_path = root / model_name(0) / "config.pbtxt"
    text = config_path.read_text(encoding="utf-8")
    config_path.write_text("# tritoncfg: noqa-file TC102\n" + text, encoding="utf-8")
    repository = discover(root)
    selection = RuleSelection()
    job = LintJob(LintOptions(), tuple(selection.active_codes()), selection, PathFilters())
    path = str(root / model_name(0) / "1" / "model.onnx")
    routed = (Diagnostic("TC102", "symlink", Severity.ERROR, "a link", path, NO_LINE),)

    def unsettled() -> ModelOutcome:
        linter = Linter((repository,), job, [])
        return linter.outcome(linter.workspace.adopt(repository.models[0], repository))

    first = unsettled()
    assert len(first.suppressions) == 1  # the comment was read, its verdict left for `settle`
    assert "TC010" not in {d.code for d in first.diagnostics}
    suppressed = settle(first, routed, job)
    assert suppressed.suppressions == ()
    assert not {"TC102", "TC010"} & {d.code for d in suppressed.diagnostics}
    alone = settle(unsettled(), (), job)
    assert "TC010" in {d.code for d in alone.diagnostics}  # the comment suppressed nothing


@pytest.mark.parametrize(("size", "count"), [(20000, 2), (20000, 16), (2000, 2), (300, 2), (5, 2)])
def test_chunks_cover_the_models_in_order_and_shrink_towards_the_end(size: int, count: int) -> None:
    bounds = chunk_bounds(size, count)
    assert bounds[0][0] == 0 and bounds[-1][1] == size
    assert all(end == first for (_, end), (first, _) in itertools.pairwise(bounds))
    sizes = [end - first for first, end in bounds]
    assert sizes == sorted(sizes, reverse=True)  # never larger than the one before
    assert max(sizes) == -(-size // (count * CHUNKS_PER_PROCESS))
    assert all(s >= LAST_CHUNK for s in sizes[:-1]) or max(sizes) < LAST_CHUNK
    # the last chunks are small: the processes finish within a few models of each other
    assert sum(sizes[-count:]) <= count * LAST_CHUNK
