"""The option parsers: a value as written on the command line or in the settings, or an
`OptionError` that names the option as the command line spells it."""

from __future__ import annotations

import pytest

from tritoncfg.options.values import (
    OptionError,
    parse_gpus,
    parse_rate_limit,
    parse_rate_limit_resource,
    parse_rate_limit_resources,
    severity_pairs,
    split_selectors,
)


def test_gpus() -> None:
    assert parse_gpus("1, 0,1") == (0, 1)
    assert parse_gpus([3, 1]) == (1, 3)
    assert parse_gpus("None") == () and parse_gpus(None) is None
    with pytest.raises(OptionError, match="--gpus expects"):
        parse_gpus("zero")


def test_rate_limit() -> None:
    assert parse_rate_limit("execution_count") is True and parse_rate_limit("off") is False
    with pytest.raises(OptionError, match="--rate-limit expects off or execution_count"):
        parse_rate_limit("on")


@pytest.mark.parametrize(
    ("text", "parsed"), [("R:4", ("R", 4, None)), ("GPU_MEM:2:0", ("GPU_MEM", 2, 0))]
)
def test_rate_limit_resource(text: str, parsed: tuple[str, int, int | None]) -> None:
    assert parse_rate_limit_resource(text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("R", "expected <name>:<count>"),
        (":1", "expected <name>:<count>"),
        ("R:x", "count and device must be integers"),
        ("R:-1", "count and device must not be negative"),
    ],
)
def test_bad_rate_limit_resource(text: str, message: str) -> None:
    with pytest.raises(OptionError, match=f"--rate-limit-resource: {message}"):
        parse_rate_limit_resources([text])


def test_command_line_lists() -> None:
    assert split_selectors(["TC1, TC2", "TC9", ""]) == ("TC1", "TC2", "TC9")
    assert severity_pairs(["TC901 = error"]) == {"TC901": "error"}
    with pytest.raises(OptionError, match="--severity-override expects CODE=SEVERITY"):
        severity_pairs(["TC901"])
