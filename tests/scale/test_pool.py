"""The process pool gives the serial run's diagnostics, in the same order."""

from __future__ import annotations

from pathlib import Path

from scalekit import model_name, write_repository

from tritoncfg.api import lint
from tritoncfg.lintrun import POOL_MIN_MODELS, processes

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


def test_the_pool_starts_only_for_large_repositories() -> None:
    assert processes(None, POOL_MIN_MODELS - 1) == 1
    assert processes(1, 10_000) == 1
    assert processes(4, 3) == 3
    assert processes(None, 10_000) >= 1
