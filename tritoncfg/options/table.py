"""The lint options, each declared once: settings key, schema, `tritoncfg lint` flag, help,
parser and docs. Their order is `tritoncfg lint --help`'s, the settings schema's and the docs
tables'. Adding one: a `LintOption` here, its `LintOverrides` field (the typed Python API;
tests/options/test_table.py holds the two equal) and, for a value rules read, its LintOptions
field (`target`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tritoncfg.diagnostics import Severity
from tritoncfg.options.choices import ModelFiles, RateLimit, TritonMode
from tritoncfg.options.declare import LintOption
from tritoncfg.options.values import (
    parse_gpu_memory,
    parse_gpus,
    parse_model_files,
    parse_rate_limit,
    parse_rate_limit_resources,
    parse_triton_mode,
    parse_triton_version,
    severity_pairs,
    split_selectors,
)

_SELECTOR = {"type": "string", "pattern": "^(ALL|TC[0-9]{0,3}|[a-z0-9]+(-[a-z0-9]+)*)$"}
_SELECTORS = {"type": "array", "items": _SELECTOR, "uniqueItems": True}
_NAMES = {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True}
_SIZE = "^\\s*[0-9]+(\\.[0-9]+)?\\s*([kKmMgGtT]([iI]?[bB])?|[bB])?\\s*$"


def _enum(choices: type[Any]) -> dict[str, Any]:
    return {"enum": [choice.value for choice in choices]}


def _tuple(values: Any) -> tuple[Any, ...]:
    return tuple(values or ())


LINT_OPTIONS: tuple[LintOption, ...] = (
    LintOption(
        "triton-mode",
        "Triton's auto-complete on (default) or off.",
        _enum(TritonMode),
        read=parse_triton_mode,
        target="triton_mode",
        flag="--triton-mode",
        cli_type=TritonMode,
        help="default: Triton's auto-complete is on; strict: --disable-auto-complete-config.",
        doc="`default`: Triton's auto-complete is on (its default); `strict`: as with "
        "`--disable-auto-complete-config`",
        example='"default"',
        note='or "strict" (= --disable-auto-complete-config)',
    ),
    LintOption(
        "gpus",
        'GPU ids visible on the target host, or "none".',
        {
            "oneOf": [
                {"type": "array", "items": {"type": "integer", "minimum": 0}, "uniqueItems": True},
                {"const": "none"},
            ]
        },
        read=parse_gpus,
        target="gpus",
        flag="--gpus",
        cli_type=str,
        help="GPU ids visible on the target host, e.g. '0,1', or 'none'.",
        metavar="IDS",
        doc="GPU ids visible on the target host, e.g. `0,1`, or `none`",
        example="[0, 1]",
        note='GPUs on the target host; "none" for a CPU-only host',
    ),
    LintOption(
        "gpu-memory",
        'Memory of one GPU of the target host: bytes, or "24GiB", "80GB".',
        {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string", "pattern": _SIZE}]},
        read=parse_gpu_memory,
        target="gpu_memory",
        flag="--gpu-memory",
        cli_type=str,
        help="Memory of one GPU of the target host, e.g. '24GiB' or '80GB' (checks TC914).",
        metavar="SIZE",
        doc="memory of one GPU of the target host, e.g. `24GiB`, `80GB`, `16384MiB`: KIND_GPU "
        "instances whose weights alone exceed it are reported, per model (TC914) and for the "
        "whole repository (TC916)",
        example='"80GiB"',
        note="memory of one of them (TC914, TC916); bytes, KiB/MiB/GiB, KB/MB/GB",
    ),
    LintOption(
        "model-config-name",
        "Triton's --model-config-name.",
        {"type": "string"},
        target="config_name",
        flag="--model-config-name",
        cli_type=str,
        help="Like Triton's --model-config-name: use configs/<name>.pbtxt where present.",
        metavar="NAME",
        doc="like Triton's `--model-config-name`: use `configs/NAME.pbtxt` where present; the "
        "model's other configs are still checked, and their errors reported as TC915 warnings "
        "in their own files",
        example='"h100"',
        note="Triton's --model-config-name",
    ),
    LintOption(
        "backend-dir",
        "Triton's --backend-directory on the target host.",
        {"type": "string"},
        relative=True,
        target="backend_dir",
        flag="--backend-dir",
        cli_type=Path,
        help="Triton's --backend-directory on the target host; backend libraries are then checked.",
        metavar="DIR",
        doc="Triton's `--backend-directory` on the target host: backend libraries are then checked",
        example='"/opt/tritonserver/backends"',
    ),
    LintOption(
        "rate-limit",
        "Triton's --rate-limit.",
        _enum(RateLimit),
        read=parse_rate_limit,
        target="rate_limit",
        flag="--rate-limit",
        cli_type=str,  # checked by parse_rate_limit, whose message names the choices
        help="Triton's --rate-limit on the target host: off or execution_count.",
        metavar="off|execution_count",
        doc="Triton's `--rate-limit`: rate-limiter resource conflicts become errors with "
        "`execution_count`",
        example='"off"',
        note='or "execution_count" (Triton\'s --rate-limit)',
    ),
    LintOption(
        "model-files",
        "optional: model files are fetched at deploy time, so a missing model file (TC125, "
        "TC126) is not reported. Default: required.",
        _enum(ModelFiles),
        read=parse_model_files,
        target="model_files",
        flag="--model-files",
        cli_type=ModelFiles,
        help="required (default): report versions without their model file (TC125, TC126); "
        "optional: model files are fetched at deploy time.",
        doc="`required` (default): a loaded version without its model file is an error (TC125, "
        "TC126); `optional`: model files are fetched at deploy time",
        example='"required"',
        note='or "optional": model files are fetched at deploy time',
    ),
    LintOption(
        "rate-limit-resource",
        "Triton's --rate-limit-resource values, NAME:COUNT[:DEVICE].",
        {"type": "array", "items": {"type": "string", "pattern": "^[^:]+:[0-9]+(:[0-9]+)?$"}},
        read=parse_rate_limit_resources,
        target="rate_limit_resources",
        flag="--rate-limit-resource",
        cli_type=list[str],
        repeatable=True,
        from_cli=_tuple,
        override="rate_limit_resources",
        help="Triton's --rate-limit-resource on the target host: NAME:COUNT[:DEVICE] (repeatable).",
        metavar="NAME:COUNT[:DEVICE]",
        doc="Triton's `--rate-limit-resource` on the target host (repeatable): instance groups "
        "that need more of a resource than given, or a resource not given, are reported (TC732)",
        example='["R:4", "GPU_MEM:2:0"]',
        note="Triton's --rate-limit-resource (TC732)",
    ),
    LintOption(
        "triton-version",
        "The Triton release to check against, e.g. 2.51 or 24.10 (TC012).",
        {"type": "string"},
        read=parse_triton_version,
        target="triton_version",
        flag="--triton-version",
        cli_type=str,
        help="The Triton release the repository is for, e.g. 2.51 or 24.10: report fields and "
        "values it does not know (TC012). Default: the newest schema.",
        metavar="V",
        doc="the Triton release the repository is for, `2.51` or its container release `24.10`: "
        "fields and enum values that release's `model_config.proto` does not know are errors "
        "(TC012). Default: the newest schema, the one tritoncfg ships. The per-release table "
        "(`tritoncfg/schema/releases.json`) is generated by `tools/gen_release_fields.py` from "
        "the release branches of triton-inference-server/common",
        example='"2.51"',
        note="the target release: fields it does not know are errors (TC012)",
    ),
    LintOption(
        "select",
        "Rules to run: codes, prefixes (TC2) or names. Default: ALL.",
        _SELECTORS,
        default=("ALL",),
        flag="--select",
        cli_type=list[str],
        repeatable=True,
        from_cli=split_selectors,
        help="Rules to run: codes, prefixes (TC2) or names; comma-separated.",
        metavar="SELECTORS",
        doc="rules to run, by code, prefix (`TC2`) or name, comma-separated, repeatable "
        "(default `ALL`); replaces the settings' selection",
        example='["ALL"]',
    ),
    LintOption(
        "extend-select",
        "Rules added to `select`.",
        _SELECTORS,
        flag="--extend-select",
        cli_type=list[str],
        repeatable=True,
        from_cli=split_selectors,
        help="Rules to add to the selection.",
        metavar="SELECTORS",
        doc="rules added to the selection (a `preview` rule is selected by its code or name), "
        "comma-separated, repeatable",
        example='["TC9"]',
    ),
    LintOption(
        "ignore",
        "Rules not to run.",
        _SELECTORS,
        flag="--ignore",
        cli_type=list[str],
        repeatable=True,
        from_cli=split_selectors,
        help="Rules not to run: codes, prefixes or names.",
        metavar="SELECTORS",
        doc="rules not to run, comma-separated, repeatable; added to the settings' (a rule the "
        "command line selects is not ignored by the settings)",
        example='["TC906"]',
    ),
    LintOption(
        "severity-overrides",
        'Severity per rule code or name, e.g. {TC901 = "error"}.',
        {
            "type": "object",
            "propertyNames": _SELECTOR,
            "additionalProperties": {"enum": [s.value for s in Severity]},
        },
        flag="--severity-override",
        cli_type=list[str],
        repeatable=True,
        from_cli=severity_pairs,
        help="CODE=SEVERITY, e.g. TC901=error (repeatable).",
        metavar="CODE=SEVERITY",
        doc="e.g. `TC903=error`, repeatable; merged over the settings' code by code",
        example='{ TC903 = "error" }',
    ),
    LintOption(
        "warnings-as-errors",
        "Exit 1 on warnings too.",
        {"type": "boolean"},
        default=False,
        read=bool,
        flag="--warnings-as-errors",
        cli_type=bool,
        help="Exit 1 on warnings too.",
        doc="exit `1` on warnings too",
        example="false",
    ),
    LintOption(
        "cache",
        "Reuse unchanged models' findings from .tritoncfg_cache/ (default true).",
        {"type": "boolean"},
        default=True,
        read=bool,
        flag="--cache/--no-cache",
        cli_type=bool,
        help="Reuse unchanged models' findings from .tritoncfg_cache/ (default: on).",
        doc="reuse the findings of unchanged models from `.tritoncfg_cache/` (default on)",
        example="true",
        note=".tritoncfg_cache/; false = always lint everything",
    ),
    LintOption(
        "cache-dir",
        "Where the lint cache lives, relative to this file (default .tritoncfg_cache); "
        "--cache-dir and TRITONCFG_CACHE_DIR win over it.",
        {"type": "string", "minLength": 1},
        default=".tritoncfg_cache",
        relative=True,
        flag="--cache-dir",
        cli_type=Path,
        help="Where the cache lives (default: .tritoncfg_cache/ beside the settings file; env "
        "TRITONCFG_CACHE_DIR, setting cache-dir).",
        metavar="DIR",
        doc="where that cache lives: default `.tritoncfg_cache/` beside the settings file (the "
        "working directory without one). Also the `TRITONCFG_CACHE_DIR` environment variable "
        "(as ruff's `RUFF_CACHE_DIR`), then the setting `cache-dir` (relative to the settings "
        "file); the option wins over both. Missing parent folders are made. A cache inside a "
        "linted repository is never used (Triton would take it for a model)",
        example='".tritoncfg_cache"',
        note="where (relative to this file); TRITONCFG_CACHE_DIR and --cache-dir win",
    ),
    LintOption(
        "respect-gitignore",
        "Leave out what .gitignore files (and .git/info/exclude) ignore, inside a git work "
        "tree, as ruff does. Default: true.",
        {"type": "boolean"},
        default=True,
        read=bool,
        flag="--respect-gitignore/--no-respect-gitignore",
        cli_type=bool,
        help="Leave out what .gitignore files ignore, in a git work tree (default: on; setting "
        "respect-gitignore).",
        doc="leave out what `.gitignore` files ignore, in a git work tree (default on; "
        "[which files](#which-files-a-command-takes)); `fmt` has it too",
        example="true",
        note="leave out what .gitignore files ignore (in a git work tree)",
    ),
    LintOption(
        "force-exclude",
        "Apply exclude and .gitignore to paths named on the command line too (pre-commit "
        "passes file names). Default: false.",
        {"type": "boolean"},
        default=False,
        read=bool,
        flag="--force-exclude/--no-force-exclude",
        cli_type=bool,
        help="Apply exclude and .gitignore to the paths given too (pre-commit passes file names; "
        "setting force-exclude).",
        doc="apply `exclude` and `.gitignore` to the paths given too (the pre-commit hooks pass "
        "it); `fmt` has it too",
        example="false",
        note="true: exclude and .gitignore apply to paths named too",
    ),
    LintOption(
        "backends",
        "Backends installed on the target host besides the standard ones (onnxruntime, "
        "tensorrt, python, ...); any other `backend` is an error (TC120).",
        _NAMES,
        default=(),
        read=_tuple,
        target="backends",
        example='["mybackend"]',
        note="backends the host has besides the standard ones (TC120, TC121)",
    ),
    LintOption(
        "runtimes",
        "Runtime libraries (`runtime` values) installed in the target host's backend folders; "
        "without --backend-dir any other `runtime` that is not in the model folder is an error "
        "(TC121).",
        _NAMES,
        default=(),
        read=_tuple,
        target="runtimes",
        example='["libtriton_custom.so"]',
        note="`runtime` libraries in the host's backend folders (TC121)",
    ),
    LintOption(
        "repo-agents",
        "Model repository agents installed besides checksum (TC124).",
        _NAMES,
        default=(),
        read=_tuple,
        target="repo_agents",
        example='["myagent"]',
        note="repository agents besides checksum (TC124)",
    ),
    LintOption(
        "repository",
        "The project's model repository folder, relative to this file: `tritoncfg lint "
        "PROJECT` (and fmt, complete, probe) then read that folder, not the project's .github/ "
        "or deploy/.",
        {"type": "string", "minLength": 1},
        example='"model_repository"',
        note="this project's model repository: `tritoncfg lint .` reads it",
    ),
    LintOption(
        "exclude",
        "Gitignore-style patterns (relative to the configuration file) of model directories and "
        "files that lint, fmt, complete and probe leave out.",
        {"type": "array", "items": {"type": "string"}},
        default=(),
        read=_tuple,
        example='["legacy/*"]',
    ),
    LintOption(
        "per-path-ignores",
        "Gitignore-style pattern -> rules ignored for matching paths.",
        {"type": "object", "additionalProperties": _SELECTORS},
        example='{ "experiments/*" = ["TC9"] }',
    ),
)

BY_KEY: dict[str, LintOption] = {option.key: option for option in LINT_OPTIONS}


def settings_schema() -> dict[str, Any]:
    """The JSON Schema of `[tool.tritoncfg]` (`tritoncfg schema settings`)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/tritoncfg/tritoncfg/blob/main/docs/configuration.md",
        "title": "tritoncfg configuration ([tool.tritoncfg] in pyproject.toml, or tritoncfg.toml)",
        "type": "object",
        "additionalProperties": False,
        "properties": {o.key: {**o.schema, "description": o.summary} for o in LINT_OPTIONS},
    }
