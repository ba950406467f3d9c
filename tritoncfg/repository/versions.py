"""Triton's version-directory rules (`model_lifecycle.cc:VersionsToLoad`)."""

from __future__ import annotations

from tritoncfg.record import record
from tritoncfg.repository.model import (
    CONFIGS_DIRNAME,
    INITIAL_STATE_DIRNAME,
    WARMUP_DIRNAME,
    IgnoredDir,
    byte_key,
    byte_order,
)

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# Skipped silently, before any other rule.
SKIPPED_DIRS = frozenset({WARMUP_DIRNAME, INITIAL_STATE_DIRNAME, CONFIGS_DIRNAME})

_C_SPACE = " \t\n\v\f\r"  # isspace() in the "C" locale
_DIGITS = "0123456789"  # strtoll accepts ASCII digits only
NUMBER_START = frozenset(_C_SPACE + "+-" + _DIGITS)  # the first character of any `stoll` number


class StollInvalidArgument(ValueError):
    """`std::stoll` throws `std::invalid_argument`: no digits after optional space and sign."""


class StollOutOfRange(ValueError):
    """`std::stoll` throws `std::out_of_range`: the value does not fit in int64."""


def stoll(text: str) -> int:
    """`std::stoll(text)` in base 10: leading C whitespace, an optional sign, then the
    longest run of digits; trailing junk is ignored (`"1abc"` → 1, `"7.5"` → 7)."""
    if text.isascii() and text.isdigit():  # digits only (the usual version directory)
        value = int(text)
        if value > INT64_MAX:
            raise StollOutOfRange(text)
        return value
    rest = text.lstrip(_C_SPACE)
    sign = 1
    if rest[:1] in ("+", "-"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    end = 0
    while end < len(rest) and rest[end] in _DIGITS:
        end += 1
    if end == 0:
        raise StollInvalidArgument(text)
    value = sign * int(rest[:end])
    if not INT64_MIN <= value <= INT64_MAX:
        raise StollOutOfRange(text)
    return value


def backend_version_dirname(number: int) -> str:
    """The version directory a backend reads: core keeps versions as int64, but hands them to
    backends as uint64 (`TRITONBACKEND_ModelVersion`), which join `<model>/<version>/` with
    that number, so version -3 is read from `18446744073709551613/` (which core cannot even parse
    back: out of the int64 range)."""
    return str(number % 2**64)


@record(frozen=True)
class VersionScan:
    """The outcome of applying the rules to a model's subdirectory names."""

    numbers: dict[int, tuple[str, ...]]  # version → its directory names, preferred first
    ignored: tuple[IgnoredDir, ...]


def _ignored(name: str, cause: str) -> IgnoredDir:
    if cause == "leading_zeros":
        reason = (
            f"ignore version directory '{name}' which contains leading zeros in its directory name"
        )
        return IgnoredDir(name, "leading_zeros", reason)
    if cause == "not_integral":
        reason = f"ignore version directory '{name}' which fails to convert to integral number"
        return IgnoredDir(name, "not_integral", reason)
    reason = (
        f"version directory '{name}' is out of the int64 range: Triton's std::stoll throws "
        "std::out_of_range there, which is not caught (undefined behaviour, a crash)"
    )
    return IgnoredDir(name, "out_of_range", reason)


def scan_versions(subdirs: tuple[str, ...]) -> VersionScan:
    """Apply `VersionsToLoad` to subdirectory names (in any order; the result is deterministic)."""
    if len(subdirs) == 1:  # the usual model: one version directory, `1/`
        (name,) = subdirs
        if name.isascii() and name.isdigit() and (name[0] != "0" or len(name) == 1):
            number = int(name)
            if number <= INT64_MAX:
                return VersionScan({number: (name,)}, ())
    found: dict[int, list[str]] = {}
    ignored: list[IgnoredDir] = []
    for name in sorted(subdirs, key=byte_key(subdirs)) if len(subdirs) > 1 else subdirs:
        if name in SKIPPED_DIRS:
            continue
        if len(name) > 1 and name[0] == "0":
            ignored.append(_ignored(name, "leading_zeros"))
            continue
        try:
            number = stoll(name)
        except StollInvalidArgument:
            ignored.append(_ignored(name, "not_integral"))
            continue
        except StollOutOfRange:
            ignored.append(_ignored(name, "out_of_range"))
            continue
        found.setdefault(number, []).append(name)
    numbers = {
        # The directory named exactly like the number is the one Triton loads from.
        number: tuple(sorted(names, key=lambda n: (n != str(number), byte_order(n))))
        if len(names) > 1
        else tuple(names)
        for number, names in sorted(found.items())
    }
    return VersionScan(numbers, tuple(ignored))
