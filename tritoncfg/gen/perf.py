"""Measurements for `gen dynamic-batching --from-perf`: perf_analyzer CSVs and probe reports, and
the rule that turns them into a preferred batch size and a queue delay.

perf_analyzer's `-f` CSV (`report_writer.cc`, `ReportWriter::GenerateReport`) has one header line,
a first column `Concurrency` or `Request Rate`, `Inferences/Second`, and latency columns
(`p50 latency` ... `p99 latency`) in integer microseconds. It has no batch-size column: the client
batch size is perf_analyzer's `-b`. A batch-size sweep is therefore given either as one CSV with
a `Batch` column the user adds (the `-b` of each row), or as one file per `-b`, written `B=FILE`.

Per batch size, the throughput is the best `Inferences/Second` of its rows and the latency is the
p99 (else p95, p90, p50, avg) of its lowest-load row; the notes name the one used. Without a
latency budget the sizes up to max_batch_size go through the rule `probe --suggest` applies too
(tritoncfg/batch_rule.py, docs/gen.md): the smallest size reaching 90% of the best throughput and
the best one. With a budget, `tritoncfg tune`'s search picks the sizes and the queue delay
(simulated.py).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from tritoncfg.batch_rule import RULE, Measured, latency_text, pick, probe_spread
from tritoncfg.gen.change import GenUsageError
from tritoncfg.record import record

LOAD_COLUMNS = ("Concurrency", "Request Rate")
THROUGHPUT = "Inferences/Second"
LATENCIES = ("p99 latency", "p95 latency", "p90 latency", "p50 latency", "Avg latency")
BATCH_COLUMNS = ("Batch", "Batch Size", "batch_size")
SPREAD = {"p50 latency": 0.5, "p90 latency": 0.9, "p95 latency": 0.95, "p99 latency": 0.99}
Spread = tuple[tuple[float, float], ...]
Point = Measured  # latency_us: the p99 (or the highest percentile measured) at the lowest load


@record(frozen=True)
class Choice:
    preferred: tuple[int, ...]
    delay_us: int | None
    notes: tuple[str, ...]


def read_perf(spec: str, model: str, notes: list[str] | None = None) -> list[Point]:
    """Points from `FILE` or `B=FILE` (a perf_analyzer CSV) or a probe JSON report (a `.json`
    file, or one whose text starts with `{`). Raises GenUsageError naming the file (and for a
    syntax error or a bad row, its line and column). A probe report adds to `notes` how stable
    its curve was."""
    batch, _, name = spec.rpartition("=") if "=" in spec else ("", "", spec)
    path = Path(name)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise GenUsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise GenUsageError(f"{path}: not a text file ({exc.reason})") from None
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("{", "[")):
        return read_probe_report(path, text, model, notes)
    fixed = None
    if batch:
        if not batch.isdigit() or int(batch) < 1:
            raise GenUsageError(f"--from-perf {spec}: expected B=FILE with B a batch size >= 1")
        fixed = int(batch)
    return read_perf_csv(path, text, fixed)


def read_perf_csv(path: Path, text: str, batch: int | None) -> list[Point]:
    reader = csv.reader(text.splitlines())
    try:
        header = next(reader, [])
        load = next((c for c in LOAD_COLUMNS if c in header), None)
        if load is None or THROUGHPUT not in header:
            raise GenUsageError(
                f"{path}:1:1: not a perf_analyzer -f CSV (needs a '{LOAD_COLUMNS[0]}' or "
                f"'{LOAD_COLUMNS[1]}' column and '{THROUGHPUT}')"
            )
        batch_column = next((c for c in BATCH_COLUMNS if c in header), None)
        latency_column = next((c for c in LATENCIES if c in header), None)
        percentile = _percentile(latency_column)
        spread_columns = [(SPREAD[c], c) for c in LATENCIES if c in header and c in SPREAD]
        grouped: dict[int, list[tuple[float, float, float | None, Spread]]] = {}
        for cells in reader:
            if not cells:
                continue  # a blank line
            row = _Row(path, reader.line_num, header, cells)
            size = int(row.number(batch_column, low=1)) if batch_column else (batch or 1)
            latency = row.number(latency_column) if latency_column else None
            spread = tuple(sorted((q, row.number(c)) for q, c in spread_columns))
            grouped.setdefault(size, []).append(
                (row.number(load), row.number(THROUGHPUT), latency, spread)
            )
    except csv.Error as exc:
        raise GenUsageError(f"{path}:{reader.line_num}:1: not a CSV: {exc}") from None
    points = []
    for size, found in sorted(grouped.items()):
        _, _, latency, spread = min(found, key=lambda v: v[0])
        points.append(Point(size, max(v[1] for v in found), latency, percentile, spread))
    return points


def _percentile(column: str | None) -> str:
    """`p95 latency` -> `p95`; `Avg latency` -> `avg`."""
    return column.split()[0].lower() if column else "p99"


@record(frozen=True)
class _Row:
    """One CSV row, read as numbers; a bad cell is a GenUsageError at its line and column."""

    path: Path
    line: int
    header: list[str]
    cells: list[str]

    def number(self, column: str, low: float = 0) -> float:
        index = self.header.index(column)
        value = self.cells[index] if index < len(self.cells) else ""
        try:
            number = float(value)
        except ValueError:
            shown = f"{value!r} is not a number" if value.strip() else "missing"
            raise GenUsageError(f"{self._at(index)}: '{column}': {shown}") from None
        if number < low or (low >= 1 and not number.is_integer()):
            raise GenUsageError(f"{self._at(index)}: '{column}': {value!r} is out of range")
        return number

    def _at(self, index: int) -> str:
        """Where cell `index` starts (perf_analyzer quotes nothing: the cells before it and
        their commas), or the end of a row that stops before it."""
        column = 1 + sum(len(cell) + 1 for cell in self.cells[:index])
        return f"{self.path}:{self.line}:{min(column, len(','.join(self.cells)) + 1)}"


def read_probe_report(
    path: Path, text: str, model: str, notes: list[str] | None = None
) -> list[Point]:
    """Per batch size, one OK point of the model in a `tritoncfg probe --format json` report (the
    `opt` shape point when there are several, as `probe --suggest` reads it): its throughput and
    the highest latency percentile its samples support (p99, p95, p90, p50; else "max of N").
    Points whose measurement windows never agreed (`stability.stable` false) are left out, and
    `notes` says how many. In an ensemble's entry, the points of the step `model`."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GenUsageError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg} "
            "(--from-perf reads a `tritoncfg probe --format json` report or a perf_analyzer CSV)"
        ) from None
    try:
        models = document["models"]
        entry = next((m for m in models if m.get("model") == model), None)
        if entry is None:
            entry = next((m for m in models if _step_points(m, model)), None)
        if entry is None and len(models) == 1:
            entry = models[0]
        if entry is None:
            raise GenUsageError(f"{path}: the probe report has no model '{model}'")
        points = _step_points(entry, model) or entry.get("points") or []
        found, unstable = _probe_points(points)
    except (ValueError, KeyError, TypeError, AttributeError):
        raise GenUsageError(
            f"{path}: not a tritoncfg probe report (see docs/gen.md for the fields read)"
        ) from None
    if notes is not None:
        total = len(found) + len(unstable)
        shown = ", ".join(map(str, unstable))
        left = f"; left out as unstable: batch {shown}" if unstable else ""
        notes.append(f"curve: {total} batch sizes measured, {len(found)} stable{left}")
    return found


