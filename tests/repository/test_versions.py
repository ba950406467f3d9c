"""`model_lifecycle.cc:VersionsToLoad`: `std::stoll` semantics and the version-directory rules, without touching disk."""

from __future__ import annotations

import pytest

from tritoncfg.repository import stoll
from tritoncfg.repository.versions import (
    INT64_MAX,
    INT64_MIN,
    StollInvalidArgument,
    StollOutOfRange,
    scan_versions,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1abc", 1),
        ("-3", -3),
        ("+5", 5),
        ("7.5", 7),
        ("0", 0),
        (" 4", 4),
        ("\t\n\v\f\r-2x", -2),
        ("-0", 0),
        ("9223372036854775807", INT64_MAX),
        ("-9223372036854775808", INT64_MIN),
    ],
)
def test_stoll_parses_like_cpp(text: str, value: int) -> None:
    assert stoll(text) == value


@pytest.mark.parametrize("text", ["", " ", "-", "+", "+-1", "abc", ".hidden", "v1", "\u0661", "x1"])
def test_stoll_invalid_argument(text: str) -> None:
    with pytest.raises(StollInvalidArgument):
        stoll(text)


@pytest.mark.parametrize("text", ["9223372036854775808", "-9223372036854775809", "1" * 30])
def test_stoll_out_of_range(text: str) -> None:
    with pytest.raises(StollOutOfRange):
        stoll(text)


def test_spec_example_versions_and_reasons() -> None:
    scan = scan_versions(("1abc", "-3", "01", "0", ".hidden", "7", "configs", "warmup"))
    assert list(scan.numbers) == [-3, 0, 1, 7]
    assert scan.numbers[1] == ("1abc",)
    assert [(i.name, i.cause, i.reason) for i in scan.ignored] == [
        (
            ".hidden",
            "not_integral",
            "ignore version directory '.hidden' which fails to convert to integral number",
        ),
        (
            "01",
            "leading_zeros",
            "ignore version directory '01' which contains leading zeros in its directory name",
        ),
    ]


def test_skipped_dirs_are_silent() -> None:
    scan = scan_versions(("warmup", "initial_state", "configs"))
    assert scan.numbers == {}
    assert scan.ignored == ()


def test_duplicates_collapse_preferring_the_canonical_name() -> None:
    scan = scan_versions(("1abc", "+1", "1", " 1"))
    assert scan.numbers == {1: ("1", " 1", "+1", "1abc")}


def test_leading_zero_rule_is_on_the_raw_name() -> None:
    scan = scan_versions(("00", "-01", " 01"))
    # Only a name whose first character is '0' is rejected; stoll then accepts the others.
    assert [i.name for i in scan.ignored] == ["00"]
    assert scan.numbers == {-1: ("-01",), 1: (" 01",)}


def test_out_of_range_is_recorded_not_raised() -> None:
    scan = scan_versions(("99999999999999999999", "2"))
    assert list(scan.numbers) == [2]
    (ignored,) = scan.ignored
    assert ignored.cause == "out_of_range"
    assert "std::out_of_range" in ignored.reason
