"""Optimization profiles from the config and the network inputs (pure data)."""

from __future__ import annotations

import pytest
from probe.trtkit import config

from tritoncfg.probe.plan import DEFAULT_RANGE
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


def test_variable_dims_come_from_dim_by_input_or_by_axis_with_the_batch_dim() -> None:
    inputs = [NetInput("ids", (-1, -1)), NetInput("img", (-1, 3, -1))]
    profile = derive_profile(config(BATCHED), inputs, {"ids": (1, 64, 128), "img.2": (8, 16, 32)})
    assert profile["ids"] == ((1, 1), (8, 64), (16, 128))
    assert profile["img"] == ((1, 3, 8), (8, 3, 16), (16, 3, 32))


def test_a_symbolic_dim_sizes_every_input_that_has_it_and_the_axis_key_wins() -> None:
    inputs = [NetInput("ids", (-1, -1), dim_names=("N", "seq")), NetInput("img", (-1, 3, -1))]
    dims = {"seq": (2, 4, 6), "img": (5, 6, 7), "img.2": (8, 16, 32)}
    profile = derive_profile(config(BATCHED), inputs, dims)
    assert profile["ids"] == ((1, 2), (8, 4), (16, 6))
    assert profile["img"] == ((1, 3, 8), (8, 3, 16), (16, 3, 32))


def test_a_dim_without_a_size_takes_the_plans_default_and_other_models_dims_are_ignored() -> None:
    inputs = [NetInput("ids", (-1, -1)), NetInput("img", (-1, 3, -1))]
    dims = {"ids": (1, 2, 3), "nope": (1, 2, 3), "img.1": (1, 2, 3), "img.7": (1, 2, 3)}
    profile = derive_profile(config(BATCHED), inputs, dims)
    low, opt, high = DEFAULT_RANGE
    assert profile["img"] == ((1, 3, low), (8, 3, opt), (16, 3, high))
    assert profile["ids"] == ((1, 1), (8, 2), (16, 3))


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
    ],
)
def test_bad_dims_are_explained(dims: dict[str, tuple[int, int, int]], message: str) -> None:
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
