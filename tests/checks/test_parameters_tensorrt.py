"""TC751: the TensorRT backend's own `parameters` validation (model_state.cc:ParseParameters)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintkit import lint_config

HEAD = 'name: "m"\nbackend: "tensorrt"\nmax_batch_size: 0\n'
PARAM = 'parameters {{ key: "execution_context_allocation_strategy" value {{ string_value: "{v}" }} }}\n'


def _tc751(tmp_path: Path, value: str, head: str = HEAD) -> list[tuple[str, str | None, str]]:
    diagnostics = lint_config(tmp_path, head + PARAM.format(v=value), model_files="optional")
    assert "TC906" in [d.code for d in diagnostics] or "tensorrt" not in head  # the rules ran
    return [
        (str(d.span), d.triton.message if d.triton else None, d.message)
        for d in diagnostics
        if d.code == "TC751"
    ]


def test_invalid_allocation_strategy(tmp_path: Path) -> None:
    ((span, triton, message),) = _tc751(tmp_path, "static")
    assert span == "4:81"
    assert triton == (
        "Invalid value for 'execution_context_allocation_strategy': 'static' for model instance "
        "'m'. Supported values are 'STATIC' and 'ON_PROFILE_CHANGE'."
    )
    assert "did you mean 'STATIC'?" in message


@pytest.mark.parametrize("value", ["STATIC", "ON_PROFILE_CHANGE"])
def test_valid_allocation_strategies(tmp_path: Path, value: str) -> None:
    assert _tc751(tmp_path, value) == []


def test_other_backends_do_not_read_it(tmp_path: Path) -> None:
    assert _tc751(tmp_path, "static", 'name: "m"\nbackend: "python"\n') == []
