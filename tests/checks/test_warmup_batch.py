"""TC710: core sends a warmup sample as `batch_size` requests in one execution
(`backend_model_instance.cc:WarmUp`), and the standard backends refuse more than max_batch_size."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintkit import lint_config

IO = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)
WARMUP = (
    'model_warmup [ {{ name: "w" batch_size: {size} inputs {{ key: "x" value '
    "{{ data_type: TYPE_FP32 dims: [ 4 ] zero_data: true }} }} }} ]\n"
)


def _tc710(tmp_path: Path, head: str, max_batch: int, size: int) -> list[tuple[str, str | None]]:
    config = f'name: "m"\n{head}\nmax_batch_size: {max_batch}\n{IO}{WARMUP.format(size=size)}'
    diagnostics = lint_config(tmp_path, config, model_files="optional")
    assert diagnostics is not None
    return [
        (f"{d.span.line}:{d.span.column}", d.triton.message if d.triton else None)
        for d in diagnostics
        if d.code == "TC710"
    ]


def test_batch_size_above_max_batch_size(tmp_path: Path) -> None:
    assert _tc710(tmp_path, 'backend: "onnxruntime"', 8, 16) == [
        ("6:40", "failed to run warmup sample 'w': batch size 16 for 'm_0', max allowed is 8; ")
    ]


def test_non_batching_model_takes_one_request(tmp_path: Path) -> None:
    assert _tc710(tmp_path / "a", 'backend: "tensorrt"', 0, 2) == [
        ("6:40", "failed to run warmup sample 'w': batch size 2 for 'm_0', max allowed is 0; ")
    ]
    assert _tc710(tmp_path / "b", 'backend: "tensorrt"', 0, 1) == []


def test_torch_aoti_quotes_the_instance_name(tmp_path: Path) -> None:
    assert _tc710(tmp_path, 'platform: "torch_aoti"', 4, 5) == [
        ("6:40", "failed to run warmup sample 'w': batch size 5 for \"m_0\", max allowed is 4; ")
    ]


@pytest.mark.parametrize("size", [1, 8])
def test_within_max_batch_size(tmp_path: Path, size: int) -> None:
    config = f'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 8\n{IO}{WARMUP.format(size=size)}'
    codes = [d.code for d in lint_config(tmp_path, config, model_files="optional")]
    assert "TC903" in codes  # the config parsed and the rules ran
    assert "TC710" not in codes


def test_python_backend_checks_the_batch_too(tmp_path: Path) -> None:
    # python_be.cc refuses the batch like the framework backends (seen on a real Triton 2.51)
    assert _tc710(tmp_path, 'backend: "python"', 8, 16) == [
        ("6:40", "failed to run warmup sample 'w': batch size 16 for 'm_0', max allowed is 8; ")
    ]


def test_custom_backends_are_not_judged(tmp_path: Path) -> None:
    config = f'name: "m"\nbackend: "identity"\nmax_batch_size: 8\n{IO}{WARMUP.format(size=16)}'
    codes = [d.code for d in lint_config(tmp_path, config)]
    assert "TC903" in codes and "TC710" not in codes