def _step_points(entry: dict[str, Any], model: str) -> list[dict[str, Any]]:
    """The points an ensemble's entry ran on its step `model`."""
    return [p for p in entry.get("points") or [] if p.get("step") == model]


def _probe_points(points: list[dict[str, Any]]) -> tuple[list[Point], list[int]]:
    """The stable points, one per batch size, and the batch sizes left out as unstable."""
    chosen: dict[int, dict[str, Any]] = {}
    for point in points:
        size, rate = point.get("batch_size"), point.get("throughput")
        if point.get("status") != "OK" or size is None or rate is None:
            continue
        at_opt = "opt" in (point.get("reasons") or ())
        if size not in chosen or (at_opt and "opt" not in (chosen[size].get("reasons") or ())):
            chosen[int(size)] = point
    unstable = [
        s for s in sorted(chosen) if (chosen[s].get("stability") or {}).get("stable") is False
    ]
    found = [_probe_point(s, chosen[s]) for s in sorted(chosen) if s not in unstable]
    return found, unstable


def _probe_point(size: int, point: dict[str, Any]) -> Point:
    """The point's throughput and tail latency, named as `probe --suggest` names it (measure.py):
    p99, p95 or p90 where the samples make it one, else their max ("max of 8"); a report
    without `samples` (older) is taken at its word."""
    from tritoncfg.probe.measure import tail

    latency = point.get("latency_ms") or {}
    samples = point.get("samples")
    if samples is None:  # before probe counted samples: p99 (else p90, p50) as written
        key = next((k for k in ("p99", "p90", "p50") if latency.get(k) is not None), "p99")
        name, ms = key, latency.get(key)
    else:
        name, ms = tail(latency, int(samples))
    rate = float(point["throughput"])
    return Point(size, rate, None if ms is None else ms * 1000.0, name, probe_spread(latency))


def choose(points: list[Point], max_batch_size: int) -> Choice:
    """The preferred sizes the measurements support without a latency budget
    (tritoncfg/batch_rule.py); no queue delay."""
    usable = usable_points(points, max_batch_size)
    found = pick(usable)
    return Choice(found.sizes, None, (f"rule: {RULE}", *measured_notes(usable), *found.why))


def usable_points(points: list[Point], max_batch_size: int) -> list[Point]:
    """The points up to max_batch_size; GenUsageError for fewer than two batch sizes."""
    usable = [p for p in points if p.batch_size <= max_batch_size]
    if len({p.batch_size for p in usable}) < 2:
        raise GenUsageError(
            "the measurements need at least two batch sizes up to max_batch_size "
            f"{max_batch_size} (run perf_analyzer with several -b; see docs/gen.md)"
        )
    return usable


def measured_notes(points: list[Point]) -> list[str]:
    """One note per measured batch size: its throughput and latency."""
    notes = []
    for point in sorted(points, key=lambda p: p.batch_size):
        latency = (
            ""
            if point.latency_us is None
            else f", {latency_text(point.latency_us, point.percentile)}"
        )
        notes.append(f"batch {point.batch_size}: {point.throughput:,.1f} infer/s{latency}")
    return notes
