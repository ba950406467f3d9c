"""`diff`'s comparisons: two config files, or a repository against what a running Triton serves.

Against a server each change is labelled: `auto-complete` when tritoncfg's own completion of the
repository config (completion.py) reproduces the server's value, else `backend or runtime`
(a backend's auto-complete tritoncfg does not model, or a change made after the load).
"""

from __future__ import annotations

import json
from pathlib import Path

from tritoncfg.record import field, record
from tritoncfg.repository.model import is_json_path
from tritoncfg.schema import ModelConfig
from tritoncfg.text import parse
from tritoncfg.triton.completion import expected_config
from tritoncfg.triton.remote import RemoteError, RemoteServer, config_from_json
from tritoncfg.triton.semantic_diff import Change, semantic_diff
from tritoncfg.workspace import LoadedModel

AUTO_COMPLETE = "auto-complete"
NOT_AUTO_COMPLETE = "backend or runtime"


class ConfigFileError(Exception):
    """A file that is neither a readable config.pbtxt nor Triton's JSON form of one."""


def read_config_file(path: Path) -> ModelConfig:
    """A config from text format (config.pbtxt) or JSON (what HTTP `get_model_config` returns)."""
    from tritoncfg.confined import read_regular

    try:
        text = read_regular(path).decode("utf-8")
    except OSError as error:
        raise ConfigFileError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ConfigFileError(f"{path}: cannot read: {error}") from None
    if is_json_path(path) or text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise ConfigFileError(f"{path}:{error.lineno}:{error.colno}: {error.msg}") from None
        if not isinstance(document, dict):
            raise ConfigFileError(f"{path}: a JSON config is an object")
        try:
            return config_from_json(document)
        except RemoteError as error:
            raise ConfigFileError(f"{path}: {error}") from None
    parsed = parse(text, str(path))
    if parsed.errors:
        first = parsed.errors[0]
        raise ConfigFileError(f"{path}:{first.span.line}:{first.span.column}: {first.message}")
    return parsed.message


@record
class ModelDiff:
    model: str
    changes: list[Change] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # change path -> AUTO_COMPLETE / ...
    problem: str | None = None  # not loaded on the server, or unreadable here

    @property
    def unexplained(self) -> list[Change]:
        return [c for c in self.changes if self.labels.get(c.path) == NOT_AUTO_COMPLETE]


def _related(a: str, b: str) -> bool:
    """One path is the other or inside it (`x` and `x.y`, `x` and `x[0]`)."""
    return a == b or b.startswith((a + ".", a + "[")) or a.startswith((b + ".", b + "["))


def label_changes(
    changes: list[Change], remaining: list[Change], unknown: set[str]
) -> dict[str, str]:
    """`remaining`: what still differs after tritoncfg's completion; `unknown`: paths the host
    decides, which count as auto-complete."""
    left = [r.path for r in remaining if r.path not in unknown]
    return {
        c.path: NOT_AUTO_COMPLETE if any(_related(c.path, p) for p in left) else AUTO_COMPLETE
        for c in changes
    }


def diff_model(model: LoadedModel, served: ModelConfig, gpus: tuple[int, ...] | None) -> ModelDiff:
    if model.config is not None and model.config.ok:
        written = model.config.message
    elif model.config is None and not model.dir.config_exists:
        written = ModelConfig()  # no config file: Triton completes an empty one
    else:
        return ModelDiff(model.name, problem="its config cannot be read: run `tritoncfg lint`")
    changes = semantic_diff(written, served)
    expected = expected_config(model, gpus)
    remaining = semantic_diff(expected.config, served)
    return ModelDiff(model.name, changes, label_changes(changes, remaining, expected.unknown))


def diff_against_server(
    models: list[LoadedModel], server: RemoteServer, gpus: tuple[int, ...] | None = None
) -> list[ModelDiff]:
    """Each model of the repository against the server's config of it. Raises RemoteError when
    the server cannot be asked at all."""
    loaded = set(server.loaded_models())
    found: list[ModelDiff] = []
    for model in models:
        if model.name not in loaded:
            found.append(ModelDiff(model.name, problem="not loaded on the server"))
            continue
        found.append(diff_model(model, server.config(model.name), gpus))
    return found
