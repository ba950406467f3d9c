"""Optimization profiles from the config and the network inputs (pure data)."""

from __future__ import annotations

import pytest
from probe.trtkit import config

from tritoncfg.probe.tensorrt.profiles import NetInput, ProfileError, batch_range, derive_profile

BATCHED = """
max_batch_size: 16
input { name: "ids" data_type: TYPE_INT64 dims: [ -1 ] }
input { name: "img" data_type: TYPE_FP32 dims: [ 3, -1 ] }
output { name: "out" data_type: TYPE_FP32 dims: [ -1 ] }
dynamic_batching { preferred_batch_size: [ 4, 8 ] }
"""


def test_batch_dim_is_one_to_max_with_the_largest_preferred_size_as_opt() -> None:
    assert batch_range(config(BATCHED)) == (1, 8, 16)


def test_without_preferred_sizes_opt_is_max_batch_size() -> None:
    assert batch_range(config("max_batch_size: 32")) == (1, 32, 32)
    assert batch_range(config("max_batch_size: 0")) is None


def test_variable_dims_come_from_dim_by_input_or_by_axis() -> None:
    inputs = [NetInput("ids", (-1, -1)), NetInput("img", (-1, 3, -1))]
    profile = derive_profile(config(BATCHED), inputs, {"ids": (1, 64, 128), "img.1": (8, 16, 32)})
    assert profile["ids"] == ((1, 1), (8, 64), (16, 128))
    assert profile["img"] == ((1, 3, 8), (8, 3, 16), (16, 3, 32))


def test_a_dim_the_config_fixes_is_used_for_a_dynamic_network_dim() -> None:
    cfg = config('max_batch_size: 4 input { name: "x" data_type: TYPE_FP32 dims: [ 16 ] }')
    profile = derive_profile(cfg, [NetInput("x", (-1, -1))], {})
    assert profile["x"] == ((1, 16), (4, 16), (4, 16))


def test_non_batching_model_numbers_axes_from_zero() -> None:
    cfg = config('max_batch_size: 0 input { name: "x" data_type: TYPE_FP32 dims: [ -1, 4 ] }')
    profile = derive_profile(cfg, [NetInput("x", (-1, 4))], {"x.0": (2, 3, 5)})
    assert profile["x"] == ((2, 4), (3, 4), (5, 4))


@pytest.mark.parametrize(
    ("dims", "message"),
    [
        ({"ids": (8, 4, 2)}, "--dim ids=8:4:2: sizes must satisfy 1 <= MIN <= OPT <= MAX"),
        ({"ids": (0, 1, 2)}, "1 <= MIN"),
        ({"nope": (1, 2, 3)}, "--dim nope: the model has no input 'nope' (inputs: ids, img)"),
        ({"nope.0": (1, 2, 3)}, "the model has no input 'nope'"),
        ({"ids": (1, 2, 3), "img.0": (1, 2, 3)}, "axis 0 of input 'img' is fixed at 3"),
        ({"ids": (1, 2, 3), "img.5": (1, 2, 3)}, "input 'img' has only 2 dims"),
        (
            {"ids": (1, 2, 3)},
            "input 'img' axis 1 is variable (-1) and has no size: give --dim img.1=",
        ),
    ],
)
def test_bad_or_missing_dims_are_explained(
    dims: dict[str, tuple[int, int, int]], message: str
) -> None:
    inputs = [NetInput("ids", (-1, -1)), NetInput("img", (-1, 3, -1))]
    with pytest.raises(ProfileError) as caught:
        derive_profile(config(BATCHED), inputs, dims)
    assert message in str(caught.value)


def test_shape_tensor_inputs_are_refused_with_a_reason() -> None:
    cfg = config("max_batch_size: 0")
    with pytest.raises(ProfileError, match="is a shape tensor"):
        derive_profile(cfg, [NetInput("s", (2,), "INT32", is_shape_tensor=True)], {})


def test_a_model_that_fixes_the_batch_dim_below_max_batch_size_is_refused() -> None:
    cfg = config('max_batch_size: 8 input { name: "x" data_type: TYPE_FP32 dims: [ 4 ] }')
    with pytest.raises(ProfileError) as caught:
        derive_profile(cfg, [NetInput("x", (1, 4))], {})
    assert str(caught.value) == (
        "input 'x': the model fixes the batch dim at 1, the config's max_batch_size is 8"
    )
