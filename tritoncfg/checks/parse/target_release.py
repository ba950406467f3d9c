"""TC012: fields and enum values that the target Triton release (`--triton-version`) does not
know, from the per-release table of `model_config.proto` (`tritoncfg.schema.releases`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tritoncfg.checks.core.context import CheckContext, Finding, at
from tritoncfg.checks.core.phase import Phase
from tritoncfg.checks.core.registry import model_rule
from tritoncfg.diagnostics import Severity
from tritoncfg.schema import ModelConfig
from tritoncfg.workspace import LoadedModel

PACKAGE = "inference."


def _name(full_name: str, member: str) -> str:
    return f"{full_name.removeprefix(PACKAGE)}.{member}"


def written_names(config: Any) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """(field path, schema name, what) for every field name and enum value written in the config
    text: `Message.field` names and `Enum.VALUE` names, as `releases.json` keys them. Fields are
    taken from the source map, so a field written with its default value counts too (an older
    server's parser rejects the name, whatever its value)."""
    for path in config.locations:
        found = _resolve(config.message, path)
        if found is None:
            continue
        field, value = found
        if path and path[-1] == field.name:
            yield path, _name(field.containing_type.full_name, field.name), f"field '{field.name}'"
        if field.enum_type is not None and isinstance(value, int) and not isinstance(value, bool):
            if field.is_repeated and path[-1] == field.name:
                continue  # the list itself; its elements come with their index
            number = field.enum_type.values_by_number.get(value)
            if number is not None:
                yield path, _name(field.enum_type.full_name, number.name), f"value '{number.name}'"


def _resolve(message: Any, path: tuple[str | int, ...]) -> tuple[Any, Any] | None:
    """The field descriptor a source-map path ends in, and the value there (None if unknown)."""
    descriptor, value, field = ModelConfig.DESCRIPTOR, message, None
    parts = list(path)
    while parts:
        name = parts.pop(0)
        field = descriptor.fields_by_name.get(name) if isinstance(name, str) else None
        if field is None:
            return None
        value = getattr(value, field.name, None) if value is not None else None
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            if not parts:
                return field, None
            key = parts.pop(0)
            if not parts or parts[0] != "value":
                return field, None
            parts.pop(0)
            field = entry.fields_by_name["value"]
            value = value.get(key) if value is not None and key in value else None
        elif field.is_repeated and parts and isinstance(parts[0], int):
            index = int(parts.pop(0))
            value = value[index] if value is not None and index < len(value) else None
        if field.message_type is not None:
            descriptor = field.message_type
        elif parts:
            return None
    return None if field is None else (field, value)


@model_rule(
    "TC012",
    severity=Severity.ERROR,
    summary="A field or enum value that the target Triton release (--triton-version) does not know.",
    phase=Phase.PARSE,
)
def unknown_to_target_release(model: LoadedModel, ctx: CheckContext) -> Iterator[Finding]:
    """
    ## What it does
    With `--triton-version` (or `triton-version` in `[tool.tritoncfg]`), reports every field and
    enum value of the config that the `model_config.proto` of that release does not have, and
    the release that added it. The table comes from the schema of every release branch of
    triton-inference-server/common. Without a target release the rule is silent: the schema
    tritoncfg ships is the newest.

    ## Why it matters
    An older server's parser rejects a field it does not know, and the model does not load:
    Triton 2.51 says `Message type "inference.ModelConfig" has no field named "model_metrics".`
    A config written for a newer server fails on an older one.

    ## Example
    ```text
    tritoncfg lint models/ --triton-version 2.51
    m/config.pbtxt    backend: "python"  model_metrics { metric_control [ ... ] }
    ```

    ## Fix
    Remove the field, or upgrade the server to the release that added it.
    """
    release = ctx.options.triton_version
    if release is None or model.config is None:
        return
    from tritoncfg.schema.releases import find_release, release_table

    target = find_release(release)
    unknown = release_table().unknown_to(target)
    if not unknown:
        return
    reported: list[tuple[str | int, ...]] = []
    for path, name, what in written_names(model.config):
        added = unknown.get(name)
        if added is None or any(path[: len(outer)] == outer for outer in reported):
            continue  # the server's parser stops at the outer field: its contents are not read
        reported.append(path)
        field = str(path[-1]) if isinstance(path[-1], str) else name.rsplit(".", 2)[-2]
        message_type = PACKAGE + name.rsplit(".", 1)[0]
        triton = (
            f'Message type "{message_type}" has no field named "{field}".'
            if what.startswith("field")
            else f'Unknown enumeration value of "{name.rsplit(".", 1)[-1]}" for field "{field}".'
        )
        yield Finding(
            f"{what} ({name}) is not known to {target}: it was added in {added}",
            at(model, *path, value=what.startswith("value")),
            triton_message=triton,
        )
