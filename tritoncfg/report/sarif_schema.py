"""The subset of SARIF 2.1.0 that tritoncfg emits, as a JSON Schema (draft 2020-12).

Written from the SARIF 2.1.0 specification (OASIS, section 3) and GitHub's code scanning requirements,
not copied from the official schema. It is closed (`additionalProperties: false`) wherever
tritoncfg writes the whole object, so a misspelt key in the renderer fails validation; property
bags (`properties`) stay open, as SARIF intends. What JSON Schema cannot say (a result's `ruleId`
is one of the driver's rules; an end is not before its start) the tests check directly.
"""

from __future__ import annotations

from typing import Any

_LEVEL = {"enum": ["none", "note", "warning", "error"]}  # SARIF 2.1.0, section 3.27.10


def _closed(required: list[str], **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": False,
    }


_MESSAGE_STRING = _closed(  # multiformatMessageString, SARIF section 3.12: `text` is mandatory
    ["text"], text={"type": "string", "minLength": 1}, markdown={"type": "string"}
)
_POSITIVE = {"type": "integer", "minimum": 1}

SARIF_SCHEMA_SUBSET: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://github.com/tritoncfg/tritoncfg/sarif-subset.json",
    "title": "SARIF 2.1.0 as written by tritoncfg",
    **_closed(
        ["version", "runs"],
        **{
            "$schema": {"type": "string", "format": "uri"},
            "version": {"const": "2.1.0"},
            "runs": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/run"}},
        },
    ),
    "$defs": {
        "run": _closed(
            ["tool", "results"],
            tool=_closed(["driver"], driver={"$ref": "#/$defs/toolComponent"}),
            results={"type": "array", "items": {"$ref": "#/$defs/result"}},
            columnKind={"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
            versionControlProvenance={
                "type": "array",
                "minItems": 1,
                "items": {"$ref": "#/$defs/versionControlDetails"},
            },
            originalUriBaseIds={
                "type": "object",
                "additionalProperties": {"$ref": "#/$defs/artifactLocation"},
            },
            properties={"$ref": "#/$defs/propertyBag"},
        ),
        "toolComponent": _closed(  # GitHub requires the driver's name
            ["name"],
            name={"type": "string", "minLength": 1},
            version={"type": "string"},
            semanticVersion={"type": "string"},
            informationUri={"type": "string", "format": "uri"},
            rules={"type": "array", "items": {"$ref": "#/$defs/reportingDescriptor"}},
        ),
        "reportingDescriptor": _closed(
            ["id"],
            id={"type": "string", "minLength": 1},
            name={"type": "string"},
            shortDescription=_MESSAGE_STRING,
            fullDescription=_MESSAGE_STRING,
            help=_MESSAGE_STRING,
            helpUri={"type": "string", "format": "uri"},
            defaultConfiguration=_closed([], level=_LEVEL, enabled={"type": "boolean"}),
            properties={"$ref": "#/$defs/propertyBag"},
        ),
        "result": _closed(  # GitHub requires ruleId, message.text and a physical location
            ["ruleId", "message", "locations"],
            ruleId={"type": "string", "minLength": 1},
            ruleIndex={"type": "integer", "minimum": -1},  # -1: "not given" (SARIF section 3.27.6)
            level=_LEVEL,
            message=_closed(["text"], text={"type": "string", "minLength": 1}),
            locations={
                "type": "array",
                "minItems": 1,
                "items": _closed(
                    ["physicalLocation"],
                    physicalLocation={"$ref": "#/$defs/physicalLocation"},
                    message=_closed(["text"], text={"type": "string", "minLength": 1}),
                ),
            },
            partialFingerprints={"type": "object", "additionalProperties": {"type": "string"}},
            properties={"$ref": "#/$defs/propertyBag"},
        ),
        "versionControlDetails": _closed(  # SARIF section 3.23: repositoryUri is mandatory
            ["repositoryUri"],
            repositoryUri={"type": "string", "minLength": 1, "format": "uri"},
            revisionId={"type": "string", "minLength": 1},
            branch={"type": "string", "minLength": 1},
            # the uriBaseId the repository's root maps to (section 3.23.7): no uri of its own
            mappedTo=_closed(["uriBaseId"], uriBaseId={"type": "string", "minLength": 1}),
        ),
        "physicalLocation": _closed(
            ["artifactLocation"],
            artifactLocation={"$ref": "#/$defs/artifactLocation"},
            region={"$ref": "#/$defs/region"},
        ),
        "artifactLocation": _closed(
            ["uri"],
            uri={"type": "string", "minLength": 1, "format": "uri-reference"},
            uriBaseId={"type": "string"},
        ),
        "region": _closed(  # text regions, SARIF section 3.30: 1-based; the end column is exclusive
            ["startLine"],
            startLine=_POSITIVE,
            startColumn=_POSITIVE,
            endLine=_POSITIVE,
            endColumn=_POSITIVE,
        ),
        "propertyBag": {  # SARIF section 3.8: open, but `tags` is a set of strings (GitHub keeps 20 per rule)
            "type": "object",
            "properties": {
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "uniqueItems": True,
                    "maxItems": 20,
                }
            },
        },
    },
}
