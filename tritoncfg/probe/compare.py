"""Compare a runner's outputs with a reference runner's (ONNX Runtime) on the same inputs.

Polygraphy's rule, elementwise: `|actual - expected| <= atol + rtol * |expected|`
(`--atol`, `--rtol`). NaN matches NaN at the same position, and an infinity matches the same
infinity; anything else non-finite is a mismatch. The max absolute and relative errors are
reported over the finite pairs. Pure numpy, tested on CPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tritoncfg.record import record

if TYPE_CHECKING:
    import numpy as np


@record(frozen=True)
class Comparison:
    name: str
    ok: bool
    reason: str | None = None  # why not ok
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    mismatches: int = 0  # elements outside the tolerance
    size: int = 0


def compare_arrays(
    name: str, actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float
) -> Comparison:
    """One output against its reference."""
    import numpy as np

    if actual.shape != expected.shape:
        return Comparison(
            name,
            False,
            f"output '{name}': shape {list(actual.shape)}, the reference has "
            f"{list(expected.shape)}",
        )
    if actual.dtype.kind in "OSUb" or expected.dtype.kind in "OSUb":
        equal = np.asarray(actual == expected)
        bad = int(equal.size - np.count_nonzero(equal))
        reason = None if bad == 0 else f"output '{name}': {bad} of {equal.size} values differ"
        return Comparison(name, bad == 0, reason, mismatches=bad, size=int(equal.size))
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(e)
    same_inf = np.isinf(a) & np.isinf(e) & (np.sign(a) == np.sign(e))
    finite = np.isfinite(a) & np.isfinite(e)
    diff = np.abs(np.subtract(a, e, where=finite, out=np.zeros_like(a)))
    within = finite & (diff <= atol + rtol * np.abs(e, where=finite, out=np.zeros_like(e)))
    good = within | both_nan | same_inf
    bad = int(good.size - np.count_nonzero(good))
    max_abs = float(diff.max()) if finite.any() else None
    rel = np.divide(diff, np.abs(e), where=finite & (e != 0), out=np.zeros_like(a))
    max_rel = float(rel.max()) if finite.any() else None
    reason = None
    if bad:
        reason = (
            f"output '{name}': {bad} of {good.size} values outside atol={atol:g} rtol={rtol:g} "
            f"(max abs error {_fmt(max_abs)}, max rel error {_fmt(max_rel)}"
            f"{_nonfinite_note(a, e, finite, both_nan, same_inf)})"
        )
    return Comparison(name, bad == 0, reason, max_abs, max_rel, bad, int(good.size))


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def _nonfinite_note(
    a: np.ndarray, e: np.ndarray, finite: np.ndarray, nan: np.ndarray, inf: np.ndarray
) -> str:
    odd = int((~finite & ~nan & ~inf).sum())
    return f"; {odd} NaN/Inf values without a match" if odd else ""


def compare_outputs(
    actual: Mapping[str, np.ndarray],
    expected: Mapping[str, np.ndarray],
    atol: float,
    rtol: float,
) -> list[Comparison]:
    """Every reference output against the runner's; a missing output is a mismatch."""
    results = []
    for name, reference in expected.items():
        if name not in actual:
            results.append(Comparison(name, False, f"output '{name}': missing from the outputs"))
            continue
        results.append(compare_arrays(name, actual[name], reference, atol, rtol))
    return results


def worst(results: list[Comparison]) -> tuple[float | None, float | None]:
    """The largest max abs and max rel errors across outputs (None when none was measured)."""
    abs_errors = [r.max_abs_error for r in results if r.max_abs_error is not None]
    rel_errors = [r.max_rel_error for r in results if r.max_rel_error is not None]
    return (max(abs_errors, default=None), max(rel_errors, default=None))
