"""Byte sizes as people write them (`24GiB`, `80GB`, `16384MiB`) and as findings show them."""

from __future__ import annotations

import re

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    # binary, and the one-letter forms as docker's --shm-size and nvidia-smi's MiB mean them
    "k": 2**10,
    "kib": 2**10,
    "m": 2**20,
    "mib": 2**20,
    "g": 2**30,
    "gib": 2**30,
    "t": 2**40,
    "tib": 2**40,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*")


def parse_size(text: str | int) -> int:
    """Bytes for `24GiB`, `80GB`, `24g`, `1.5TiB` or a plain number of bytes. Raises ValueError
    with the accepted forms."""
    if isinstance(text, int):
        if text <= 0:
            raise ValueError(f"a size must be positive, got {text}")
        return text
    match = _SIZE.fullmatch(text)
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(
            f"expected a size such as 24GiB, 80GB or 16384MiB (units: B, KB, MB, GB, TB, "
            f"KiB, MiB, GiB, TiB), got {text!r}"
        )
    size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise ValueError(f"a size must be positive, got {text!r}")
    return size


def format_size(size: int) -> str:
    """`23.8 GiB`, `512 MiB`, `100 B`: binary units, one decimal where it matters."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" or value >= 100 else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
