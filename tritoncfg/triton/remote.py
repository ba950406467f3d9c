"""Configs from a running Triton, through tritoncfg's schema (extra `tritoncfg[server]`:
tritonclient, imported only here and only when called).

HTTP's `get_model_config` gives snake_case JSON with integer dims; gRPC gives tritonclient's own
`ModelConfig` class, converted through JSON. Either way a field that tritoncfg's schema lacks is
an error rather than silently dropped.
"""

from __future__ import annotations

import importlib
from contextlib import suppress
from typing import Any, Literal
from urllib.parse import urlsplit

from google.protobuf import json_format

from tritoncfg.record import record
from tritoncfg.schema import ModelConfig

Protocol = Literal["http", "grpc"]


class RemoteError(Exception):
    """The server cannot be reached or asked; the message says which and why."""


@record(frozen=True)
class Endpoint:
    protocol: Protocol
    address: str  # host:port, as tritonclient wants it
    ssl: bool = False

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        """`http://host:8000`, `https://...`, `grpc://host:8001`; a bare `host:port` is HTTP."""
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme not in ("http", "https", "grpc") or not parts.netloc:
            raise RemoteError(f"{url}: expected http://HOST:PORT or grpc://HOST:PORT")
        protocol: Protocol = "grpc" if parts.scheme == "grpc" else "http"
        return cls(protocol, parts.netloc, ssl=parts.scheme == "https")


def config_from_json(document: dict[str, Any]) -> ModelConfig:
    """Triton's JSON form of a config (snake_case or camelCase) as a ModelConfig."""
    config = ModelConfig()
    try:
        json_format.ParseDict(document, config, ignore_unknown_fields=False)
    except json_format.ParseError as error:
        raise RemoteError(f"the server's config does not fit tritoncfg's schema: {error}") from None
    return config


class RemoteServer:
    """A running Triton, asked over HTTP or gRPC."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.endpoint = Endpoint.parse(url)
        self._client: Any = self._connect()

    def _connect(self) -> Any:
        try:
            client_module = importlib.import_module(f"tritonclient.{self.endpoint.protocol}")
        except (ImportError, RuntimeError) as error:
            raise RemoteError(
                f"talking to a server needs tritonclient with {self.endpoint.protocol} support: "
                f"`pip install 'tritoncfg[server]'` ({error})"
            ) from None
        return client_module.InferenceServerClient(url=self.endpoint.address, ssl=self.endpoint.ssl)

    def _ask(self, what: str, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except Exception as error:  # tritonclient raises its own exception, and socket errors
            message = (
                error.message() if hasattr(error, "message") and callable(error.message) else error
            )
            raise RemoteError(f"{self.url}: {what}: {message}") from None

    def live(self) -> bool:
        return bool(self._ask("is the server live", self._client.is_server_live))

    def loaded_models(self) -> list[str]:
        """The models the server has READY (any version)."""
        index = self._ask("repository index", self._client.get_model_repository_index)
        if self.endpoint.protocol == "grpc":
            rows = [
                json_format.MessageToDict(m, preserving_proto_field_name=True) for m in index.models
            ]
        else:
            rows = list(index)
        return sorted({r["name"] for r in rows if r.get("state") == "READY"})

    def config(self, model: str) -> ModelConfig:
        found = self._ask(f"config of '{model}'", self._client.get_model_config, model)
        if self.endpoint.protocol == "grpc":
            document = json_format.MessageToDict(found.config, preserving_proto_field_name=True)
        else:
            document = found
        return config_from_json(document)

    def close(self) -> None:
        with suppress(Exception):  # closing is best effort
            self._client.close()
