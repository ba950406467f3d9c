"""Project configuration: `[tool.tritoncfg]` in pyproject.toml, or tritoncfg.toml.

Found by walking up from the first linted path; `--config FILE` names one, `--isolated` ignores
them. Validated against CONFIG_SCHEMA (derived from options/table.py; `tritoncfg schema
settings` prints it) with jsonschema, imported only when a configuration exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tritoncfg.options.table import settings_schema
from tritoncfg.record import field, record

# every key is a lint option, declared once in options/table.py with its schema
CONFIG_SCHEMA: dict[str, Any] = settings_schema()
KEYS = tuple(CONFIG_SCHEMA["properties"])


class SettingsError(Exception):
    """A configuration file that cannot be used; the message names the file and the key."""


@record
class Settings:
    path: Path | None = None  # the file these came from, None for defaults
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def _read(path: Path) -> dict[str, Any] | None:
    """The tritoncfg table of a file, or None when the file has none."""
    import tomllib  # only where there is a file: a lint without one does not pay for it

    from tritoncfg.confined import read_regular

    try:
        document = tomllib.loads(read_regular(path).decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(
            f"{path}{_toml_error_position(path, str(exc))}: invalid TOML: {exc}"
        ) from None
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if path.name == "pyproject.toml":
        table = document.get("tool", {}).get("tritoncfg")
        return table if isinstance(table, dict) else None
    return document


def validate(values: dict[str, Any], path: Path | str) -> None:
    """Unknown keys get a suggestion; everything else is checked by the JSON schema. `path`
    names where the values come from in messages: the file, or `--config` for inline ones."""
    from tritoncfg.schema.lookup import suggest

    for key in values:
        if key not in KEYS:
            hint = suggest(key, KEYS)
            extra = f'; did you mean "{hint}"?' if hint else f"; known keys: {', '.join(KEYS)}"
            if key == "tool":  # a [tool.tritoncfg] table in a file not named pyproject.toml
                extra = (
                    "; only a file named pyproject.toml is read for its [tool.tritoncfg] "
                    "table, any other holds the settings at its top level"
                )
            raise SettingsError(f'{path}{_key_position(path, key)}: unknown key "{key}"{extra}')
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(CONFIG_SCHEMA).iter_errors(values), key=str)
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        key = str(error.absolute_path[0]) if error.absolute_path else ""
        raise SettingsError(f"{path}{_key_position(path, key)}: {where}: {error.message}")


def _key_position(path: Path | str, key: str) -> str:
    """`:line:column` of the line that sets `key` in the settings file (in pyproject.toml, in its
    [tool.tritoncfg] table); "" for inline --config settings or a key not found written so."""
    import re

    if not key or not isinstance(path, Path):
        return ""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    table = "tool.tritoncfg" if path.name == "pyproject.toml" else ""
    inside = not table  # tritoncfg.toml: the whole file is the table
    sets_key = re.compile(rf"""\s*(["']?){re.escape(key)}\1\s*=""")
    own_header = f"[{table}.{key}]" if table else f"[{key}]"  # [tool.tritoncfg.severity-overrides]
    for number, line in enumerate(lines, 1):
        if line.strip() == own_header:
            return f":{number}:{len(line) - len(line.lstrip()) + 1}"
        if line.lstrip().startswith("["):  # another table's header
            inside = line.strip() == f"[{table}]"
        elif inside and sets_key.match(line):
            return f":{number}:{len(line) - len(line.lstrip()) + 1}"
    return ""


def _toml_error_position(path: Path, message: str) -> str:
    """`:line:column` from tomllib's message ("... (at line 3, column 9)", or "at end of
    document": past the last line); tomllib raises no position of its own before Python 3.14."""
    import re

    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if found:
        return f":{found[1]}:{found[2]}"
    if "(at end of document)" in message:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""
        lines = text.split("\n")
        return f":{len(lines)}:{len(lines[-1]) + 1}"
    return ""


def find_config(start: Path) -> Path | None:
    """The nearest tritoncfg.toml, or pyproject.toml with a [tool.tritoncfg] table, above `start`."""
    directory = start.resolve()
    if not directory.is_dir():
        directory = directory.parent
    for folder in (directory, *directory.parents):
        for name in ("tritoncfg.toml", "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file() and (name == "tritoncfg.toml" or _read(candidate) is not None):
                return candidate
    return None


def project_repository(path: Path) -> Path:
    """`path`, or for a project folder whose own settings name its model repository
    (`repository = "model_repository"`, as `tritoncfg new` writes), that repository: Triton would
    take every folder of the project (.github/, deploy/) for a model."""
    if not path.is_dir():
        return path
    for name in ("tritoncfg.toml", "pyproject.toml"):
        candidate = path / name
        if not candidate.is_file():
            continue
        try:
            values = _read(candidate)
        except SettingsError:
            return path  # reported where the settings are loaded
        named = values.get("repository") if values else None
        return path / named if isinstance(named, str) and named else path
    return path


def load_settings(
    start: Path,
    *,
    config: Path | None = None,
    isolated: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """The configuration that applies to `start` (a linted path), with `overrides` (`--config
    "KEY = VALUE"`, as ruff's) over it; `isolated`: no file at all. Raises SettingsError."""
    settings = Settings() if isolated else _file_settings(start, config)
    if not overrides:
        return settings
    validate(dict(overrides), "--config")
    values = dict(settings.values)
    for key, value in overrides.items():  # a table (severity-overrides) is merged key by key
        known = values.get(key)
        values[key] = (
            {**known, **value} if isinstance(known, dict) and isinstance(value, dict) else value
        )
    validate(values, settings.path or "--config")
    return Settings(settings.path, values)


def _file_settings(start: Path, config: Path | None) -> Settings:
    path = config if config is not None else find_config(start)
    if path is None:
        return Settings()
    values = _read(path)
    if values is None:
        raise SettingsError(f"{path}: no [tool.tritoncfg] table")
    validate(values, path)
    return Settings(path.resolve(), values)
