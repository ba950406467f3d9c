"""Reading Triton's log: the events that say why a model did or did not load.

With explicit model control the load API answers a poll-time failure with only "failed to poll
from model repository"; the reason is in the log (`model_repository_manager.cc`, `model_lifecycle.cc`):

    E1202 ... model_repository_manager.cc:1460] "Poll failed for model directory 'm': <reason>"
    E1202 ... model_lifecycle.cc:642] "failed to load 'm' version 1: Invalid argument: <reason>"
    [libprotobuf ERROR .../text_format.cc:337] Error parsing text-format inference.ModelConfig: 4:70: <detail>

The protobuf line names no model: it belongs to the next `failed to read text proto` poll failure.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from tritoncfg.record import record, replace

# Triton 2.4x+: `<level><mmdd> <time> <thread> <file>:<line>] "<message, C-escaped>"`
_TRITON_LINE = re.compile(
    r"^(?P<level>[IWE])\d{4} [\d:.]+ +\d+ (?P<source>[\w.]+:\d+)\] (?P<text>.*)$"
)
_PROTOBUF_ERROR = re.compile(
    r"\[libprotobuf ERROR [^\]]*\] Error parsing text-format inference\.ModelConfig: "
    r"(?P<line>\d+):(?P<column>\d+): (?P<detail>.*)$"
)
_POLL_FAILED = re.compile(
    r"^Poll failed for model directory '(?P<model>[^']*)': (?P<reason>.*)$", re.S
)
_POLL_MODEL_FAILED = re.compile(r"^failed to poll model '(?P<model>[^']*)': (?P<reason>.*)$", re.S)
_LOAD_FAILED = re.compile(
    r"^failed to load '(?P<model>[^']*)' version (?P<version>-?\d+): (?P<reason>.*)$", re.S
)
_LOADED = re.compile(r"^successfully loaded '(?P<model>[^']*)'")
_ENSEMBLE_DEPENDENCY = re.compile(
    r"ensemble '(?P<model>[^']*)' depends on '(?P<dependency>[^']*)' which has no loaded version"
)
READ_TEXT_PROTO = "failed to read text proto from "

Phase = Literal["PARSE", "POLL", "LOAD"]


@record(frozen=True)
class LogEvent:
    """One thing the log says about a model's load."""

    model: str
    kind: Literal["error", "loaded"]
    phase: Phase
    message: str
    version: int | None = None
    line: int | None = None  # PARSE: Triton's line:column of the parse error
    column: int | None = None
    dependency: str | None = None  # an ensemble step model that did not load


def _unquote(text: str) -> str:
    """Triton quotes and C-escapes each message; fall back to the raw text."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return text[1:-1]
        return value if isinstance(value, str) else text
    return text


_STATUS_CODE = re.compile(
    r"^(Invalid argument|Internal|Not found|Unavailable|Unknown|Already exists|Unsupported"
    r"|Unimplemented): "
)


def strip_status(reason: str) -> str:
    """`Invalid argument: <message>;` -> `<message>`: the status code and Triton's separator go."""
    return _STATUS_CODE.sub("", reason.strip().removesuffix(";"))


def parse_log(lines: list[str]) -> list[LogEvent]:
    """The load events in a stretch of log, in order."""
    events: list[LogEvent] = []
    pending: list[tuple[int, int, str]] = []  # protobuf parse errors awaiting their poll failure
    for raw in lines:
        parse_error = _PROTOBUF_ERROR.search(raw)
        if parse_error is not None:
            pending.append(
                (int(parse_error["line"]), int(parse_error["column"]), parse_error["detail"])
            )
            continue
        matched = _TRITON_LINE.match(raw.rstrip("\n"))
        if matched is None:
            continue
        text = _unquote(matched["text"])
        event = _event(text)
        if event is None:
            continue
        if event.phase == "POLL" and event.message.startswith(READ_TEXT_PROTO):
            event = replace(event, phase="PARSE")
            if pending:
                line, column, detail = pending.pop(0)
                event = replace(
                    event, message=f"{detail} ({event.message})", line=line, column=column
                )
        events.append(event)
    return events


def _event(text: str) -> LogEvent | None:
    for pattern in (_POLL_FAILED, _POLL_MODEL_FAILED):
        found = pattern.match(text)
        if found is not None:
            return LogEvent(found["model"], "error", "POLL", strip_status(found["reason"]))
    found = _LOAD_FAILED.match(text)
    if found is not None:
        return LogEvent(
            found["model"], "error", "LOAD", strip_status(found["reason"]), int(found["version"])
        )
    found = _LOADED.match(text)
    if found is not None:
        return LogEvent(found["model"], "loaded", "LOAD", text)
    found = _ENSEMBLE_DEPENDENCY.search(text)
    if found is not None:
        return LogEvent(
            found["model"], "error", "LOAD", strip_status(text), dependency=found["dependency"]
        )
    return None


class LogTail:
    """Reads what the server appended to its log file since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self._partial = b""

    def read(self) -> list[str]:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return []
        self.offset += len(data)
        data = self._partial + data
        complete, newline, self._partial = data.rpartition(b"\n")
        if not newline:
            return []
        return complete.decode("utf-8", "replace").split("\n")

    def tail(self, count: int = 20) -> list[str]:
        """The last lines of the whole log (for a server that failed to start)."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return text.splitlines()[-count:]
