"""The forked pool: results in order, a killed worker's item run once more or given up, a
worker's error raised in the parent, and no worker left behind."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from prockit import descendants

from tritoncfg.processes.pool import WorkerError, run_chunks, working_on

CHUNKS = [(0, 4), (4, 8), (8, 12), (12, 16)]


def _squares(bounds: tuple[int, int]) -> list[int]:
    found = []
    for index in range(*bounds):
        working_on(index)
        found.append(index * index)
    return found


def _nothing() -> None:
    return None


def test_the_results_come_in_order() -> None:
    results, lost = run_chunks(3, _squares, CHUNKS, _nothing)
    assert (results, lost) == ([i * i for i in range(16)], [])


def _killing_at(victim: int, marker: Path | None) -> Callable[[tuple[int, int]], list[int]]:
    """Work that SIGKILLs its own worker at `victim`: every time, or the first time only (while
    `marker` does not exist yet)."""

    def work(bounds: tuple[int, int]) -> list[int]:
        found = []
        for index in range(*bounds):
            working_on(index)
            if index == victim and (marker is None or not marker.exists()):
                if marker is not None:
                    marker.touch()
                os.kill(os.getpid(), signal.SIGKILL)
            found.append(index * index)
        return found

    return work


def test_a_killed_worker_s_item_is_run_once_more(tmp_path: Path) -> None:
    results, lost = run_chunks(2, _killing_at(6, tmp_path / "killed"), CHUNKS, _nothing)
    assert (tmp_path / "killed").exists()  # a worker was killed at item 6
    assert (results, lost) == ([i * i for i in range(16)], [])


def test_an_item_whose_worker_dies_twice_is_lost_and_the_rest_done() -> None:
    results, lost = run_chunks(2, _killing_at(6, None), CHUNKS, _nothing)
    assert [(item.index, item.how) for item in lost] == [(6, "killed by SIGKILL")]
    assert results == [None if i == 6 else i * i for i in range(16)]


def _failing(bounds: tuple[int, int]) -> list[int]:
    if bounds[0] == 8:
        raise ValueError("a bug in the work")
    return _squares(bounds)


def test_a_worker_s_error_is_raised_with_its_traceback() -> None:
    children_before = set(descendants(os.getpid()))
    with pytest.raises(WorkerError, match="ValueError: a bug in the work"):
        run_chunks(2, _failing, CHUNKS, _nothing)
    assert set(descendants(os.getpid())) <= children_before  # every worker reaped
