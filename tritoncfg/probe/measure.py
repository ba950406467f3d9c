"""Timing one point the way perf_analyzer does: measurement windows until three in a row agree.

A window lasts `--window-ms` and holds at least `--runs` timed runs. Windows are repeated until
`STABLE_WINDOWS` consecutive windows agree, max / min within `--stability-percentage`
(perf_analyzer's `--stability-percentage`), or `--max-windows` have run (the point is then
"unstable"). The statistics come from the samples of the windows that agreed (else the last
three); the spread (min..max of every window's figure, and their coefficient of variation)
from all of them.

A window's figure is its median latency, where perf_analyzer takes the mean: on a busy CPU a
process is preempted for milliseconds at a time, and one such run among thousands of 10 us runs
doubles a window's mean while its median stays put (measured here: window means of one model
ranging 20-94 us, their medians 10-11 us). For the same reason the throughput is the batch size
over the fastest window's median: other work on the machine adds time to some windows and never
takes any away (here the same model's windows switched between two speeds, 6 and 10 us, from one
second to the next), so it is the figure that repeats from run to run.

A percentile is only named when there are enough samples for it to be one (nearest rank:
p99 needs 100, p95 20, p90 10, p50 2); otherwise the report names what it has ("max of 40").
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from tritoncfg.probe.contract import ProbeSettings
from tritoncfg.record import field, record

STABLE_WINDOWS = 3  # perf_analyzer's: three consecutive windows must agree
PERCENTILES = ("p50", "p90", "p95", "p99")
DIGITS = 4  # ms rounded to 0.1 us: a small model's runs take a few us


@record
class Measurement:
    """What the windows of one point measured (milliseconds)."""

    samples: list[float]  # the latencies of the three windows that agreed (else the last three)
    window_medians: list[float]  # every window's median latency, in order
    stable: bool
    batch: int = 1
    latency_ms: dict[str, float | None] = field(default_factory=dict)

    @property
    def throughput(self) -> float | None:
        """Inferences per second at the fastest window's median latency."""
        fastest = min(self.window_medians) if self.window_medians else 0.0
        return None if fastest <= 0 else self.batch / (fastest / 1000.0)

    @property
    def spread_ms(self) -> tuple[float, float]:
        return min(self.window_medians), max(self.window_medians)

    @property
    def cv(self) -> float:
        """The coefficient of variation of the window medians (0 with one window)."""
        if len(self.window_medians) < 2:
            return 0.0
        mean = statistics.fmean(self.window_medians)
        return 0.0 if mean <= 0 else statistics.pstdev(self.window_medians) / mean


class Windows:
    """One point's measurement windows as they are added: stable from the first three
    consecutive windows that agree (their samples give the statistics), done then or once
    `max_windows` have run (unstable: the latest three give them). `measure` adds windows back
    to back; probe adds them in turn with the model's other points (execute.py), and a point
    that is stable goes on adding windows until they all are: they widen its spread and may
    find its fastest window, never move its statistics."""

    def __init__(self, settings: ProbeSettings, batch: int) -> None:
        self.settings, self.batch = settings, batch
        self.windows: list[list[float]] = []
        self.medians: list[float] = []
        self.agreed: int | None = None  # the index after the first three that agreed

    @property
    def stable(self) -> bool:
        return self.agreed is not None

    @property
    def exhausted(self) -> bool:
        """`max_windows` have run (at least three)."""
        return len(self.windows) >= max(self.settings.max_windows, STABLE_WINDOWS)

    @property
    def done(self) -> bool:
        return self.stable or self.exhausted

    def add(self, window: list[float]) -> None:
        self.windows.append(window)
        self.medians.append(statistics.median(window))
        latest = self.medians[-STABLE_WINDOWS:]
        if self.agreed is None and len(latest) == STABLE_WINDOWS and agree(latest, self.settings):
            self.agreed = len(self.windows)

    def measurement(self) -> Measurement:
        end = self.agreed or len(self.windows)
        chosen = self.windows[max(end - STABLE_WINDOWS, 0) : end]
        samples = [s for window in chosen for s in window]
        return Measurement(samples, self.medians, self.stable, self.batch, latencies(samples))


def measure(run: Callable[[], list[float]], settings: ProbeSettings, batch: int) -> Measurement:
    """Time `run` (one execution: the latencies it measured, ms) in windows until stable."""
    found = Windows(settings, batch)
    while not found.done:
        found.add(window(run, settings))
    return found.measurement()


def window(run: Callable[[], list[float]], settings: ProbeSettings) -> list[float]:
    """One window: at least `window_ms` of host time and at least `timed_runs` runs."""
    samples: list[float] = []
    runs = 0
    end = time.perf_counter() + settings.window_ms / 1000.0
    while runs < max(settings.timed_runs, 1) or time.perf_counter() < end:
        samples.extend(run())
        runs += 1
    return samples


def agree(figures: list[float], settings: ProbeSettings) -> bool:
    """Whether the windows' figures agree: max / min within the stability percentage."""
    low, high = min(figures), max(figures)
    if low <= 0:
        return high <= 0
    return (high / low - 1.0) * 100.0 <= settings.stability_percentage


def latencies(samples: list[float]) -> dict[str, float | None]:
    """p50..p99 (None where there are too few samples to call it that), max and mean."""
    ordered = sorted(samples)
    found: dict[str, float | None] = {}
    for name in PERCENTILES:
        q = int(name[1:])
        # nearest rank q is its own statistic only with n >= 100 / (100 - q) samples
        enough = len(ordered) * (100 - q) >= 100 and len(ordered) >= 2
        found[name] = _rank(ordered, q) if enough else None
    found["max"] = round(ordered[-1], DIGITS) if ordered else None
    found["mean"] = round(statistics.fmean(ordered), DIGITS) if ordered else None
    return found


def _rank(ordered: list[float], q: int) -> float:
    rank = max(1, -(-q * len(ordered) // 100))
    return round(ordered[rank - 1], DIGITS)


def tail(latency: dict[str, float | None], samples: int) -> tuple[str, float | None]:
    """The highest tail percentile the samples support, named ("p99"), or "max of 8" (below 10
    samples, when p90 is not one yet)."""
    for name in reversed(PERCENTILES[1:]):
        value = latency.get(name)
        if value is not None:
            return name, value
    return f"max of {samples}", latency.get("max")


__all__ = [
    "DIGITS",
    "PERCENTILES",
    "STABLE_WINDOWS",
    "Measurement",
    "Windows",
    "agree",
    "latencies",
    "measure",
    "tail",
    "window",
]
