"""The requests a simulation serves: when each arrives, its batch size, priority and timeout.

A trace file has one request per line: `TIME_MS [BATCH [PRIORITY [TIMEOUT_US]]]`, separated by
spaces or commas; TIME_MS counts from any origin and need not be sorted (requests are served in
time order, a tie in file order); `#` starts a comment. BATCH defaults to 1, PRIORITY to 0
(the default level), TIMEOUT_US to 0 (none; the request's own timeout, which only a queue policy
with `allow_timeout_override` uses).
"""

from __future__ import annotations

import random
from pathlib import Path

from tritoncfg.record import record
from tritoncfg.tune.batcher import SimulationInputError


@record
class Arrivals:
    times: list[float]  # µs, ascending
    sizes: list[int] | None = None  # None: every request is one row
    priorities: list[int] | None = None
    timeouts: list[int] | None = None  # µs; 0 = none

    def __len__(self) -> int:
        return len(self.times)


def poisson(rate: float, count: int, rng: random.Random) -> Arrivals:
    """`count` requests at `rate` per second, exponential gaps."""
    gap = rng.expovariate
    per_us = rate / 1e6
    times = []
    now = 0.0
    for _ in range(count):
        now += gap(per_us)
        times.append(now)
    return Arrivals(times)


def constant(rate: float, count: int) -> Arrivals:
    """`count` requests exactly 1/rate apart."""
    step = 1e6 / rate
    return Arrivals([i * step for i in range(count)])


_COLUMNS = ("TIME_MS", "BATCH", "PRIORITY", "TIMEOUT_US")


def read_trace(path: Path) -> Arrivals:
    """A trace file (module docstring). Raises SimulationInputError at the file, line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SimulationInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SimulationInputError(f"{path}: not a text file ({exc.reason})") from None
    rows: list[tuple[float, int, int, int, int]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0]
        cells = _cells(content)
        if not cells:
            continue
        if len(cells) > len(_COLUMNS):
            column = cells[len(_COLUMNS)][0]
            raise SimulationInputError(
                f"{path}:{number}:{column}: at most {len(_COLUMNS)} values per line "
                f"({' '.join(_COLUMNS)})"
            )
        values = [
            _value(path, number, cell, name) for cell, name in zip(cells, _COLUMNS, strict=False)
        ]
        time_ms = values[0]
        given = values[1:]
        batch, priority, timeout = (int(v) for v in (*given, *(1, 0, 0)[len(given) :]))
        if len(values) > 1 and batch < 1:
            raise SimulationInputError(f"{path}:{number}:{cells[1][0]}: BATCH must be >= 1")
        rows.append((time_ms * 1000.0, len(rows), batch, priority, timeout))
    if not rows:
        raise SimulationInputError(f"{path}: no requests (one `TIME_MS [BATCH ...]` per line)")
    rows.sort()
    origin = rows[0][0]
    return Arrivals(
        [r[0] - origin for r in rows],
        [r[2] for r in rows] if any(r[2] != 1 for r in rows) else None,
        [r[3] for r in rows] if any(r[3] for r in rows) else None,
        [r[4] for r in rows] if any(r[4] for r in rows) else None,
    )


def _cells(content: str) -> list[tuple[int, str]]:
    """(1-based column, text) of each value on a line."""
    cells = []
    column = 0
    for part in content.replace(",", " ").split(" "):
        if part.strip():
            cells.append((column + 1 + len(part) - len(part.lstrip()), part.strip()))
        column += len(part) + 1
    return cells


def _value(path: Path, line: int, cell: tuple[int, str], name: str) -> float:
    column, text = cell
    try:
        value = float(text) if name == "TIME_MS" else int(text)
    except ValueError:
        kind = "a number" if name == "TIME_MS" else "a whole number"
        raise SimulationInputError(
            f"{path}:{line}:{column}: {name} {text!r} is not {kind}"
        ) from None
    if value < 0 or value != value or value == float("inf"):
        raise SimulationInputError(f"{path}:{line}:{column}: {name} {text!r} is out of range")
    return value
