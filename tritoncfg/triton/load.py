"""Loading one model into a running server and collecting everything it says about it: the load
API's answer and the log lines that name the model (see logs.py for why both are needed)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from contextlib import suppress

from tritoncfg.record import record
from tritoncfg.triton.logs import LogEvent, Phase, parse_log, strip_status
from tritoncfg.triton.process import TritonServer
from tritoncfg.triton.rest import TritonHTTPError

LOG_SETTLE_SECONDS = 1.0  # the log line can trail the API's answer by a little
DEFAULT_LOAD_TIMEOUT = 600.0
WATCH_SECONDS = 0.25  # how often a load looks whether the server still runs


class ServerDied(Exception):
    """The server went away in the middle of a load (crashed, or was killed)."""


@record(frozen=True)
class TritonError:
    """One reason Triton gave for not loading a model."""

    phase: Phase
    message: str
    line: int | None = None  # PARSE errors: where in config.pbtxt
    column: int | None = None
    dependency: str | None = None  # an ensemble's step model that did not load

    def to_json(self) -> dict[str, object]:
        return {
            "phase": self.phase,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "dependency": self.dependency,
        }


@record(frozen=True)
class LoadOutcome:
    model: str
    loaded: bool
    errors: tuple[TritonError, ...]  # about this model (empty when loaded)
    api_error: str | None  # the load API's own answer, when it failed
    events: tuple[LogEvent, ...]  # every load event logged meanwhile (dependencies too)
    seconds: float


_API_PREFIXES = (
    re.compile(r"^load failed for model '[^']*': (version -?\d+ is at UNAVAILABLE state: )?"),
    re.compile(r"^failed to load '[^']*', "),
)


def _api_reason(text: str) -> str:
    for prefix in _API_PREFIXES:
        text = prefix.sub("", text)
    return strip_status(text)


def _own_errors(model: str, events: list[LogEvent]) -> tuple[TritonError, ...]:
    found: list[TritonError] = []
    for event in events:
        if event.model != model or event.kind != "error":
            continue
        error = TritonError(event.phase, event.message, event.line, event.column, event.dependency)
        # Triton logs an ensemble's dependency failure twice, the second time cut short
        if any(e.message.startswith(error.message) for e in found):
            continue
        found = [e for e in found if not error.message.startswith(e.message)] + [error]
    return tuple(found)


def load_model(
    server: TritonServer,
    model: str,
    *,
    timeout: float = DEFAULT_LOAD_TIMEOUT,
    rewrite: Callable[[str], str] = str,
) -> LoadOutcome:
    """Load `model` (explicit mode) and report how it went. `rewrite` maps server paths in
    messages back to the user's (see mirror.PathMap)."""
    server.log.read()  # what came before belongs to earlier models
    started = time.monotonic()
    api_error: str | None = None
    try:
        _watched_load(server, model, timeout)
    except TritonHTTPError as error:
        if error.status == 0 and not server.alive:
            raise ServerDied(f"tritonserver exited while loading '{model}'") from None
        api_error = rewrite(error.message) if error.status else f"no answer within {timeout:.0f} s"
    seconds = time.monotonic() - started
    lines = server.log.read()
    deadline = time.monotonic() + LOG_SETTLE_SECONDS
    while not _settled(model, lines, api_error is None) and time.monotonic() < deadline:
        time.sleep(0.02)
        lines += server.log.read()
    events = [_rewritten(e, rewrite) for e in parse_log(lines)]
    errors = () if api_error is None else _own_errors(model, events)
    if api_error is not None and not errors:
        errors = (TritonError("LOAD", _api_reason(api_error)),)
    return LoadOutcome(model, api_error is None, errors, api_error, tuple(events), seconds)


def _watched_load(server: TritonServer, model: str, timeout: float) -> None:
    """`server.http.load`, given up as soon as the server exits: a tritonserver that dies
    during a load can leave its connection open (a backend stub still holds it), and the request
    would wait out its whole timeout. Raises ServerDied, or what the request raised."""
    raised: list[BaseException] = []

    def request() -> None:
        try:
            server.http.load(model, timeout=timeout)
        except BaseException as error:  # handed to the caller's thread
            raised.append(error)

    worker = threading.Thread(target=request, name=f"load {model}", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(WATCH_SECONDS)
        if worker.is_alive() and not server.alive:
            raise ServerDied(f"tritonserver exited while loading '{model}'")
    if raised:
        raise raised[0]


def _settled(model: str, lines: list[str], loaded: bool) -> bool:
    events = parse_log(lines)
    if loaded:
        return any(e.model == model and e.kind == "loaded" for e in events)
    return any(e.model == model and e.kind == "error" for e in events)


def _rewritten(event: LogEvent, rewrite: Callable[[str], str]) -> LogEvent:
    message = rewrite(event.message)
    if message == event.message:
        return event
    return LogEvent(
        event.model,
        event.kind,
        event.phase,
        message,
        event.version,
        event.line,
        event.column,
        event.dependency,
    )


def unload_model(server: TritonServer, model: str) -> None:
    """Unload it and the models it loaded (an ensemble's steps); does not wait."""
    with suppress(TritonHTTPError):  # never loaded, or already gone: nothing to free
        server.http.unload(model, dependents=True)
