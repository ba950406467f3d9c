"""The few calls of Triton's HTTP/REST API that `verify` needs, with plain `urllib` (no
tritonclient): health, server metadata, model load/unload, repository index, model config."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

from tritoncfg.record import record


class TritonHTTPError(Exception):
    """A failed call: the HTTP status (0 when the server could not be reached) and Triton's error."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@record(frozen=True)
class TritonHTTP:
    base_url: str  # http://127.0.0.1:<port>
    timeout: float = 30.0

    def _call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"} if data is not None else {},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            raise TritonHTTPError(error.code, _error_text(error.read())) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise TritonHTTPError(0, f"cannot reach {self.base_url}: {reason}") from None
        return json.loads(payload) if payload.strip() else None

    def live(self) -> bool:
        try:
            self._call("GET", "/v2/health/live", timeout=2.0)
        except TritonHTTPError:
            return False
        return True

    def metadata(self) -> dict[str, Any]:
        found = self._call("GET", "/v2")
        return found if isinstance(found, dict) else {}

    def load(
        self, model: str, timeout: float | None = None, config: dict[str, Any] | None = None
    ) -> None:
        """Load (or reload) a model; `config` overrides its config.pbtxt (JSON form)."""
        body = {} if config is None else {"parameters": {"config": json.dumps(config)}}
        self._call("POST", f"/v2/repository/models/{quote(model, safe='')}/load", body, timeout)

    def unload(self, model: str, *, dependents: bool = True) -> None:
        body = {"parameters": {"unload_dependents": dependents}}
        self._call("POST", f"/v2/repository/models/{quote(model, safe='')}/unload", body)

    def index(self) -> list[dict[str, Any]]:
        found = self._call("POST", "/v2/repository/index", {})
        return found if isinstance(found, list) else []

    def model_config(self, model: str) -> dict[str, Any]:
        found = self._call("GET", f"/v2/models/{quote(model, safe='')}/config")
        return found if isinstance(found, dict) else {}


def _error_text(payload: bytes) -> str:
    try:
        found = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return payload.decode("utf-8", "replace").strip()
    if isinstance(found, dict) and isinstance(found.get("error"), str):
        return str(found["error"]).strip()
    return str(found)
