"""A config's `parameters` read as Triton's backends read them (`backend_common.cc`:
`ParseParameter`, `TryParseModelStringParameter`, `ParseBoolValue`): an absent key takes the
default, a value that does not parse is refused at load, which probe reports as a FAIL with the
backend's reason.
"""

from __future__ import annotations

from tritoncfg.probe.contract import RunnerError
from tritoncfg.schema import ModelConfig

_TRUE = ("true", "on", "1", "yes")
_FALSE = ("false", "off", "0", "no")


def int_parameter(config: ModelConfig, key: str, backend: str) -> int:
    """A whole number; 0 when absent."""
    if key not in config.parameters:
        return 0
    text = config.parameters[key].string_value.strip()
    try:
        return int(text)
    except ValueError:
        raise refused(f"parameters '{key}' is '{text}', not a whole number", backend) from None


def bool_parameter(config: ModelConfig, key: str, default: bool, backend: str) -> bool:
    if key not in config.parameters:
        return default
    text = config.parameters[key].string_value.strip().lower()
    if text not in _TRUE + _FALSE:
        raise refused(f"parameters '{key}' is '{text}', not a boolean", backend)
    return text in _TRUE


def refused(message: str, backend: str) -> RunnerError:
    """The error of a model the backend would not load, with its message."""
    return RunnerError(f"Triton would not load it: {message} ({backend} backend)")


__all__ = ["bool_parameter", "int_parameter", "refused"]
