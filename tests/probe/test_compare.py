"""Polygraphy-style output comparison: |a - b| <= atol + rtol * |b|, NaN/Inf, shapes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from models.onnxkit import make_runnable

from tritoncfg.probe.compare import compare_arrays, compare_outputs, worst


def test_within_atol_plus_rtol_times_the_reference_passes() -> None:
    expected = np.array([1.0, 100.0], dtype=np.float32)
    actual = np.array([1.0 + 1.5e-5, 100.0 + 1e-3], dtype=np.float32)
    result = compare_arrays("y", actual, expected, atol=2e-5, rtol=1e-5)
    assert result.ok and result.reason is None and result.mismatches == 0
    assert result.max_abs_error == pytest.approx(1e-3, rel=1e-2)


def test_outside_the_tolerance_fails_with_counts_and_errors() -> None:
    expected = np.array([1.0, 2.0, 4.0])
    actual = np.array([1.0, 2.5, 4.0])
    result = compare_arrays("y", actual, expected, atol=0.1, rtol=0.1)  # bound 0.3 at 2.0
    assert not result.ok and result.mismatches == 1 and result.size == 3
    assert result.max_abs_error == pytest.approx(0.5)
    assert result.max_rel_error == pytest.approx(0.25)
    assert result.reason == (
        "output 'y': 1 of 3 values outside atol=0.1 rtol=0.1 (max abs error 0.5, max rel error 0.25)"
    )


def test_the_rule_is_relative_to_the_reference_not_symmetric() -> None:
    # |0 - 1| = 1 <= 0 + 1 * |1|; swapped, 1 <= 0 + 1 * |0| fails (Polygraphy's asymmetry)
    assert compare_arrays("y", np.array([0.0]), np.array([1.0]), atol=0, rtol=1).ok
    assert not compare_arrays("y", np.array([1.0]), np.array([0.0]), atol=0, rtol=1).ok


def test_nan_matches_nan_and_inf_matches_the_same_inf() -> None:
    values = np.array([np.nan, np.inf, -np.inf, 1.0])
    assert compare_arrays("y", values.copy(), values, atol=0, rtol=0).ok


def test_a_nan_or_inf_without_a_match_is_a_mismatch() -> None:
    expected = np.array([1.0, np.inf, 3.0])
    actual = np.array([np.nan, -np.inf, 3.0])
    result = compare_arrays("y", actual, expected, atol=1, rtol=1)
    assert not result.ok and result.mismatches == 2
    assert result.reason is not None and "2 NaN/Inf values without a match" in result.reason
    assert result.max_abs_error == 0.0  # over the finite pair only


def test_a_shape_mismatch_is_reported_before_values() -> None:
    result = compare_arrays("y", np.zeros((2, 4)), np.zeros((1, 4)), atol=1, rtol=1)
    assert not result.ok
    assert result.reason == "output 'y': shape [2, 4], the reference has [1, 4]"


def test_integer_outputs_compare_with_tolerances_and_bools_exactly() -> None:
    assert compare_arrays("i", np.array([3, 5]), np.array([3, 4]), atol=1, rtol=0).ok
    result = compare_arrays("b", np.array([True, False]), np.array([True, True]), atol=1, rtol=1)
    assert not result.ok and result.reason == "output 'b': 1 of 2 values differ"


def test_compare_outputs_flags_a_missing_output_and_worst_takes_the_max() -> None:
    expected = {"a": np.array([1.0, 2.0]), "b": np.array([1.0]), "c": np.array([0.0])}
    actual = {"a": np.array([1.1, 2.0]), "b": np.array([1.5])}
    results = compare_outputs(actual, expected, atol=1, rtol=0)
    assert [(r.name, r.ok) for r in results] == [("a", True), ("b", True), ("c", False)]
    assert results[2].reason == "output 'c': missing from the outputs"
    max_abs, max_rel = worst(results)
    assert max_abs == pytest.approx(0.5) and max_rel == pytest.approx(0.5)


def test_real_onnx_runtime_outputs_against_a_perturbed_copy(tmp_path: Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    path = make_runnable(tmp_path / "model.onnx", input_shape=["N", 16], output_shape=["N", 16])
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(4, 16)
    (reference,) = session.run(["y"], {"x": x})
    np.testing.assert_array_equal(reference, np.maximum(x, 0))  # the runtime really ran
    close = {"y": reference + np.float32(1e-6)}
    assert [r.ok for r in compare_outputs(close, {"y": reference}, atol=1e-5, rtol=1e-5)] == [True]
    far = {"y": reference * np.float32(1.01)}
    (result,) = compare_outputs(far, {"y": reference}, atol=1e-5, rtol=1e-5)
    assert not result.ok and result.max_rel_error == pytest.approx(0.01, rel=1e-3)
