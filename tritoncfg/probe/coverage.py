"""Which batch sizes probe runs: `--batch-sizes all|declared|LIST|RANGE`.

Triton's dynamic batcher forms any batch from 1 to `max_batch_size` (once the queue delay
expires, or whenever that many requests are queued: core's `dynamic_batch_scheduler.cc`), so by
default (`all`) every size 1..max_batch_size runs when max_batch_size <= `EVERY_UP_TO`; above
that 1..`DENSE_UP_TO`, every power of two with its neighbours (2^k - 1, 2^k + 1) and
max_batch_size, and the plan notes the sizes left out. `declared` runs the sizes the config
names (1, preferred, max_batch_size, warm-up, CUDA graphs); a list (`1-32,48,64`) runs those.
"""

from __future__ import annotations

from collections.abc import Iterable

from tritoncfg.record import record
from tritoncfg.schema import ModelConfig

EVERY_UP_TO = 256  # max_batch_size up to which `all` runs every size
DENSE_UP_TO = 64  # above that: every size up to this one, then powers of two and neighbours
SWEEP = "sweep"  # the reason of a batch size the config does not name


@record(frozen=True)
class BatchCoverage:
    """What `--batch-sizes` asked for: "all", "declared", or the sizes of a list."""

    mode: str = "all"  # "all", "declared" or "list"
    sizes: tuple[int, ...] = ()  # mode "list": the sizes given, ascending

    @property
    def text(self) -> str:
        return ranges_text(self.sizes) if self.mode == "list" else self.mode


ALL = BatchCoverage()


def parse_batch_sizes(text: str) -> BatchCoverage:
    """`all`, `declared`, or sizes and ranges separated by commas (`1-32,48,64`); raises
    ValueError saying what is wrong."""
    word = text.strip().lower()
    if word in ("all", "declared"):
        return BatchCoverage(word)
    sizes: set[int] = set()
    for part in text.split(","):
        low, sep, high = part.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise ValueError(
                f"--batch-sizes {text!r}: expected all, declared, or sizes and ranges such as "
                "1-32,48,64"
            )
        first, last = int(low), int(high) if sep else int(low)
        if not 1 <= first <= last:
            raise ValueError(f"--batch-sizes {text!r}: {part.strip()} needs 1 <= low <= high")
        sizes.update(range(first, last + 1))
    return BatchCoverage("list", tuple(sorted(sizes)))


def swept_sizes(max_batch_size: int) -> list[int]:
    """The sizes `all` runs for a model that batches up to `max_batch_size`."""
    if max_batch_size <= EVERY_UP_TO:
        return list(range(1, max_batch_size + 1))
    found = set(range(1, DENSE_UP_TO + 1))
    power = DENSE_UP_TO
    while power - 1 <= max_batch_size:
        found.update(s for s in (power - 1, power, power + 1) if s <= max_batch_size)
        power *= 2
    found.add(max_batch_size)
    return sorted(found)


def ranges(sizes: Iterable[int]) -> list[tuple[int, int]]:
    """Ascending sizes as runs of consecutive sizes: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    found: list[tuple[int, int]] = []
    for size in sorted(set(sizes)):
        if found and found[-1][1] == size - 1:
            found[-1] = (found[-1][0], size)
        else:
            found.append((size, size))
    return found


def ranges_text(sizes: Iterable[int]) -> str:
    """`1-32,48,64`."""
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges(sizes))


def left_out(max_batch_size: int, run: Iterable[int]) -> list[tuple[int, int]]:
    """The batch sizes in [1, max_batch_size] the dynamic batcher can send that do not run: the
    gaps between the runs of `run` (never a walk over every size: max_batch_size may be 2^31)."""
    gaps: list[tuple[int, int]] = []
    after = 1  # the first size not yet accounted for
    for low, high in ranges(s for s in run if 1 <= s <= max_batch_size):
        if low > after:
            gaps.append((after, low - 1))
        after = high + 1
    if after <= max_batch_size:
        gaps.append((after, max_batch_size))
    return gaps


def batch_sizes(
    config: ModelConfig, notes: list[str], coverage: BatchCoverage = ALL
) -> dict[int, tuple[str, ...]]:
    """The batch sizes to run and why each is there ("sweep": a size the batcher can form that
    the config does not name); {} when the model does not batch."""
    mbs = config.max_batch_size
    if mbs <= 0:
        return {}
    declared = _declared_sizes(config, notes)
    if coverage.mode == "declared":
        return declared
    wanted = swept_sizes(mbs) if coverage.mode == "all" else list(coverage.sizes)
    over = [size for size in wanted if size > mbs]
    if over:
        notes.append(f"--batch-sizes {ranges_text(over)} above max_batch_size {mbs}: not probed")
    return {s: declared.get(s, (SWEEP,)) for s in wanted if s <= mbs}


def _declared_sizes(config: ModelConfig, notes: list[str]) -> dict[int, tuple[str, ...]]:
    """1, each preferred size, max_batch_size, each warm-up and CUDA graph batch size."""
    mbs = config.max_batch_size
    found: dict[int, list[str]] = {}

    def add(size: int, why: str) -> None:
        if 1 <= size <= mbs:
            found.setdefault(size, [])
            if why not in found[size]:
                found[size].append(why)
        else:
            notes.append(f"{why} batch size {size} is outside [1, {mbs}]: not probed")

    add(1, "1")
    for size in config.dynamic_batching.preferred_batch_size:
        add(size, "preferred")
    add(mbs, "max_batch_size")
    for warmup in config.model_warmup:
        if warmup.batch_size > 0:
            add(warmup.batch_size, "warmup")
    for spec in config.optimization.cuda.graph_spec:
        if spec.batch_size > 0:
            add(spec.batch_size, "cuda_graph")
    return {size: tuple(found[size]) for size in sorted(found)}


def left_out_note(max_batch_size: int, gaps: list[tuple[int, int]]) -> str:
    """What the plan leaves out of the sizes the dynamic batcher can send."""
    shown = ",".join(str(a) if a == b else f"{a}-{b}" for a, b in gaps)
    count = sum(b - a + 1 for a, b in gaps)
    return (
        f"batch sizes left out: {shown} ({count:,} of the {max_batch_size:,} the dynamic "
        f"batcher can send; --batch-sizes 1-{max_batch_size} runs them all)"
    )


__all__ = [
    "ALL",
    "DENSE_UP_TO",
    "EVERY_UP_TO",
    "SWEEP",
    "BatchCoverage",
    "batch_sizes",
    "left_out",
    "left_out_note",
    "parse_batch_sizes",
    "ranges",
    "ranges_text",
    "swept_sizes",
]
