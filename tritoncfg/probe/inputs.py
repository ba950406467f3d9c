"""Inputs for a test point: real ones from `--data-dir`, else generated, seeded, of the config's
data type. numpy is imported here, so only probe's worker loads this module.

Generated values (documented in docs/probe.md): floats uniform in [0, 1) (Polygraphy's default
range), integers in [0, 2) (safe as indices, lengths and masks), bools at random, strings the
decimal text of small integers. Each input has its own stream, seeded from `--seed` and its name,
so a point's inputs are the same on every run and for every runner.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from tritoncfg.probe.contract import TestPoint

# Triton TYPE_* -> numpy dtype (TYPE_STRING: numpy object arrays of str, what ORT takes)
NUMPY_TYPES: dict[str, str] = {
    "TYPE_BOOL": "bool",
    "TYPE_UINT8": "uint8",
    "TYPE_UINT16": "uint16",
    "TYPE_UINT32": "uint32",
    "TYPE_UINT64": "uint64",
    "TYPE_INT8": "int8",
    "TYPE_INT16": "int16",
    "TYPE_INT32": "int32",
    "TYPE_INT64": "int64",
    "TYPE_FP16": "float16",
    "TYPE_FP32": "float32",
    "TYPE_FP64": "float64",
    "TYPE_STRING": "object",
}
TRITON_TYPES: dict[str, str] = {v: k for k, v in NUMPY_TYPES.items()}


class InputError(Exception):
    """An input probe cannot make for this point (a type numpy has no dtype for)."""


def triton_type(array: np.ndarray) -> str:
    """The Triton TYPE_* name of an array's dtype (strings and bytes are TYPE_STRING)."""
    if array.dtype.kind in "OSU":
        return "TYPE_STRING"
    return TRITON_TYPES.get(array.dtype.name, f"numpy {array.dtype.name}")


def make_input(name: str, data_type: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    dtype = NUMPY_TYPES.get(data_type)
    if dtype is None:
        raise InputError(f"input '{name}': no numpy type for {data_type}, so none is generated")
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    if data_type == "TYPE_STRING":
        return rng.integers(0, 100, size=shape).astype(str).astype(object)
    if data_type == "TYPE_BOOL":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith("float"):
        return rng.random(size=shape, dtype=np.float32).astype(dtype)
    return rng.integers(0, 2, size=shape).astype(dtype)


def point_inputs(
    types: Mapping[str, str],
    point: TestPoint,
    seed: int,
    data: Mapping[str, np.ndarray] | None = None,
) -> tuple[dict[str, np.ndarray], str]:
    """Every input of `point` at its model shape, and where they came from ("generated", or
    "data-dir" when every real array fits this point)."""
    arrays: dict[str, np.ndarray] = {}
    real = bool(data)
    for name, data_type in types.items():
        shape = point.model_shape(name)
        fitted = _fit(data[name], shape, point.batch_size) if data and name in data else None
        if fitted is not None and data_type != "TYPE_STRING" and data_type in NUMPY_TYPES:
            fitted = fitted.astype(NUMPY_TYPES[data_type], copy=False)  # .npy of float64 for FP32
        if fitted is None:
            real = False
            fitted = make_input(name, data_type, shape, seed)
        arrays[name] = fitted
    return arrays, "data-dir" if real else "generated"


def load_data(data_dir: Path | None, model: str) -> dict[str, np.ndarray]:
    """`<data_dir>/<model>/<INPUT>.npy`, else `<data_dir>/<INPUT>.npy`: one sample (no batch
    dim) or a batch of them; missing files are generated instead."""
    if data_dir is None:
        return {}
    found: dict[str, np.ndarray] = {}
    for folder in (data_dir, data_dir / model):  # the model's own folder wins
        if folder.is_dir():
            for file in sorted(folder.glob("*.npy")):
                found[file.stem] = np.load(file, allow_pickle=False)
    return found


def _fit(array: np.ndarray, shape: tuple[int, ...], batch: int | None) -> np.ndarray | None:
    """The real array at `shape`: as is, or its samples repeated to fill the batch."""
    if array.shape == shape:
        return array
    if batch is None:
        return None
    if array.shape == shape[1:]:
        return np.repeat(array[np.newaxis], batch, axis=0)
    if array.shape[1:] == shape[1:] and array.shape[0] > 0:
        return np.resize(array, shape)
    return None


__all__ = ["NUMPY_TYPES", "InputError", "load_data", "make_input", "point_inputs", "triton_type"]
